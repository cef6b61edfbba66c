#!/bin/bash
# The diff fuzz target's replay driver over its stored corpus (rules good
# and bad, random graphs with cycles, parts and renames): no crash, no hang.
. "$CG_TOP/tests/lib.sh"
cd "$CG_TOP" || exit 1
ok "fuzz_diff replays testdata/fuzz/diff" "$CG_BUILD/tests/fuzz_diff" testdata/fuzz/diff/*
done_testing
