#!/bin/bash
# bench/diff/run.sh — time cgdiff on two 40k-function profiles.
#   B=build bash bench/diff/run.sh [N]     (make bench runs it as bench-diff)
# Prints the library's own time (matching, propagation, rules) and the
# whole cgdiff run (reading two XML files, comparing, writing each report).
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
N=${1:-40000}
CC=${CC:-cc}
work=$(mktemp -d "${TMPDIR:-/tmp}/cgdiff-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export LC_ALL=C
$CC -std=c11 -O2 -D_GNU_SOURCE -I"$top/libcallgraph/include" -o "$work/gen" "$top/bench/diff/gen.c" \
	-L"$B/lib" -Wl,-rpath,"$B/lib" -lcallgraph
"$work/gen" "$N" "$work"
echo "profiles: $(wc -c <"$work/base.xml") + $(wc -c <"$work/new.xml") bytes of XML"
# Wall time and CPU time (user+sys): the machine may be shared.
TIMEFORMAT='%R s wall, %U s user, %S s sys'
for fmt in table tap xml callgrind junit github markdown bmf svg; do
	printf 'cgdiff -t %-9s (%d functions): ' "$fmt" "$N"
	{ time "$B/bin/cgdiff" -t $fmt -o "$work/out.$fmt" "$work/base.xml" "$work/new.xml"; } 2>&1 || [ $? -le 1 ]
done
printf 'cgdiff -q, identical profiles (read + compare): '
{ time "$B/bin/cgdiff" -q "$work/base.xml" "$work/base.xml"; } 2>&1
printf 'for scale, cgconvert reading one of them:       '
{ time "$B/bin/cgconvert" -t callgrind -o /dev/null "$work/base.xml"; } 2>&1
"$B/bin/cgconvert" -t callgrind -o "$work/base.cg" "$work/base.xml"
"$B/bin/cgconvert" -t callgrind -o "$work/new.cg" "$work/new.xml"
printf 'cgdiff -q, the same pair as Callgrind files:  '
{ time "$B/bin/cgdiff" -q "$work/base.cg" "$work/new.cg"; } 2>&1 || [ $? -le 1 ]
echo "(load average: $(cut -d' ' -f1-3 /proc/loadavg); wall time on a shared machine is mostly waiting)"
