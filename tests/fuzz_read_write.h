/*
 * fuzz_read_write.h — the body shared by the fuzz targets of readers that
 * go through the registry (folded, pprof, perf script): the bytes are read
 * as the named format, and whatever is read is written back as pprof and
 * as folded stacks, so the writers see odd profiles too.
 */
#ifndef CG_FUZZ_READ_WRITE_H
#define CG_FUZZ_READ_WRITE_H

#include <stdint.h>
#include <stdio.h>

#include "callgraph.h"
#include "callgraph/sys/format.h"

static int fuzz_read_write(const char *format, const uint8_t *data, size_t size)
{
	cg_source *src = NULL;
	cg_profile *p = NULL;
	cg_error err = CG_ERROR_INIT;
	cg_read_options ro = CG_READ_OPTIONS_INIT;
	ro.format = format;
	if (cg_source_new_buffer(&src, "fuzz", data, size, &err))
		return 0;
	if (cg_read_source(&p, src, &ro, &err) == 0) {
		FILE *null = fopen("/dev/null", "w");
		if (null) {
			cg_write_options wo = CG_WRITE_OPTIONS_INIT;
			cg_write(p, "pprof", null, &wo, &err);
			cg_write_folded(p, null, 0, &err);
			fclose(null);
		}
		cg_profile_free(p);
	}
	cg_source_close(src);
	return 0;
}

#endif
