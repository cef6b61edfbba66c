#!/bin/bash
# The perf script fuzz target's replay driver over its stored corpus (real
# perf script output: default and -F field sets, DWARF with inlined
# frames, two events; truncated, corrupted and hand-made odd ones): no
# crash, no hang.  tests/valgrind.t runs the same under Valgrind.
. "$CG_TOP/tests/lib.sh"
cd "$CG_TOP" || exit 1
ok "fuzz_perf_script replays testdata/fuzz/perf_script" "$CG_BUILD/tests/fuzz_perf_script" testdata/fuzz/perf_script/*
done_testing
