#!/usr/bin/env bash
# make demo: build a small program with -pg, run it, and show cgprof's
# report of it; convert the same profile for KCachegrind; then profile the
# program with our collector, which knows which call cost what.
set -euo pipefail
B=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/$B/bin
out=$top/$B/demo
mkdir -p "$out"
cd "$out"
say() { printf '\n== %s\n' "$*"; }

say "gcc -pg -O0 -fno-inline -o demo testdata/demo/demo.c && ./demo"
gcc -pg -O0 -fno-inline -o demo "$top/testdata/demo/demo.c"
./demo
say "cgprof -b demo gmon.out      (same report as gprof -b, byte for byte)"
"$bin/cgprof" -b demo gmon.out

say "cgconvert -t callgrind --exe demo gmon.out -o demo.callgrind"
"$bin/cgconvert" -t callgrind --exe demo gmon.out -o demo.callgrind
echo "   open $out/demo.callgrind in KCachegrind, or: callgrind_annotate $out/demo.callgrind"

say "gprof split work() 50/50 between easy() and hard() above (equal call counts)."
say "gcc -finstrument-functions -O0 -o demo-tree testdata/demo/demo.c && cgrun -o demo.cgtree ./demo-tree"
gcc -finstrument-functions -O0 -fno-inline -o demo-tree "$top/testdata/demo/demo.c"
"$bin/cgrun" -o demo.cgtree ./demo-tree 2>/dev/null
say "cgconvert -t graph demo.cgtree      (the call tree knows: hard() did the work)"
# show the header and the entries of work, easy and hard
"$bin/cgconvert" -t graph demo.cgtree | awk '
	/^index/ { print; block = ""; next }
	/^-----/ { if (keep) printf "%s%s\n", block, $0; block = ""; keep = 0; next }
	{ block = block $0 "\n" }
	/^\[[0-9]+\]/ && / (work|easy|hard) \[[0-9]+\]$/ { keep = 1 }'
