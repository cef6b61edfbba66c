/*
 * fuzz_fprof_trace.c — fuzz target for the fprof trace reader.  Whatever
 * is accepted is also written back as fprof:analyse text (to /dev/null), so
 * the writer sees every shape of profile the reader can produce.
 *
 * Built with -DCG_FUZZ_LIBFUZZER by `make fuzz`; otherwise a replay driver
 * that reads each file given as an argument (make check replays
 * testdata/fuzz/fprof_trace/).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "callgraph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	cg_profile *p;
	cg_error err = CG_ERROR_INIT;
	if (!sink)
		sink = fopen("/dev/null", "w");
	if (cg_profile_new(&p))
		return 0;
	cg_fprof_read_options ro = CG_FPROF_READ_OPTIONS_INIT;
	ro.allow_partial = (size & 1) != 0;   /* both the strict and the partial paths */
	int rc = cg_read_fprof_trace_buffer(p, data, size, "fuzz", &ro, &err);
	if (rc == 0 && sink) {
		cg_fprof_analyse_options o = CG_FPROF_ANALYSE_OPTIONS_INIT;
		o.totals = 1;
		cg_write_fprof_analysis(p, sink, &o, &err);
	}
	cg_profile_free(p);
	return 0;
}

#include "fuzz_replay.h"
