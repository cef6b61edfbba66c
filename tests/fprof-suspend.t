#!/usr/bin/env bash
# cgconvert's default fprof mapping (--fprof-suspend-self, the spec's
# recommended mapping for KCachegrind): suspend's waiting time becomes its
# self cost, so inclusive
# costs never exceed the total in callgrind_annotate, while the fprof
# analysis text stays exactly fprof's.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool callgrind_annotate
T=$CG_TOP/testdata/fprof
for trace in "$T"/golden/fpdemo.trace "$T"/golden/fpt_procs.trace; do
name=$(basename "$trace" .trace)
ok "$name: a stored fprof trace is there" test -s "$trace"

for opt in "" "--fprof-analyse=totals,no_callers"; do
  "$BIN/cgconvert" -t fprof $opt --no-fprof-suspend-self "$trace" >"$WORK/plain.txt"
  "$BIN/cgconvert" -t fprof $opt --fprof-suspend-self "$trace" >"$WORK/self.txt"
  cmp_files "$name: fprof analysis ${opt:-defaults}: identical with --fprof-suspend-self" \
    "$WORK/self.txt" "$WORK/plain.txt"
done

ok "$name: Callgrind, default options" \
  "$BIN/cgconvert" -t callgrind -o "$WORK/s.cg" "$trace"
callgrind_annotate --inclusive=yes "$WORK/s.cg" >"$WORK/s.ann" 2>&1
is "$name: callgrind_annotate prints no warning" "$(grep -ci warning "$WORK/s.ann")" "0"
over=$(sed -n 's/.*(\([0-9.]*\)%).*/\1/p' "$WORK/s.ann" | awk '$1 > 100.0001' | head -3)
is "$name: no inclusive cost exceeds the total" "$over" ""
total=$(sed -n 's/^totals: //p' "$WORK/s.cg")
# self cost lines are the cost lines not right after a calls= line
# (a position may be relative: +N, -N, or * for the same line)
selfsum=$(awk '/^calls=/ { skip = 1; next } /^[0-9+*-]/ { if (skip) { skip = 0; next } sum += $2 } END { print sum + 0 }' "$WORK/s.cg")
ok "$name: suspend has self cost now" grep -q ":suspend" "$WORK/s.ann"
is "$name: self costs add up to the total" "$selfsum" "$total"
done
done_testing
