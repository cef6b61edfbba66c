/*
 * fprof_trace_stream.h — the fprof trace reader on a stdio stream
 * (internal: the format registry's path for pipes, devices and buffers,
 * which it reads as they come instead of slurping them whole, so an
 * endless input fails at its first bad record).
 */
#ifndef CG_FPROF_TRACE_STREAM_H
#define CG_FPROF_TRACE_STREAM_H

#include <stdio.h>

#include "callgraph.h"

/* As cg_read_fprof_trace_buffer, reading f to its end; name is for
 * messages. */
int cg_read_fprof_trace_stream(cg_profile *profile, FILE *f, const char *name,
			       const cg_fprof_read_options *opts, cg_error *err);

#endif
