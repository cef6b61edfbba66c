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
done_testing
