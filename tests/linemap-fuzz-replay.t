#!/bin/bash
# The line map's fuzz target replay driver over its stored corpus (valid
# executables with DWARF 5 and 4, broken and truncated debug sections, a
# file that is not ELF): no crash, no hang.
. "$CG_TOP/tests/lib.sh"
cd "$CG_TOP" || exit 1
ok "fuzz_linemap replays testdata/fuzz/linemap" "$CG_BUILD/tests/fuzz_linemap" testdata/fuzz/linemap/*
done_testing
