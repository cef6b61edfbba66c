#!/usr/bin/env bash
# make demo: build a small program with -pg, run it, and show cgprof's
# report of it (then, where the tools exist, the same profile for
# KCachegrind and under the hierarchical collector).
set -euo pipefail
B=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$B/demo
mkdir -p "$out"
cd "$out"
echo "== building testdata/demo/demo.c with gcc -pg"
gcc -pg -O1 -fno-inline -o demo "$top/testdata/demo/demo.c"
echo "== running ./demo (writes gmon.out)"
./demo
echo "== cgprof -b demo gmon.out"
"$top/$B/bin/cgprof" -b demo gmon.out
if [ -x "$top/$B/bin/cgconvert" ]; then
  echo "== cgconvert -t callgrind --exe demo gmon.out -o demo.callgrind"
  "$top/$B/bin/cgconvert" -t callgrind --exe demo gmon.out -o demo.callgrind &&
    echo "   open $out/demo.callgrind in KCachegrind, or: callgrind_annotate $out/demo.callgrind"
fi
