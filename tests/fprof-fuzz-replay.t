#!/bin/bash
# The fprof trace and analysis fuzz targets' replay drivers over their
# stored corpora (real traces, cut and corrupt ones, a deeply nested spawn
# argument, undecodable terms), with a 1 MB stack: no crash, no hang.
. "$CG_TOP/tests/lib.sh"
cd "$CG_TOP" || exit 1
ok "fuzz_fprof_trace replays testdata/fuzz/fprof_trace" \
	bash -c 'ulimit -s 1024 && exec "$0" "$@"' "$CG_BUILD/tests/fuzz_fprof_trace" testdata/fuzz/fprof_trace/*
ok "fuzz_fprof_analysis replays testdata/fuzz/fprof_analysis" \
	bash -c 'ulimit -s 1024 && exec "$0" "$@"' "$CG_BUILD/tests/fuzz_fprof_analysis" testdata/fuzz/fprof_analysis/*
done_testing
