/*
 * fuzz_gmon.c — fuzz target for the gmon.out reader.
 *
 * The first input byte picks the -O file format, whether the data is read
 * twice (summing two files), -a and -l; the rest is the profile.  Symbols come
 * from a small -pg executable (CG_FUZZ_GMON_EXE, default the golden
 * simple-O0-pie-g program; /proc/self/exe when that is missing).
 *
 * Built with -DCG_FUZZ_LIBFUZZER it is a libFuzzer target; otherwise a
 * replay driver that runs the function on every file named on the
 * command line (make check replays testdata/fuzz/gmon/).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "callgraph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *executable(void)
{
	const char *e = getenv("CG_FUZZ_GMON_EXE");

	if (e && *e)
		return e;
	if (access("testdata/gmon/golden/simple-O0-pie-g/exe", R_OK) == 0)
		return "testdata/gmon/golden/simple-O0-pie-g/exe";
	return "/proc/self/exe";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char formats[] = { 'a', 'm', 'b', '4' };
	cg_gmon_options o = CG_GMON_OPTIONS_INIT;
	cg_error err = CG_ERROR_INIT;
	cg_gmon_reader *r;
	cg_profile *p;
	int rc;

	if (size < 1)
		return 0;
	o.file_format = formats[data[0] & 3];
	o.no_static = (data[0] >> 3) & 1;
	o.line_granularity = (data[0] >> 4) & 1;
	o.positions = (data[0] >> 5) & 1;
	o.program_name = "fuzz";
	if (cg_profile_new(&p) < 0)
		return 0;
	rc = cg_gmon_reader_new(&r, p, executable(), &o, &err);
	if (rc == 0) {
		rc = cg_gmon_reader_read_buffer(r, "fuzz", data + 1, size - 1, &err);
		if (rc == 0 && (data[0] & 4))
			rc = cg_gmon_reader_read_buffer(r, "fuzz", data + 1, size - 1, &err);
		if (rc == 0)
			rc = cg_gmon_reader_finish(r, &err);
		cg_gmon_reader_free(r);
	}
	if (rc == 0) {
		/* the report must cope with whatever the reader accepted */
		FILE *null = fopen("/dev/null", "w");

		if (null) {
			cg_gprof_report(p, 0, CG_GPROF_FLAT | CG_GPROF_GRAPH, NULL, null, &err);
			/* positions (per line and call site) add up whatever the
			 * histogram and arcs were, and the Callgrind writer
			 * shares them out */
			if (cg_profile_check_positions(p, "fuzz", &err) != 0)
				abort();
			cg_write(p, "callgrind", null, NULL, &err);
			fclose(null);
		}
	}
	cg_profile_free(p);
	return 0;
}

#include "fuzz_replay.h"
