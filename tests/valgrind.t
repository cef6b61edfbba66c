#!/usr/bin/env bash
# Memory checking of the library: every C unit test and every fuzz replay
# driver (over its stored corpus) runs under Valgrind's memcheck with no
# errors and no definite leaks.  (ASan/UBSan: `make SANITIZE=1 check`.)
. "${CG_TOP:-.}/tests/lib.sh"
require_tool valgrind
vg() {
  valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
    --show-leak-kinds=definite "$@"
}
for t in "$CG_BUILD"/tests/test_*; do
  [ -x "$t" ] || continue
  case $t in *.o|*.d) continue;; esac
  name=$(basename "$t")
  ok "$name runs clean under valgrind" vg "$t"
done
for f in "$CG_BUILD"/tests/fuzz_*; do
  [ -x "$f" ] || continue
  case $f in *.o|*.d) continue;; esac
  name=$(basename "$f"); corpus=$CG_TOP/testdata/fuzz/${name#fuzz_}
  if [ -d "$corpus" ]; then
    ok "$name replays its corpus clean under valgrind" vg "$f" "$corpus"/*
  else
    _tap_result 1 "$name has a corpus in testdata/fuzz/${name#fuzz_}"
  fi
done
# The views (gprof reports with options, parts, thresholds; the SVG flame
# graph; dot's cut-off) of a two-part Callgrind file and an fprof trace
tp=$CG_TOP/testdata/convert/twoparts.cg
fp=$CG_TOP/testdata/fprof/golden/fpt_procs.trace
ok "cgprof-all (--part, --threshold, -q SPEC) runs clean under valgrind" \
  vg "$BIN/cgprof-all" -b --part=2 --threshold=5 -qmain "$tp"
ok "cgconvert -t gprof with gprof's options runs clean under valgrind" \
  vg "$BIN/cgconvert" -t gprof -p -e main --threshold=1 -T "$fp" -o "$(mktemp "$WORK/g.XXXXXX")"
ok "cgconvert -t svg runs clean under valgrind" vg "$BIN/cgconvert" -t svg "$fp" -o "$WORK/f.svg"
ok "cgconvert -t dot --threshold=0 runs clean under valgrind" \
  vg "$BIN/cgconvert" -t dot --threshold=0 "$tp" -o "$WORK/f.dot"
done_testing
