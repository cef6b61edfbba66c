#!/bin/bash
# The Callgrind and XML fuzz targets' replay drivers over their stored
# corpora (valid files with positions, derived and broken ones): no crash,
# no hang; what is read is written back as Callgrind and XML.
. "$CG_TOP/tests/lib.sh"
cd "$CG_TOP" || exit 1
ok "fuzz_callgrind replays testdata/fuzz/callgrind" "$CG_BUILD/tests/fuzz_callgrind" testdata/fuzz/callgrind/*
ok "fuzz_xml replays testdata/fuzz/xml" "$CG_BUILD/tests/fuzz_xml" testdata/fuzz/xml/*
done_testing
