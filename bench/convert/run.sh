#!/bin/bash
# bench/convert/run.sh [FUNCS...] — cgconvert on the generated gmon
# profiles (testdata/gmon/gen-bigprog.py, default 40000 functions): time
# and peak memory of gmon -> Callgrind, gmon -> XML and XML -> Callgrind,
# next to cgprof (and gprof) producing their report from the same input.
# The program is built and run once and shared with bench/gprof/run.sh
# ($BENCH_DIR, default build/bench-gprof); outputs go to
# build/bench-convert/.  Timings are what this machine
# gives; nothing is asserted about them.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${CG_BUILD:=$top/build}"
: "${BENCH_DIR:=$CG_BUILD/bench-gprof}"
bin=$CG_BUILD/bin
gen=$top/testdata/gmon/gen-bigprog.py
export LC_ALL=C
[ $# -gt 0 ] || set -- 40000
mkdir -p "$BENCH_DIR"

measure() {  # LABEL OUT CMD... -> one table row
	local label=$1 out=$2; shift 2
	/usr/bin/time -f '%e %U %S %M' -o "$OUT/time.txt" "$@" >"$out"
	awk -v l="$label" '{
		printf "  %-28s %7.2fs wall %7.2fs cpu %8.1f MB peak\n", l, $1, $2 + $3, $4 / 1024 }' "$OUT/time.txt"
}

for n in "$@"; do
	d=$BENCH_DIR/f$n
	mkdir -p "$d"
	if [ ! -s "$d/gmon.out" ]; then
		echo "# building and running the $n-function program (once; cached in $d)" >&2
		python3 "$gen" --funcs "$n" --seed 1 -o "$d/bigprog.c" >/dev/null
		gcc -pg -O0 -fno-inline -o "$d/bigprog" "$d/bigprog.c"
		(cd "$d" && ./bigprog)
	fi
	OUT=$CG_BUILD/bench-convert/f$n
	mkdir -p "$OUT"
	echo "$n functions ($d):"
	cd "$d"
	measure "gprof (report)" "$OUT/gprof.txt" gprof bigprog gmon.out
	measure "cgprof (report)" "$OUT/cgprof.txt" "$bin/cgprof" bigprog gmon.out
	measure "cgconvert gmon -> callgrind" /dev/null "$bin/cgconvert" -t callgrind --exe bigprog -o "$OUT/big.callgrind" gmon.out
	measure "cgconvert gmon -> xml" /dev/null "$bin/cgconvert" -t xml --exe bigprog -o "$OUT/big.xml" gmon.out
	cd "$OUT"
	measure "cgconvert xml -> callgrind" /dev/null "$bin/cgconvert" -t callgrind -o big2.callgrind big.xml
	cmp -s big.callgrind big2.callgrind && echo "  (callgrind via xml is byte-identical)" ||
		echo "  (callgrind via xml DIFFERS)"
	ls -l big.callgrind big.xml | awk '{ printf "  %-28s %8.1f MB\n", $NF, $5 / 1048576 }'
	cd - >/dev/null
done
