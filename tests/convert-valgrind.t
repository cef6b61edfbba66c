#!/usr/bin/env bash
# The Callgrind reader on real `valgrind --tool=callgrind` output of a
# program built here (several events with --cache-sim, instr+line
# positions, jump lines, fi=/fe= from an inlined header, separated
# recursion levels): totals and call counts equal callgrind_annotate's,
# cgconvert's Callgrind output reads the same in callgrind_annotate, call
# counts known from the code come out, and XML round trips are
# byte-identical.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool valgrind callgrind_annotate xmllint python3 gcc
src=$CG_TOP/testdata/convert
compare=$src/compare_callgrind.py
schema=$CG_TOP/docs/xml-schema.rng

# callgrind_annotate shortens file names under the current directory
cd "$WORK" || exit 1
gcc -O2 -g -o "$WORK/vg" "$src/vgprog.c" || { echo "Bail out! cannot build vgprog"; exit 1; }
gcc -O0 -g -o "$WORK/vg0" "$src/vgprog.c"
valgrind --tool=callgrind --cache-sim=yes --dump-instr=yes --collect-jumps=yes \
	--callgrind-out-file="$WORK/full.cg" "$WORK/vg" >/dev/null 2>&1
valgrind --tool=callgrind --callgrind-out-file="$WORK/plain.cg" "$WORK/vg0" >/dev/null 2>&1
is "valgrind output has fi/fe, jumps, instr positions and 9 events" \
	"$(grep -c '^fi=' "$WORK/full.cg" | sed 's/^[1-9][0-9]*$/yes/') $(grep -c '^jcnd=' "$WORK/full.cg" | sed 's/^[1-9][0-9]*$/yes/') $(grep '^positions:' "$WORK/full.cg") $(grep '^events:' "$WORK/full.cg" | wc -w)" \
	"yes yes positions: instr line 10"

for run in full plain; do
	f=$WORK/$run.cg
	ok "$run: cgconvert reads it (callgrind detected) and writes Callgrind" \
		"$BIN/cgconvert" -t callgrind -o "$WORK/$run.ours" "$f"
	"$BIN/cgconvert" -t xml -o "$WORK/$run.xml" "$f"
	ok "$run: totals and call counts equal callgrind_annotate's; rewritten file reads the same" \
		python3 "$compare" "$f" "$WORK/$run.ours" "$WORK/$run.xml"
	ok "$run: XML validates" xmllint --noout --relaxng "$schema" "$WORK/$run.xml"
	for t in gprof callgrind dot folded xml; do
		"$BIN/cgconvert" -t $t -o "$WORK/$run.direct.$t" "$f"
		"$BIN/cgconvert" -t $t -o "$WORK/$run.via.$t" "$WORK/$run.xml"
		cmp_files "$run: callgrind -> xml -> $t is byte-identical" "$WORK/$run.via.$t" "$WORK/$run.direct.$t"
	done
done

# folded stacks and dot weighed by another event
"$BIN/cgconvert" -t dot --event=Dr -o full.Dr.dot full.cg
ok "dot weighed by Dr renders with Graphviz" dot -Tsvg -o full.Dr.svg full.Dr.dot
is "dot: the label names the event and the cut-off" "$(grep -c '^	label="Dr; functions under 0.5% of the total left out";' full.Dr.dot)" "1"
exit_status "an unknown --event is an error" 3 "$BIN/cgconvert" -t folded --event=nosuch full.cg

# call counts the code fixes (the model's arcs, through XML)
counts() {
	python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{urn:x-callgraph:profile:1}"
r = ET.parse(sys.argv[1]).getroot()
names = [f.get("name") for f in r.findall(ns + "function")]
want = [("light", "wrapper"), ("heavy", "wrapper"), ("wrapper", "work"), ("main", "light"),
        ("is_even", "is_odd")]
got = {}
for a in r.iter(ns + "arc"):
    got[(names[int(a.get("caller"))], names[int(a.get("callee"))])] = a.get("count")
print(" ".join("%s>%s=%s" % (c, e, got.get((c, e))) for c, e in want))
PY
}
is "plain: call counts from the code" "$(counts "$WORK/plain.xml")" \
	"light>wrapper=10 heavy>wrapper=30 wrapper>work=40 main>light=1 is_even>is_odd=1"

# several inputs are merged: every cost doubles
"$BIN/cgconvert" -t callgrind -o "$WORK/twice.cg" "$WORK/plain.cg" "$WORK/plain.cg"
one=$(callgrind_annotate "$WORK/plain.ours" | grep 'PROGRAM TOTALS' | awk '{gsub(",","",$1); print $1}')
two=$(callgrind_annotate "$WORK/twice.cg" | grep 'PROGRAM TOTALS' | awk '{gsub(",","",$1); print $1}')
is "two inputs merged: total doubles" "$two" "$((one * 2))"

# several parts (thread:/part: after events:) survive a round trip
tp=$src/twoparts.cg
"$BIN/cgconvert" -t xml -o "$WORK/tp.xml" "$tp"
ok "two parts: XML validates" xmllint --noout --relaxng "$schema" "$WORK/tp.xml"
is "two parts read as two named parts" "$(grep -o '<part name="[^"]*"' "$WORK/tp.xml")" \
	'<part name="part 1"
<part name="thread 2 part 2"'
"$BIN/cgconvert" -t callgrind --split-parts -o "$WORK/tp.cg" "$tp"
"$BIN/cgconvert" -t xml -o "$WORK/tp2.xml" "$WORK/tp.cg"
cmp_files "two parts: callgrind -> callgrind -> xml keeps both parts" "$WORK/tp2.xml" "$WORK/tp.xml"
"$BIN/cgconvert" -t callgrind --merge-parts -o "$WORK/tpm.cg" "$tp"
callgrind_annotate "$WORK/tpm.cg" >"$WORK/tpm.ann" 2>&1
is "--merge-parts: one part, callgrind_annotate reads it without warning" \
	"$(grep -c '^events:' "$WORK/tpm.cg") $(grep -ci warning "$WORK/tpm.ann")" "1 0"
done_testing
