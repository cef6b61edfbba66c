/*
 * callgraph/callgrind.h — Callgrind profiles (Valgrind, KCachegrind).
 *
 * The writer produces files both KCachegrind and callgrind_annotate load
 * without complaint: header keys in the order they require, `events:`
 * within the first 2 KiB, `(id) name` compression with one function id per
 * (object, file, name), one `calls=` line plus the inclusive cost for each
 * arc, never a negative number and never `calls=0`.  docs/formats.md
 * describes the mapping.
 *
 * The reader accepts real `valgrind --tool=callgrind` output: several
 * events, compressed names and relative positions, fi=/fe= inlined files,
 * jump=/jcnd= lines (accepted, ignored) and several parts.  Malformed input
 * gives CG_EFORMAT with "FILE:LINE: what".
 *
 * Thread safety: reading and writing different profiles from different
 * threads at once is safe; a profile being written must not be modified.
 */
#ifndef CALLGRAPH_CALLGRIND_H
#define CALLGRAPH_CALLGRIND_H

#include <stdio.h>
#include "callgraph/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cg_callgrind_options {
	unsigned version;    /* CG_CALLGRIND_OPTIONS_VERSION */
	/* Write the sum of all parts as one part (callgrind_annotate reads
	 * only one).  Default 0: one Callgrind part per model part. */
	int merge_parts;
} cg_callgrind_options;

#define CG_CALLGRIND_OPTIONS_VERSION 1
#define CG_CALLGRIND_OPTIONS_INIT { .version = CG_CALLGRIND_OPTIONS_VERSION }

/* Writes profile to out (opts may be NULL).  Costs are written in each
 * event's unit; an event whose exact self costs are fractional (gprof
 * histograms) is written in thousandths of its unit, and the `event:` line
 * states what one unit is worth in seconds. */
CG_EXTERN int cg_write_callgrind(const cg_profile *profile, FILE *out,
				 const cg_callgrind_options *opts, cg_error *err);

/* Reads a Callgrind file.  `name` is used in error messages. */
CG_EXTERN int cg_read_callgrind(cg_profile **out, const char *path, cg_error *err);
CG_EXTERN int cg_read_callgrind_stream(cg_profile **out, FILE *in, const char *name,
				       cg_error *err);
/* The same from memory (fuzzing, tests). */
CG_EXTERN int cg_read_callgrind_buffer(cg_profile **out, const void *data, size_t len,
				       const char *name, cg_error *err);

#ifdef __cplusplus
}
#endif
#endif
