/*
 * callgraph/cgtree.h — reading cgtree files, the calling-context trees
 * written by libcgcollect (cgrun).  The format is specified in
 * docs/cgtree.md.
 *
 * Reading fills a profile with:
 *  - the events the file declares (cpu or wall ticks with their period, or
 *    the call-sequence count "csc");
 *  - one part per thread, named "pid P thread T" ("thread T" when the
 *    file has no pid: calls mode);
 *  - functions: C functions resolved offline from the objects the file
 *    recorded (BFD symbol tables and DWARF lines: name, source file, line,
 *    address); registered interpreter functions by name, file and line;
 *    functions named in `noprofile` records are flagged CG_FN_TRANSPARENT;
 *  - the call tree of each part (recursion links as recursion_target);
 *  - then, by cg_profile_derive_from_tree(), self costs, arcs with exact
 *    inclusive costs and call counts;
 *  - metadata: creator, pid, exe, cmd, time, hz, and the collector's
 *    per-thread statistics summed (samples, overhead, lost, resyncs) and
 *    "status" when a thread stopped early (out of memory, stack overflow).
 *
 * Errors are CG_EIO (unreadable file) or CG_EFORMAT with "FILE:LINE: what"
 * for malformed or truncated input.  On error the profile holds whatever
 * was read so far; free it.
 *
 * Thread safety: the reader keeps its state in its arguments; object
 * files are opened with libbfd, initialised once per process.
 */
#ifndef CALLGRAPH_CGTREE_H
#define CALLGRAPH_CGTREE_H

#include <stddef.h>
#include <stdio.h>

#include "callgraph/model.h"

#ifdef __cplusplus
extern "C" {
#endif

enum cg_cgtree_flags {
	/* Do not open the recorded objects: C functions are named
	 * "0xOFFSET@OBJECT" (fuzzing, files from another machine). */
	CG_CGTREE_NO_SYMBOLS = 1u << 0
};

/* Reads the cgtree file at `path` into `profile` (normally a new one). */
CG_EXTERN int cg_read_cgtree(cg_profile *profile, const char *path, cg_error *err);

/* The same from memory; `name` is used in messages; flags: cg_cgtree_flags. */
CG_EXTERN int cg_read_cgtree_buffer(cg_profile *profile, const char *name, const char *data,
				    size_t len, unsigned flags, cg_error *err);

/* The same from an open stream, read line by line (memory does not grow
 * with the file, only with the tree); `name` is used in messages. */
CG_EXTERN int cg_read_cgtree_stream(cg_profile *profile, FILE *in, const char *name,
				    cg_error *err);

#ifdef __cplusplus
}
#endif
#endif
