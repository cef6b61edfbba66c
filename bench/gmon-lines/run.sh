#!/bin/bash
# bench/gmon-lines/run.sh — gmon.out to Callgrind with per-line and
# per-address costs (`cgconvert -t callgrind`, positions on) against GNU
# `gprof -b -l -p`, which computes the same per-line shares, side by
# side; and cgconvert -t folded (which reads the same positions) for the
# cost of the reading alone.  The programs and their gmon.out are
# bench/lines/run.sh's (built and run once, cached in $BENCH_DIR, default
# build/bench-lines; this script runs that one first when a program is
# missing).  Prints user+system CPU and peak RSS of each with the ratio.
# Timings are what this machine gives; nothing is asserted about them.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${CG_BUILD:=$top/build}"
: "${BENCH_DIR:=$CG_BUILD/bench-lines}"
export CG_BUILD BENCH_DIR LC_ALL=C
cgconvert=$CG_BUILD/bin/cgconvert
[ $# -gt 0 ] || set -- sqlite lines big10k

measure() {  # OUT CMD... -> "cpu_seconds max_rss_kb"
	local out=$1; shift
	/usr/bin/time -f '%U %S %M' -o "$BENCH_DIR/time.txt" "$@" >"$out"
	awk '{ printf "%.2f %d\n", $1 + $2, $3 }' "$BENCH_DIR/time.txt"
}

printf '%-7s %10s %13s %10s %13s %9s %10s %s\n' program gprof_-l cgconvert_cg gprof_rss \
	cgconvert_rss cpu_ratio folded_cpu positions
for name in "$@"; do
	d=$BENCH_DIR/$name
	[ -s "$d/gmon.out" ] || bash "$top/bench/lines/run.sh" "$name" >/dev/null
	read -r gcpu grss < <(cd "$d" && measure "$d/gprof.txt" gprof -b -l -p prog gmon.out)
	read -r ccpu crss < <(cd "$d" && measure "$d/lines.cg" "$cgconvert" -t callgrind --exe prog gmon.out)
	read -r fcpu _ < <(cd "$d" && measure "$d/lines.folded" "$cgconvert" -t folded --exe prog gmon.out)
	npos=$(grep -c '^0x' "$d/lines.cg" || true)
	awk -v n="$name" -v gc="$gcpu" -v cc="$ccpu" -v gr="$grss" -v cr="$crss" -v fc="$fcpu" -v np="$npos" 'BEGIN {
		cpu = (cc > 0 ? sprintf("%8.1fx", gc / cc) : sprintf("%9s", "-"))
		printf "%-7s %9.2fs %12.2fs %8.1fMB %11.1fMB %s %9.2fs %s\n", n, gc, cc, gr / 1024, cr / 1024, cpu, fc, np }'
done
