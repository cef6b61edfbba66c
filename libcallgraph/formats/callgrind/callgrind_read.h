/*
 * callgrind_read.h — internal: the Callgrind reader with read options, so
 * its warnings (summary: and totals: that disagree) reach the caller's
 * diagnostics callback.  cg_read_callgrind_stream() is this with NULL.
 */
#ifndef CG_CALLGRIND_READ_H
#define CG_CALLGRIND_READ_H

#include <stdio.h>

#include "callgraph.h"

int cg_callgrind_read(cg_profile **out, FILE *in, const char *name, const cg_read_options *opts,
		      cg_error *err);

#endif
