#!/bin/bash
# bench/scale/run.sh [FUNCS] [NODES] — the two scale goals of
# docs/reliability.md, measured (make bench-scale; nothing is asserted):
#  - cgdiff of two 200k-function Callgrind profiles (bench/diff/gen.c),
#    next to callgrind_annotate reading the same two files (the only
#    command-line tool that reads them; it compares nothing);
#  - a 2M-node cgtree (bench/scale/gen-cgtree.awk: 20k functions of 8
#    callees each) converted to every output format, with the peak memory
#    per tree node.  No other tool reads cgtree.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${CG_BUILD:=$top/build}"
case $CG_BUILD in /*) ;; *) CG_BUILD=$top/$CG_BUILD ;; esac
bin=$CG_BUILD/bin
FUNCS=${1:-200000}
NODES=${2:-2000000}
OUT=$CG_BUILD/bench-scale
mkdir -p "$OUT"
cd "$OUT"
export LC_ALL=C

measure() {  # LABEL CMD...  -> wall, cpu, peak memory; exit 1 (changes found) is fine
	local label=$1; shift
	/usr/bin/time -f '%e %U %S %M %x' -o time.txt "$@" >/dev/null 2>err.txt || true
	tail -1 time.txt | awk -v l="$label" '{
		printf "  %-40s %7.2fs wall %7.2fs cpu %8.1f MB peak  exit %s\n", l, $1, $2 + $3, $4 / 1024, $5 }'
	tail -1 time.txt | awk '{ print $2 + $3, $4 / 1024 }' > last.txt
}

if [ ! -s "diff$FUNCS/new.cg" ]; then
	mkdir -p "diff$FUNCS"
	${CC:-cc} -std=c11 -O2 -D_GNU_SOURCE -I"$top/libcallgraph/include" -o gen "$top/bench/diff/gen.c" \
		-L"$CG_BUILD/lib" -Wl,-rpath,"$CG_BUILD/lib" -lcallgraph
	./gen "$FUNCS" "diff$FUNCS" >/dev/null
	for s in base new; do
		"$bin/cgconvert" -t callgrind -o "diff$FUNCS/$s.cg" "diff$FUNCS/$s.xml"
		rm -f "diff$FUNCS/$s.xml"
	done
fi
echo "cgdiff, two $FUNCS-function Callgrind profiles ($(wc -c < "diff$FUNCS/base.cg") bytes each):"
measure "cgdiff -q" "$bin/cgdiff" -q "diff$FUNCS/base.cg" "diff$FUNCS/new.cg"
read ours_cpu ours_mb < last.txt
measure "cgdiff -t table" "$bin/cgdiff" -o table.txt "diff$FUNCS/base.cg" "diff$FUNCS/new.cg"
measure "callgrind_annotate base + new" sh -c \
	"callgrind_annotate diff$FUNCS/base.cg >/dev/null && callgrind_annotate diff$FUNCS/new.cg >/dev/null"
read ref_cpu ref_mb < last.txt
awk -v a="$ours_cpu" -v b="$ref_cpu" -v m="$ours_mb" -v n="$ref_mb" 'BEGIN {
	printf "  ratio cgdiff -q / callgrind_annotate: %.2fx the cpu, %.2fx the memory (goal: < 1 s, < 300 MB)\n",
		a / (b > 0 ? b : 1), m / (n > 0 ? n : 1) }'

[ -s "tree$NODES.cgt" ] || awk -v N="$NODES" -f "$top/bench/scale/gen-cgtree.awk" > "tree$NODES.cgt"
echo "cgconvert, a $NODES-node cgtree ($(wc -c < "tree$NODES.cgt") bytes) to every format:"
worst=0 worst_format=
for t in callgrind xml fprof folded pprof dot gprof svg; do
	measure "-> $t" "$bin/cgconvert" -t $t -o "tree.$t" "tree$NODES.cgt"
	read cpu mb < last.txt
	awk -v mb="$mb" -v n="$NODES" 'BEGIN { printf "  %-40s %7.0f bytes per node (goal: < 300 MB)\n", "", mb * 1048576 / n }'
	if awk -v a="$mb" -v b="$worst" 'BEGIN { exit !(a > b) }'; then worst=$mb worst_format=$t; fi
done
awk -v mb="$worst" -v t="$worst_format" 'BEGIN {
	printf "  the most any format took: %.1f MB (-> %s; goal: < 300 MB)\n", mb, t }'
echo "(load average: $(cut -d' ' -f1-3 /proc/loadavg); wall time on a shared machine is mostly waiting)"
