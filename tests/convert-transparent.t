#!/usr/bin/env bash
# --transparent=NAME (SWI-Prolog's noprofile/1) on profiles whose true
# attribution is known: call trees of real programs run under the
# collector in deterministic calls mode (one tick per call), where the
# removal is exact per calling context, and arc-only profiles, where the
# cost and calls are split in proportion to the call counts.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool python3 xmllint
P=$CG_BUILD/tests/collector
D=$CG_TOP/testdata/convert
# every XML file written here must also validate against the schema
dump() {
	"$BIN/cgconvert" -t xml -o "$WORK/d.xml" "$@" &&
	xmllint --noout --relaxng "$CG_TOP/docs/xml-schema.rng" "$WORK/d.xml" 2>/dev/null &&
	python3 "$D/dump_xml.py" "$WORK/d.xml"
}

# easy/hard: a wrapper (work) called from two callers with different costs
"$BIN/cgrun" --time=calls -o "$WORK/eh.cgt" "$P/easyhard" >/dev/null 2>&1
is "call tree: work's cost goes to each caller exactly, per context" \
	"$(dump --transparent=work "$WORK/eh.cgt")" \
"arc easy > step count=1 incl=1
arc hard > step count=999 incl=999
arc main > easy count=1 incl=3
arc main > hard count=1 incl=1001
self easy 2
self hard 2
self main 1
self step 1000
transparent work"
# the same profile known only by its arcs splits work's callees 50/50 by
# call counts: the tree is what makes the attribution exact
"$BIN/cgconvert" -t callgrind -o "$WORK/eh.cg" "$WORK/eh.cgt"
is "arcs only: work's calls and costs split in proportion to call counts" \
	"$(dump --transparent=work "$WORK/eh.cg" | grep -E '^arc (easy|hard)|^self (easy|hard)')" \
"arc easy > step count=500 incl=500
arc hard > step count=500 incl=500
self easy 2
self hard 2"

# the collector's own --noprofile gives the same call graph as the
# transform (its calls mode does not tick for the noprofile function
# itself, so only the counts compare)
"$BIN/cgrun" --time=calls --noprofile=work -o "$WORK/ehn.cgt" "$P/easyhard" >/dev/null 2>&1
is "--transparent=work gives the call counts of the collector's --noprofile=work" \
	"$(dump --transparent=work "$WORK/eh.cgt" | grep '^arc' | sed 's/ incl=.*//')" \
	"$(dump "$WORK/ehn.cgt" | grep '^arc' | sed 's/ incl=.*//')"

# noprof: main -> wrap(3), wrap(1), target; wrap -> target (n), helper
"$BIN/cgrun" --time=calls -o "$WORK/np.cgt" "$P/noprof" >/dev/null 2>&1
is "wrapper called twice: its callees hang under main with summed counts" \
	"$(dump --transparent='wr?p' "$WORK/np.cgt")" \
"arc main > helper count=2 incl=2
arc main > target count=5 incl=5
self helper 2
self main 3
self target 5
transparent wrap"

# a transparent function inside a cycle: is_odd in is_even <-> is_odd
"$BIN/cgrun" --time=calls -o "$WORK/rec.cgt" "$P/recur" >/dev/null 2>&1
is "transparent is_odd: is_even recurses directly and absorbs is_odd's cost" \
	"$(dump --transparent=is_odd "$WORK/rec.cgt" | grep -E 'is_(even|odd)')" \
"arc is_even > is_even count=2 incl=0
arc main > is_even count=1 incl=5
self is_even 5
transparent is_odd"
"$BIN/cgconvert" -t graph -o "$WORK/rec.graph" "$WORK/rec.cgt"
"$BIN/cgconvert" -t graph --transparent=is_odd -o "$WORK/rec.t.graph" "$WORK/rec.cgt"
is "cycles are computed after the transform: one cycle left (ra/rb/rc)" \
	"$(grep -c '<cycle [0-9]* as a whole>' "$WORK/rec.graph") $(grep -c '<cycle [0-9]* as a whole>' "$WORK/rec.t.graph")" "2 1"

# arc-only, known numbers: W self 40 called 1x by A, 3x by B
is "arcs only: self cost and calls split 1:3 exactly" \
	"$(dump --transparent=W "$D/wrapper-arcs.cg")" \
"arc A > leaf count=1 incl=25
arc B > leaf count=3 incl=75
arc main > A count=1 incl=45
arc main > B count=1 incl=125
self A 20
self B 50
self leaf 100
self main 30
transparent W"
"$BIN/cgconvert" -t gprof -o "$WORK/wc.b" "$D/wrapper-cycle.cg"
"$BIN/cgconvert" -t gprof --transparent=W -o "$WORK/wc.t.b" "$D/wrapper-cycle.cg"
is "a dispatch wrapper no longer glues its callers into a cycle" \
	"$(grep -c '<cycle' "$WORK/wc.b" | sed 's/^[1-9][0-9]*$/some/') $(grep -c '<cycle' "$WORK/wc.t.b")" "some 0"
is "totals are kept exactly" \
	"$(dump --transparent=W "$D/wrapper-cycle.cg" | awk '$1=="self"{s+=$3} END{print s}')" "100"
exit_status "a pattern matching nothing changes nothing" 0 \
	cmp <(dump "$D/wrapper-arcs.cg") <(dump --transparent=nosuchfunction "$D/wrapper-arcs.cg")
done_testing
