#!/bin/bash
# The gmon fuzz target's replay driver over its stored corpus (valid,
# derived and broken profiles): no crash, no hang.
. "$CG_TOP/tests/lib.sh"
cd "$CG_TOP" || exit 1
ok "fuzz_gmon replays testdata/fuzz/gmon" "$CG_BUILD/tests/fuzz_gmon" testdata/fuzz/gmon/*
done_testing
