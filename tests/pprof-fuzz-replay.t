#!/bin/bash
# The pprof fuzz target's replay driver over its stored corpus (profiles Go
# and we wrote, raw and gzipped, truncated, corrupted, hand-made odd
# ones): no crash, no hang.  tests/valgrind.t runs the same under Valgrind.
. "$CG_TOP/tests/lib.sh"
cd "$CG_TOP" || exit 1
ok "fuzz_pprof replays testdata/fuzz/pprof" "$CG_BUILD/tests/fuzz_pprof" testdata/fuzz/pprof/*
done_testing
