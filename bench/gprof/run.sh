#!/bin/bash
# bench/gprof/run.sh [FUNCS...] — cgprof against GNU gprof on generated
# programs (testdata/gmon/gen-bigprog.py, built with -pg and without -g).
#
# For each size (default 10000 20000 40000 functions) it generates, builds
# and runs the program once (cached in $BENCH_DIR, default build/bench-gprof),
# then runs gprof and cgprof on the same executable and gmon.out, checks
# that both reports are identical, and prints user+system CPU time and peak
# RSS of each, with the ratios.  Timings are what this machine gives; the
# script asserts nothing about them.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${CG_BUILD:=$top/build}"
: "${BENCH_DIR:=$CG_BUILD/bench-gprof}"
cgprof=$CG_BUILD/bin/cgprof
gen=$top/testdata/gmon/gen-bigprog.py
export LC_ALL=C
[ $# -gt 0 ] || set -- 10000 20000 40000
mkdir -p "$BENCH_DIR"

measure() {  # OUT CMD... -> "cpu_seconds max_rss_kb"
	local out=$1; shift
	/usr/bin/time -f '%U %S %M' -o "$BENCH_DIR/time.txt" "$@" >"$out"
	awk '{ printf "%.2f %d\n", $1 + $2, $3 }' "$BENCH_DIR/time.txt"
}

printf '%-7s %10s %10s %10s %10s %9s %9s %s\n' funcs gprof_cpu cgprof_cpu gprof_rss cgprof_rss cpu_ratio rss_ratio report
for n in "$@"; do
	d=$BENCH_DIR/f$n
	mkdir -p "$d"
	if [ ! -s "$d/gmon.out" ]; then
		echo "# building and running the $n-function program (once; cached in $d)" >&2
		python3 "$gen" --funcs "$n" --seed 1 -o "$d/bigprog.c" >/dev/null
		gcc -pg -O0 -fno-inline -o "$d/bigprog" "$d/bigprog.c"
		(cd "$d" && ./bigprog)
	fi
	read -r gcpu grss < <(cd "$d" && measure "$d/gprof.txt" gprof bigprog gmon.out)
	read -r ccpu crss < <(cd "$d" && measure "$d/cgprof.txt" "$cgprof" bigprog gmon.out)
	python3 "$top/testdata/gmon/strip-blurbs.py" <"$d/gprof.txt" >"$d/gprof.stripped"
	python3 "$top/testdata/gmon/strip-blurbs.py" <"$d/cgprof.txt" >"$d/cgprof.stripped"
	same=identical
	cmp -s "$d/gprof.stripped" "$d/cgprof.stripped" || same=DIFFERENT
	awk -v n="$n" -v gc="$gcpu" -v cc="$ccpu" -v gr="$grss" -v cr="$crss" -v s="$same" 'BEGIN {
		cr_ = (cc > 0 ? gc / cc : 0); rr = (cr > 0 ? gr / cr : 0)
		printf "%-7s %9.2fs %9.2fs %8.1fMB %8.1fMB %8.1fx %8.2fx %s\n", n, gc, cc, gr / 1024, cr / 1024, cr_, rr, s }'
done
