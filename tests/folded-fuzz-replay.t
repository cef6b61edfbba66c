#!/bin/bash
# The folded-stack fuzz target's replay driver over its stored corpus (our
# own output, odd and broken lines): no crash, no hang.
. "$CG_TOP/tests/lib.sh"
cd "$CG_TOP" || exit 1
ok "fuzz_folded replays testdata/fuzz/folded" "$CG_BUILD/tests/fuzz_folded" testdata/fuzz/folded/*
done_testing
