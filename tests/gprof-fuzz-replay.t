#!/bin/bash
# The gprof writer's fuzz target replayed over its stored corpus (random
# graphs, cycles, self-arcs, specs and option sets): no crash, no hang.
. "$CG_TOP/tests/lib.sh"
cd "$CG_TOP" || exit 1
ok "fuzz_gprof replays testdata/fuzz/gprof" "$CG_BUILD/tests/fuzz_gprof" testdata/fuzz/gprof/*
done_testing
