/*
 * callgraph/common.h — export macro, error codes and the error record.
 *
 * Every fallible function returns int: 0 on success or a negative CG_E*
 * code, and fills the caller's cg_error (when not NULL) with one line:
 * what went wrong, where (file and byte offset or line), and why.
 *
 * Thread safety: everything here is safe to call from any thread; a
 * cg_error or cg_output belongs to one thread at a time.
 */
#ifndef CALLGRAPH_COMMON_H
#define CALLGRAPH_COMMON_H

#include <stdint.h>
#include <stdio.h>

#if defined(CG_BUILDING_LIBRARY)
#define CG_EXTERN __attribute__((visibility("default")))
#else
#define CG_EXTERN
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum cg_error_code {
	CG_OK        = 0,
	CG_ERROR     = -1,  /* anything not listed below */
	CG_ENOMEM    = -2,  /* out of memory */
	CG_EIO       = -3,  /* cannot open, read or write a file */
	CG_EFORMAT   = -4,  /* input is malformed, truncated or of another kind */
	CG_EUSAGE    = -5,  /* bad argument or option */
	CG_ENOTFOUND = -6,  /* named thing (function, event, symbol) absent */
	CG_EMISMATCH = -7   /* inputs do not belong together (wrong executable, ...) */
};

#define CG_ERROR_MSG_MAX 1024

typedef struct cg_error {
	int code;
	char message[CG_ERROR_MSG_MAX];  /* one line, no trailing newline */
} cg_error;

#define CG_ERROR_INIT { 0, { 0 } }

/* Records `code` and a printf-style message in err (if not NULL) and
 * returns code, so a reader can write `return cg_error_set(err, ...)`. */
CG_EXTERN int cg_error_set(cg_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
CG_EXTERN void cg_error_clear(cg_error *err);
/* Short text for a code ("out of memory"). */
CG_EXTERN const char *cg_strerror(int code);

/* ---- memory limit ----------------------------------------------------------
 * A process-wide budget for the memory profiles take as they grow with
 * their input (arrays, hash tables, arena chunks): past `bytes`, the
 * growth fails with CG_ENOMEM and the readers' error names the input
 * ("FILE: exceeds the memory limit of N MB").  0 (the default) means no
 * limit.  Setting it restarts the count, so call it before reading.  The
 * count is approximate (small allocations are not in it, nor libxml2's
 * unless cg_count_xml_memory was called); it is meant for tools, to fail
 * cleanly instead of being killed. */
CG_EXTERN void cg_set_memory_limit(uint64_t bytes);
CG_EXTERN uint64_t cg_memory_limit(void);
/* Nonzero once the limit refused an allocation. */
CG_EXTERN int cg_memory_limit_hit(void);
/* Counts libxml2's allocations (the XML reader's buffers) in the budget
 * too, by giving libxml2 a counting allocator (xmlMemSetup).  That is
 * process-wide: only a program that owns every libxml2 use in it should
 * call this, once, before anything uses libxml2 (our tools do).  Past
 * the limit the XML reader stops at its next node.  0, or CG_ERROR when
 * libxml2 refused. */
CG_EXTERN int cg_count_xml_memory(void);

/* Library version string, e.g. "0.1.0". */
CG_EXTERN const char *cg_version(void);

/* ---- atomic output files ------------------------------------------------
 * Writers write to a temporary file beside the target and rename it on
 * success, so a failure never leaves a partial output file.  path "-" or
 * NULL means stdout (then commit/abort only flush). */
typedef struct cg_output cg_output;
CG_EXTERN int cg_output_open(cg_output **out, const char *path, cg_error *err);
CG_EXTERN FILE *cg_output_file(cg_output *o);
/* Flushes, checks for write errors, renames into place, frees o. */
CG_EXTERN int cg_output_commit(cg_output *o, cg_error *err);
/* Removes the temporary file and frees o (o may be NULL). */
CG_EXTERN void cg_output_abort(cg_output *o);

#ifdef __cplusplus
}
#endif
#endif
