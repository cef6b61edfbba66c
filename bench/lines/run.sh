#!/bin/bash
# bench/lines/run.sh — line-level reports: `cgprof -b -l -p` against GNU
# `gprof -b -l -p` on programs built with -pg -g, side by side.
#
# Programs (built and run once, cached in $BENCH_DIR, default
# build/bench-lines):
#   sqlite   SQLite's amalgamation (sqlite3.c, ~9 MB of C, as shipped
#            inside the better-sqlite3 npm package, fetched with `npm pack`)
#            with bench/lines/sqlite-driver.c as main, -O2;
#   lines    testdata/gprof/lines (inline functions, two units), -O2;
#   big10k   testdata/gmon/gen-bigprog.py --funcs 10000, -O0 -g.
# For each it checks that both reports are identical and prints
# user+system CPU time and peak RSS of each with the ratios, and cgprof's
# function-level (-b -p) time for comparison with what -l costs on top of
# it (l/p: cgprof -b -l -p over cgprof -b -p).  Timings are what this
# machine gives; nothing is asserted about them.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${CG_BUILD:=$top/build}"
: "${BENCH_DIR:=$CG_BUILD/bench-lines}"
cgprof=$CG_BUILD/bin/cgprof
export LC_ALL=C
[ $# -gt 0 ] || set -- sqlite lines big10k
mkdir -p "$BENCH_DIR"

# Each command runs BENCH_RUNS times (default 3): the least CPU time of
# the runs (a shared machine only ever adds to it) and the largest RSS.
: "${BENCH_RUNS:=3}"
measure() {  # OUT CMD... -> "cpu_seconds max_rss_kb"
	local out=$1 i; shift
	: >"$BENCH_DIR/time.txt"
	for ((i = 0; i < BENCH_RUNS; i++)); do
		/usr/bin/time -f '%U %S %M' -a -o "$BENCH_DIR/time.txt" "$@" >"$out"
	done
	# time(1) puts "Command exited with non-zero status N" before its
	# line when the command fails
	awk '$1 == "Command" { next } !n++ || $1 + $2 < c { c = $1 + $2 } $3 > m { m = $3 }
	     END { printf "%.2f %d\n", c, m }' "$BENCH_DIR/time.txt"
}

prepare() {  # name dir
	local name=$1 d=$2
	case $name in
	sqlite)
		if [ ! -s "$d/sqlite3.c" ]; then
			echo "# fetching SQLite's amalgamation (better-sqlite3 12.11.1 from npm)" >&2
			(cd "$d" && npm pack --silent better-sqlite3@12.11.1 >/dev/null &&
			 tar xzf better-sqlite3-12.11.1.tgz --strip-components=3 \
			     package/deps/sqlite3/sqlite3.c package/deps/sqlite3/sqlite3.h)
		fi
		gcc -pg -g -O2 -I"$d" -o "$d/prog" "$d/sqlite3.c" "$top/bench/lines/sqlite-driver.c" -lm
		(cd "$d" && ./prog 200000) ;;
	lines)
		gcc -pg -g -O2 -o "$d/prog" "$top/testdata/gprof/lines/main.c" "$top/testdata/gprof/lines/other.c"
		(cd "$d" && ./prog 4000 >/dev/null) ;;
	big10k)
		python3 "$top/testdata/gmon/gen-bigprog.py" --funcs 10000 --seed 1 -o "$d/bigprog.c" >/dev/null
		gcc -pg -g -O0 -fno-inline -o "$d/prog" "$d/bigprog.c"
		(cd "$d" && ./prog) ;;
	*) echo "bench/lines/run.sh: unknown program $name" >&2; exit 2 ;;
	esac
}

printf '%-7s %10s %10s %10s %10s %9s %9s %11s %6s %s\n' program gprof_cpu cgprof_cpu gprof_rss \
	cgprof_rss cpu_ratio rss_ratio cgprof_-p l/p report
for name in "$@"; do
	d=$BENCH_DIR/$name
	mkdir -p "$d"
	if [ ! -s "$d/gmon.out" ]; then
		echo "# building and running $name (once; cached in $d)" >&2
		prepare "$name" "$d"
	fi
	read -r gcpu grss < <(cd "$d" && measure "$d/gprof.txt" gprof -b -l -p prog gmon.out)
	read -r ccpu crss < <(cd "$d" && measure "$d/cgprof.txt" "$cgprof" -b -l -p prog gmon.out)
	read -r fcpu _ < <(cd "$d" && measure "$d/cgprof-functions.txt" "$cgprof" -b -p prog gmon.out)
	same=identical
	cmp -s "$d/gprof.txt" "$d/cgprof.txt" || same=DIFFERENT
	awk -v n="$name" -v gc="$gcpu" -v cc="$ccpu" -v gr="$grss" -v cr="$crss" -v fc="$fcpu" -v s="$same" 'BEGIN {
		# below the clock'"'"'s 10 ms a CPU ratio means nothing
		cpu = (cc > 0 ? sprintf("%8.1fx", gc / cc) : sprintf("%9s", "-")); rr = (cr > 0 ? gr / cr : 0)
		lp = (fc > 0 ? sprintf("%5.1fx", cc / fc) : sprintf("%6s", "-"))
		printf "%-7s %9.2fs %9.2fs %8.1fMB %8.1fMB %s %8.2fx %10.2fs %s %s\n", n, gc, cc, gr / 1024, cr / 1024, cpu, rr, fc, lp, s }'
done
