#!/bin/bash
# The CI baseline workflow (docs/ci-recipe.md): store a baseline with
# `cgconvert -t xml`, compare new profiles against it; cgdiff's own outputs
# (XML, differential Callgrind) are read by xmllint and callgrind_annotate.
. "$CG_TOP/tests/lib.sh"
require_tool gcc xmllint callgrind_annotate

src=$CG_TOP/testdata/diff/prog.c
cd "$WORK" || exit 1
gcc -finstrument-functions -O1 -g -DSCALE=1000 -o base "$src" &&
gcc -finstrument-functions -O1 -g -DSCALE=1000 -DEXTRA=1 -o extra "$src" &&
gcc -pg -O1 -g -DSCALE=1000000 -o gbase "$src" || { echo "Bail out! cannot build $src"; exit 1; }
"$BIN/cgrun" --time=calls -o base1.cgt ./base >/dev/null 2>&1 &&
"$BIN/cgrun" --time=calls -o base2.cgt ./base >/dev/null 2>&1 &&
"$BIN/cgrun" --time=calls -o extra.cgt ./extra >/dev/null 2>&1 &&
./gbase >/dev/null && mv gmon.out g1.gmon && ./gbase >/dev/null && mv gmon.out g2.gmon ||
	{ echo "Bail out! cannot profile $src"; exit 1; }
failing() {
	sed -n 's/^not ok [0-9]* - //p' | LC_ALL=C sort | tr '\n' ';'
}

# Collector profile: baseline stored as XML.
ok "cgconvert stores the baseline as XML" "$BIN/cgconvert" -t xml -o baseline.xml base1.cgt
exit_status "baseline.xml vs an unchanged run: exit 0" 0 \
	"$BIN/cgdiff" --fail 'self<>0' --fail 'calls<>0' --fail 'arcs<>0' baseline.xml base2.cgt
"$BIN/cgdiff" -t tap baseline.xml extra.cgt >extra.tap
is "baseline.xml vs the extra call: exit 1" "$?" 1
is "baseline.xml vs the extra call: exactly helper and main -> helper" \
	"$(failing <extra.tap)" "arc main -> helper;function helper;"
"$BIN/cgdiff" -t tap base1.cgt extra.cgt >direct.tap
cmp_files "the XML baseline gives the same verdicts as the original profile" extra.tap direct.tap

# gprof profile: baseline stored as XML, compared with a new gmon.out.
ok "cgconvert stores a gmon baseline as XML" "$BIN/cgconvert" -t xml --exe gbase -o gbaseline.xml g1.gmon
exit_status "gmon baseline.xml vs the same gmon.out: no difference at all" 0 \
	"$BIN/cgdiff" --new-exe gbase --fail 'self<>0' --fail 'calls<>0' --fail 'total<>0' \
	gbaseline.xml g1.gmon
exit_status "gmon baseline.xml vs another run: exit 0" 0 \
	"$BIN/cgdiff" --new-exe gbase gbaseline.xml g2.gmon

# Two Callgrind files (cgconvert -t callgrind) compare like their sources.
"$BIN/cgconvert" -t callgrind -o base1.cg base1.cgt && "$BIN/cgconvert" -t callgrind -o extra.cg extra.cgt
"$BIN/cgdiff" -t tap base1.cg extra.cg >cg.tap
is "Callgrind inputs: exit 1 on the extra call" "$?" 1
is "Callgrind inputs: exactly helper and main -> helper" \
	"$(failing <cg.tap)" "arc main -> helper;function helper;"

# cgdiff's XML is well-formed and says what failed.
"$BIN/cgdiff" -t xml -o diff.xml base1.cgt extra.cgt
is "XML output: exit 1" "$?" 1
ok "XML output is well-formed" xmllint --noout diff.xml
is "XML output: result and flagged count" \
	"$(xmllint --xpath 'concat(/cgdiff/@result, " ", /cgdiff/@flagged)' diff.xml)" "fail 3"
is "XML output: helper's self delta" \
	"$(xmllint --xpath 'string(/cgdiff/scope[@index=0]/function[@name="helper"]/self/@delta)' diff.xml)" "1"

# The differential Callgrind file opens in callgrind_annotate.
"$BIN/cgdiff" -t callgrind -o diff.cg base1.cgt extra.cgt
out=$(callgrind_annotate diff.cg 2>&1)
is "callgrind_annotate reads the diff without complaint" \
	"$(echo "$out" | grep -ciE 'warning|uninitiali[sz]ed|error')" 0
echo "$out" | grep -qE '^ *1 .* 0 .*helper'
is "callgrind_annotate shows helper's increase" "$?" 0
is "the diff's summary is the sum of the increases and decreases" \
	"$(sed -n 's/^summary: //p' diff.cg)" "$(echo "$out" | sed -n "s/ *PROGRAM TOTALS//p" | sed "s/([^)]*)//g" | tr -s ' ' | sed 's/^ //; s/ *$//')"
"$BIN/cgdiff" --callgrind=side.cg -q base1.cgt extra.cgt
cmp_files "--callgrind writes the same file beside the report" side.cg diff.cg

# No partial output on failure.
exit_status "unreadable input: exit 3" 3 "$BIN/cgdiff" -o out.txt base1.cgt /dev/null
ok "no output file is left behind on failure" test ! -e out.txt
done_testing
