#!/bin/bash
# cgconvert with fprof inputs and output: format detection, option lists,
# errors (exit 3, byte offset, no partial output file), and the Callgrind
# and folded views of a trace agreeing with fprof's OWN total.
. "$CG_TOP/tests/lib.sh"
require_tool callgrind_annotate
G=$CG_TOP/testdata/fprof/golden
CV=$BIN/cgconvert

"$CV" -t fprof "$G/fpdemo.trace" -o "$WORK/a" 2>"$WORK/err"
cmp_files "trace detected, default analyse options" "$WORK/a" "$G/fpdemo.callers-acc-nototals-details.analysis"
"$CV" -f fprof-trace -t fprof --fprof-analyse=no_callers,sort=own,totals "$G/fpt_procs.trace" -o "$WORK/b"
cmp_files "-f fprof-trace --fprof-analyse=no_callers,sort=own,totals" "$WORK/b" "$G/fpt_procs.no_callers-own-totals-details.analysis"
"$CV" -t fprof --fprof-analyse='{sort,own},totals' "$G/fpt_exc.callers-own-totals-details.analysis" -o "$WORK/c"
cmp_files "analysis text detected and written back" "$WORK/c" "$G/fpt_exc.callers-own-totals-details.analysis"

# errors
head -c 300 "$G/fpdemo.trace" >"$WORK/cut.trace"
"$CV" -t fprof "$WORK/cut.trace" -o "$WORK/cut.out" 2>"$WORK/err"; rc=$?
is "truncated trace: exit 3" "$rc" 3
is "truncated trace: message names the byte offset" \
	"$(grep -c 'cut.trace: truncated record payload at byte offset 230' "$WORK/err")" 1
is "truncated trace: no output file" "$([ -e "$WORK/cut.out" ] && echo exists || echo none)" none
{ printf '\007\000\000\000\001x'; } >"$WORK/bad.trace"
"$CV" -f fprof-trace -t fprof "$WORK/bad.trace" >/dev/null 2>"$WORK/err"; rc=$?
is "bad record tag: exit 3" "$rc" 3
is "bad record tag: message" "$(grep -c 'bad record tag 7 at byte offset 0' "$WORK/err")" 1
"$CV" -t fprof --fprof-analyse=sort=bogus "$G/synth.trace" >/dev/null 2>"$WORK/err"; rc=$?
is "unknown analyse option: usage error" "$rc" 2

# Callgrind (merged) loads without warnings; with fprof's own mapping
# (--no-fprof-suspend-self: suspend has no self time) totals = fprof's OWN
# total.  The default mapping is tests/fprof-suspend.t's.
for prog in fpdemo fpt_procs fpt_gc; do
	own=$(awk -F, '/^\[\{ totals,/ { gsub(/[ }\]]/, "", $4); printf "%.0f\n", $4 * 1000 }' \
		"$G/$prog.callers-acc-nototals-details.analysis")
	"$CV" -t callgrind --no-fprof-suspend-self "$G/$prog.trace" -o "$WORK/$prog.cg"
	callgrind_annotate --auto=no "$WORK/$prog.cg" >"$WORK/ann" 2>&1
	is "$prog: callgrind_annotate reads it without warnings" "$(grep -c WARNING "$WORK/ann")" 0
	tot=$(awk '/PROGRAM TOTALS/ { gsub(/,/, "", $1); print $1 }' "$WORK/ann")
	is "$prog: Callgrind total = fprof OWN total" "$tot" "$own"
	"$CV" -t folded --no-fprof-suspend-self "$G/$prog.trace" -o "$WORK/$prog.folded"
	is "$prog: folded stacks sum to the OWN total" \
		"$(awk '{ s += $NF } END { printf "%.0f\n", s }' "$WORK/$prog.folded")" "$own"
done
done_testing
