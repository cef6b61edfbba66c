#!/bin/bash
# The cgtree fuzz target's replay driver over its stored corpus (collector
# files, hand-made odd ones, crashes found by fuzzing, and `at` address
# records valid and broken): no crash, no hang.  tests/valgrind.t runs the
# same under Valgrind.
. "$CG_TOP/tests/lib.sh"
cd "$CG_TOP" || exit 1
ok "fuzz_cgtree replays testdata/fuzz/cgtree" "$CG_BUILD/tests/fuzz_cgtree" testdata/fuzz/cgtree/*
done_testing
