/*
 * fuzz_perf_script.c — the perf script reader on arbitrary bytes.  Built
 * with -DCG_FUZZ_LIBFUZZER it is a libFuzzer target; otherwise a replay
 * driver running each file named on the command line (make check replays
 * testdata/fuzz/perf_script/).  Whatever is read is written back as pprof
 * and as folded stacks, so the writers see odd profiles too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "callgraph.h"
#include "callgraph/sys/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cg_source *src = NULL;
	cg_profile *p = NULL;
	cg_error err = CG_ERROR_INIT;
	cg_read_options ro = CG_READ_OPTIONS_INIT;
	ro.format = "perf-script";
	if (cg_source_new_buffer(&src, "fuzz", data, size, &err))
		return 0;
	if (cg_read_source(&p, src, &ro, &err) == 0) {
		FILE *null = fopen("/dev/null", "w");
		if (null) {
			cg_write_options wo = CG_WRITE_OPTIONS_INIT;
			cg_format_find("pprof")->write(cg_format_find("pprof"), p, null, &wo, &err);
			cg_write_folded(p, null, 0, &err);
			fclose(null);
		}
		cg_profile_free(p);
	}
	cg_source_close(src);
	return 0;
}

#include "fuzz_replay.h"
