#!/usr/bin/env bash
# Folded stacks as input: what we write reads back to the same stacks
# (collector profiles of real programs), the values go tool pprof computes
# from them (via our pprof) equal flat/cum computed from the text itself,
# detection by content, and one-line errors with line and byte offset.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool go python3 timeout
P=$CG_BUILD/tests/collector
tops=$CG_TOP/testdata/pprof/tops.py
cd "$WORK" || exit 1
export GOCACHE=$WORK/gocache HOME=$WORK PPROF_TMPDIR=$WORK/pprof
for prog in easyhard recur threads; do
	"$BIN/cgrun" --time=calls -o $prog.cgt "$P/$prog" >/dev/null 2>&1
	"$BIN/cgconvert" -t folded -o $prog.folded $prog.cgt
	"$BIN/cgconvert" -t folded -o $prog.again $prog.folded
	cmp_files "$prog: folded -> folded gives the same stacks" $prog.again $prog.folded
done
"$BIN/cgconvert" -t pprof -o recur.pb.gz recur.folded
is "recur: go tool pprof -top of folded -> pprof equals flat/cum of the text" \
	"$(go tool pprof -top -nodecount=1000000 -nodefraction=0 recur.pb.gz 2>/dev/null | python3 "$tops" top /dev/stdin)" \
	"$(python3 "$tops" folded recur.folded)"
like "detected by content (no -f)" "$("$BIN/cgconvert" -t gprof easyhard.folded | head -3)" 'Flat profile'
printf 'main;a 3\r\nmain;;b 4\nmain;a 2\n' >odd.folded
is "CRLF, empty frames skipped, equal stacks summed" "$("$BIN/cgconvert" -t folded odd.folded)" \
"main;a 5
main;b 4"
printf 'main;a 3\nmain;b x\n' >bad.folded
exit_status "a bad count: exit 3" 3 "$BIN/cgconvert" -f folded -t gprof -o out bad.folded
like "a bad count: file, line and byte offset in one line" \
	"$("$BIN/cgconvert" -f folded -t gprof bad.folded 2>&1)" \
	'^cgconvert: bad\.folded: line 2 \(byte offset 9\): the count is not a non-negative integer$'
ok "a bad count: no output file" test ! -e out
# /dev/zero named as this format fails at once (the timeout only turns a
# hang into a failure), as every text reader does (tests/bounded-input.t)
like "/dev/zero as folded: one line, where and what" \
	"$(timeout 60 "$BIN/cgconvert" -f folded -t xml /dev/zero 2>&1)" '^cgconvert: /dev/zero:1: NUL byte at byte offset 0: binary data, not a text profile$'
exit_status "/dev/zero as folded: exit 3" 3 timeout 60 "$BIN/cgconvert" -f folded -t xml /dev/zero
done_testing
