#!/usr/bin/env bash
# speedscope (npm, run in headless Chromium exactly as
# tests/convert-flamegraph.t does) imports the pprof files we write: no
# import error, and its sandwich table (total and self per function)
# equals what the same call tree's folded stacks add up to.  A corrupt
# pprof file is the negative control.
. "${CG_TOP:-.}/tests/lib.sh"
. "$CG_TOP/tests/speedscope.sh"


for prog in easyhard recur; do
	"$BIN/cgrun" --time=calls -o $prog.cgt "$P/$prog" >/dev/null 2>&1
	"$BIN/cgconvert" -t folded -o $prog.folded $prog.cgt
	"$BIN/cgconvert" -t pprof -o $prog.pb.gz $prog.cgt
	render_sandwich $prog.pb.gz $prog.html
	is "$prog: speedscope shows the pprof file's name" \
		"$(grep -o '<title>[^<]*' $prog.html | sed 's/<title>//')" "$prog.pb.gz - speedscope"
	is "$prog: no import error" "$(grep -c 'cg-alert\|Something went wrong' $prog.html)" "0"
	is "$prog: sandwich table = the call tree's totals and selfs" \
		"$(sandwich_rows $prog.html)" "$(folded_sums $prog.folded)"
done
# Negative control: a pprof file cut inside its gzip header and first
# deflate block (a cut further on can still hold every sample: deflate
# puts the small sample table early, and speedscope decodes what it has).
head -c 20 easyhard.pb.gz >bad.pb.gz
render bad.pb.gz sandwich --dump-dom >bad.html
is "a truncated pprof file: speedscope shows no profile" "$(grep -c '<title>speedscope</title>' bad.html)" "1"
done_testing
