#!/bin/bash
# bench/positions/run.sh — a real Callgrind profile with instruction and
# line positions (valgrind --tool=callgrind --dump-instr=yes on
# `python3 -c 'import json'`: about 230,000 cost lines) through cgconvert,
# next to callgrind_annotate reading the same file: time, peak memory,
# output sizes, and the ratio.  cgconvert keeps every position (issue 10),
# so its output reads the same in callgrind_annotate.  Timings are what
# this machine gives; nothing is asserted about them.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${CG_BUILD:=$top/build}"
bin=$CG_BUILD/bin
OUT=$CG_BUILD/bench-positions
export LC_ALL=C
mkdir -p "$OUT"
cd "$OUT"

measure() {  # LABEL OUT CMD... -> one table row; seconds in $secs
	local label=$1 out=$2; shift 2
	/usr/bin/time -f '%e %U %S %M' -o time.txt "$@" >"$out" 2>/dev/null
	secs=$(awk '{ print $2 + $3 }' time.txt)
	awk -v l="$label" '{
		printf "  %-34s %7.2fs wall %7.2fs cpu %8.1f MB peak\n", l, $1, $2 + $3, $4 / 1024 }' time.txt
}

if [ ! -s py.cg ]; then
	echo "# profiling python3 -c 'import json' under callgrind (once; cached in $OUT)" >&2
	# Debian's interpreter itself: a python3 found on PATH may be a
	# wrapper script (pyenv), whose profile is the shell's
	valgrind --tool=callgrind --dump-instr=yes --collect-jumps=yes --callgrind-out-file=py.cg \
		/usr/bin/python3 -c 'import json' >/dev/null 2>&1
fi
echo "callgrind file: $(grep -c '^[0-9+*-]' py.cg) cost lines ($OUT/py.cg)"
measure "callgrind_annotate --auto=yes" annotate.txt callgrind_annotate --auto=yes py.cg
ref=$secs
measure "cgconvert callgrind -> callgrind" /dev/null "$bin/cgconvert" -t callgrind -o py.ours py.cg
ours=$secs
measure "cgconvert callgrind -> xml" /dev/null "$bin/cgconvert" -t xml -o py.xml py.cg
measure "cgconvert xml -> callgrind" /dev/null "$bin/cgconvert" -t callgrind -o py.via py.xml
cmp -s py.ours py.via && echo "  (callgrind via xml is byte-identical)" || echo "  (callgrind via xml DIFFERS)"
ls -l py.cg py.ours py.xml | awk '{ printf "  %-34s %8.1f MB\n", $NF, $5 / 1048576 }'
awk -v a="$ref" -v b="$ours" 'BEGIN {
	if (b > 0) printf "  cgconvert callgrind -> callgrind uses %.1fx less CPU than callgrind_annotate reading the file\n", a / b }'
