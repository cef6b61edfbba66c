/*
 * fuzz_xml.c — the XML reader on arbitrary bytes.  Built with
 * -DCG_FUZZ_LIBFUZZER it is a libFuzzer target; otherwise a replay driver
 * running each file named on the command line (make check replays
 * testdata/fuzz/xml/).  Whatever is read is written back out, so the
 * writers see odd profiles too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "callgraph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cg_profile *p = NULL;
	cg_error err = CG_ERROR_INIT;
	if (cg_read_xml_buffer(&p, data, size, "fuzz", &err) == 0) {
		FILE *null = fopen("/dev/null", "w");
		if (null) {
			cg_write_callgrind(p, null, NULL, &err);
			cg_write_xml(p, null, &err);
			fclose(null);
		}
		cg_profile_free(p);
	}
	return 0;
}

#include "fuzz_replay.h"
