/*
 * pprof_internal.h — what the pprof family's files share (not installed).
 */
#ifndef CG_PPROF_INTERNAL_H
#define CG_PPROF_INTERNAL_H

#include <stdio.h>
#include "callgraph.h"
#include "callgraph/sys/format.h"

/* The most we take in, compressed or not (and decompressed). */
#define CG_PPROF_MAX_BYTES ((uint64_t)4 << 30)

/* Writes p as a gzip-compressed profile.proto. */
int cg_pprof_write(const cg_profile *p, FILE *out, const cg_write_options *opts, cg_error *err);
/* Reads a profile.proto, gzip-compressed or raw, from memory; `name` goes
 * in front of every message. */
int cg_pprof_read(cg_profile **out, const char *name, const void *data, size_t len,
		  const cg_read_options *opts, cg_error *err);

#endif
