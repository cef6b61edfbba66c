#!/usr/bin/env bash
# Call-tree profiles (cgtree files of real programs run under the
# collector in deterministic calls mode): folded stacks for flame graphs,
# Callgrind with exact inclusive costs, one Callgrind part per thread, and
# XML round trips that keep the tree (byte-identical output afterwards).
. "${CG_TOP:-.}/tests/lib.sh"
require_tool callgrind_annotate xmllint dot
P=$CG_BUILD/tests/collector
schema=$CG_TOP/docs/xml-schema.rng
cd "$WORK" || exit 1
"$BIN/cgrun" --time=calls -o eh.cgt "$P/easyhard" >/dev/null 2>&1
"$BIN/cgrun" --time=calls -o rec.cgt "$P/recur" >/dev/null 2>&1
"$BIN/cgrun" --time=calls -o th.cgt "$P/threads" >/dev/null 2>&1

"$BIN/cgconvert" -t folded -o eh.folded eh.cgt
is "folded: one stack per context with its own cost" "$(cat eh.folded)" \
"main 1
main;easy 1
main;easy;work 1
main;easy;work;step 1
main;hard 1
main;hard;work 1
main;hard;work;step 999"
"$BIN/cgconvert" -t folded -o rec.folded rec.cgt
is "folded: the stacks' costs add up to the profile's total" \
	"$(awk '{s += $NF} END {print s}' rec.folded)" \
	"$("$BIN/cgconvert" -t callgrind rec.cgt | sed -n 's/^totals: //p')"
is "folded: every line is frames;...;frame COUNT" \
	"$(grep -cvE '^[^; ]([^;]*[^; ])?(;[^; ]([^;]*[^; ])?)* [0-9]+$' rec.folded)" "0"
"$BIN/cgconvert" -t folded -o th.folded th.cgt
is "folded: several threads, each its own bottom frame" \
	"$(cut -d';' -f1 th.folded | sort -u | tr '\n' ' ')" "thread 0 thread 1 thread 2 "

"$BIN/cgconvert" -t callgrind -o rec.cg rec.cgt
callgrind_annotate --inclusive=yes rec.cg >rec.ann 2>&1
is "callgrind from a tree: main is 100% inclusive, recursion not counted twice" \
	"$(grep -E ':(main|fact|is_even|ra) \[' rec.ann | sed -E 's/ *\(.*%\) +/ /; s/ \[.*//; s|[^ ]*:||; s/^ *//')" \
"$(grep -E '^[0-9,]+ .*PROGRAM TOTALS' rec.ann | awk '{print $1}') main
7 ra
5 fact
5 is_even"
is "callgrind from a tree: no warnings" "$(grep -ci warning rec.ann)" "0"

"$BIN/cgconvert" -t callgrind --split-parts -o th.cg th.cgt
is "one Callgrind part per thread" "$(grep -c '^events:' th.cg) $(grep -c '^part:' th.cg)" "3 3"
"$BIN/cgconvert" -t callgrind --merge-parts -o thm.cg th.cgt
callgrind_annotate thm.cg >thm.ann 2>&1
is "--merge-parts: one part, read without warning, total = sum of the parts" \
	"$(grep -c '^events:' thm.cg) $(grep -ci warning thm.ann) $(sed -n 's/^totals: //p' thm.cg)" \
	"1 0 $(sed -n 's/^totals: //p' th.cg | awk '{s += $1} END {print s}')"

for p in eh rec th; do
	"$BIN/cgconvert" -t xml -o $p.xml $p.cgt
	ok "$p: XML validates" xmllint --noout --relaxng "$schema" $p.xml
	is "$p: the XML keeps the call tree" "$(grep -c '<node ' $p.xml | sed 's/^[1-9][0-9]*$/yes/')" "yes"
	for t in gprof callgrind dot folded xml; do
		"$BIN/cgconvert" -t $t -o $p.direct.$t $p.cgt
		"$BIN/cgconvert" -t $t -o $p.via.$t $p.xml
		cmp_files "$p: cgtree -> xml -> $t is byte-identical" $p.via.$t $p.direct.$t
	done
	ok "$p: dot renders with Graphviz" dot -Tsvg -o $p.svg $p.direct.dot
done
is "dot: a cycle is drawn as a cluster" "$(grep -c 'subgraph cluster_cycle' rec.direct.dot)" "2"
done_testing
