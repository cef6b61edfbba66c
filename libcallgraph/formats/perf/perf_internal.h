/*
 * perf_internal.h — what the perf family's files share (not installed).
 */
#ifndef CG_PERF_INTERNAL_H
#define CG_PERF_INTERNAL_H

#include "callgraph.h"
#include "callgraph/sys/format.h"

/* Reads `perf script` text from src into a new profile. */
int cg_perf_script_read(cg_profile **out, cg_source *src, const cg_read_options *opts,
			cg_error *err);

#endif
