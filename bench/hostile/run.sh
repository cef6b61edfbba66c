#!/bin/bash
# bench/hostile/run.sh — the scale and hostile-input cases of
# docs/reliability.md, timed: tree-less profiles through the transforms
# that used to be quadratic (-t fprof, --transparent), and endless inputs
# (/dev/zero, an endless line) that must fail at once in little memory.
# Prints wall time, CPU and peak memory per case; nothing is asserted.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${CG_BUILD:=$top/build}"
bin=$CG_BUILD/bin
OUT=$CG_BUILD/bench-hostile
mkdir -p "$OUT"
cd "$OUT"
export LC_ALL=C

measure() {  # LABEL CMD...  (a failing command is expected for the bad inputs)
	local label=$1; shift
	/usr/bin/time -f '%e %U %S %M %x' -o time.txt "$@" >/dev/null 2>err.txt || true
	tail -1 time.txt | awk -v l="$label" '{
		printf "  %-44s %7.2fs wall %7.2fs cpu %8.1f MB peak  exit %s\n", l, $1, $2 + $3, $4 / 1024, $5 }'
}

chain() {  # N: a Callgrind file of N functions in a call chain (no call tree)
	awk -v n="$1" 'BEGIN { print "# callgrind format"; print "events: Ir"
		for (i = 0; i < n; i++) printf "fn=f%d\n1 %d\ncfn=f%d\ncalls=1 0\n0 1\n", i, i + 1, i + 1 }'
}
[ -s chain40k.cg ] || chain 40000 > chain40k.cg
[ -s chain200k.cg ] || chain 200000 > chain200k.cg

echo "tree-less profiles:"
measure "40k functions -> fprof analysis" "$bin/cgconvert" -t fprof -o chain40k.fprof chain40k.cg
measure "200k functions --transparent='f1*'" "$bin/cgconvert" -t callgrind --transparent='f1*' -o chain200k.cg.out chain200k.cg
echo "endless inputs (exit 3 expected):"
for f in callgrind cgtree fprof-analysis xml; do
	measure "/dev/zero as $f" "$bin/cgconvert" -f "$f" -t xml -o zero.xml /dev/zero
done
measure "an endless line through a pipe" sh -c "tr '\\0' a < /dev/zero | '$bin/cgconvert' -f callgrind -t xml -"
