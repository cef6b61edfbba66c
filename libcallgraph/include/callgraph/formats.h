/*
 * callgraph/formats.h — format names, detection, and one generic reader and
 * writer over every format libcallgraph knows.
 *
 * cgconvert and cgdiff go through this module, so a new reader or writer
 * is wired in once (formats.c) and every tool gets it.
 *
 * Invariants:
 *  - cg_format_name() and cg_format_from_name() are inverse on every value
 *    except CG_FORMAT_UNKNOWN.
 *  - cg_read_file() returns a profile the caller frees with
 *    cg_profile_free(); on failure *out is NULL and err says which file,
 *    where, and what was wrong.
 *  - cg_write_file() never leaves a partial output file.
 */
#ifndef CALLGRAPH_FORMATS_H
#define CALLGRAPH_FORMATS_H

#include <stdio.h>
#include <stdint.h>
#include "callgraph/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cg_format {
	CG_FORMAT_UNKNOWN = 0,
	/* inputs (and some outputs) */
	CG_FORMAT_GMON,            /* "gmon": gmon.out + executable */
	CG_FORMAT_CALLGRIND,       /* "callgrind" (read and write) */
	CG_FORMAT_XML,             /* "xml": our lossless schema (read and write) */
	CG_FORMAT_FPROF_TRACE,     /* "fprof-trace": Erlang dbg trace file */
	CG_FORMAT_FPROF_ANALYSIS,  /* "fprof-analysis": fprof:analyse text */
	CG_FORMAT_CGTREE,          /* "cgtree": our collector's file */
	/* outputs only */
	CG_FORMAT_GPROF,           /* "gprof": brief flat profile + call graph */
	CG_FORMAT_FLAT,            /* "flat": gprof flat profile (brief) */
	CG_FORMAT_GRAPH,           /* "graph": gprof call graph (brief) */
	CG_FORMAT_FOLDED,          /* "folded": folded stacks for flame graphs */
	CG_FORMAT_DOT,             /* "dot": Graphviz call graph */
	CG_FORMAT_FPROF            /* "fprof": fprof:analyse-style text */
} cg_format;

/* ---- names ---------------------------------------------------------------- */

/* "gmon", "callgrind", ...; "unknown" for CG_FORMAT_UNKNOWN. */
CG_EXTERN const char *cg_format_name(cg_format format);
/* CG_FORMAT_UNKNOWN when the name is not one of cg_format_name()'s. */
CG_EXTERN cg_format cg_format_from_name(const char *name);
/* Whether libcallgraph (as built) can read / write the format. */
CG_EXTERN int cg_format_can_read(cg_format format);
CG_EXTERN int cg_format_can_write(cg_format format);

/* ---- detection -------------------------------------------------------------- */

/* Guesses the format of a file from its first bytes (pass at least 4 KiB
 * when available).  CG_FORMAT_UNKNOWN when nothing matches. */
CG_EXTERN cg_format cg_format_detect(const void *head, size_t len);
/* Reads the start of `path` and detects its format.  CG_EFORMAT (with a
 * message naming the file) when nothing matches, CG_EIO when unreadable. */
CG_EXTERN int cg_format_detect_file(const char *path, cg_format *out, cg_error *err);

/* ---- reading ------------------------------------------------------------------ */

typedef struct cg_read_options {
	unsigned version;             /* CG_READ_OPTIONS_VERSION */
	cg_format format;             /* CG_FORMAT_UNKNOWN: detect from content */
	const char *executable;       /* gmon: the profiled program; NULL = "a.out" */
	/* Called with (ctx, file index, file count, path) before each input is
	 * read, so a tool can show progress.  May be NULL. */
	void (*progress)(void *ctx, size_t index, size_t count, const char *path);
	void *progress_ctx;
	/* Called every few MB while one big input is read (fprof traces), with
	 * bytes done and the file size (0 when unknown).  Gets progress_ctx.
	 * May be NULL. */
	void (*progress_bytes)(void *ctx, uint64_t done, uint64_t total);
	/* Warnings that do not stop reading (one line, no newline), e.g. trace
	 * message kinds fprof does not know.  May be NULL. */
	void (*warn)(void *ctx, const char *message);
	void *warn_ctx;
	/* fprof traces: give `suspend` its waiting time as self cost, so each
	 * process's self costs add up to its traced wall time and inclusive
	 * costs stay within the total in KCachegrind (the mapping the spec
	 * recommends).  0 keeps fprof's numbers (suspend's OWN is 0).  What the
	 * fprof analysis writer prints is the same either way. */
	int fprof_suspend_self;
} cg_read_options;

#define CG_READ_OPTIONS_VERSION 1
#define CG_READ_OPTIONS_INIT \
	{ CG_READ_OPTIONS_VERSION, CG_FORMAT_UNKNOWN, NULL, NULL, NULL, NULL, NULL, NULL, 0 }

/* Reads one profile file of any readable format. opts may be NULL. */
CG_EXTERN int cg_read_file(cg_profile **out, const char *path,
			   const cg_read_options *opts, cg_error *err);

/* Reads several files of one format and merges them into one profile
 * (events matched by name, functions by identity, parts by name; costs,
 * counts and call trees summed).  Several gmon.out files are summed the
 * way gprof sums them.  Inputs of different formats give CG_EMISMATCH. */
CG_EXTERN int cg_read_files(cg_profile **out, const char *const *paths, size_t count,
			    const cg_read_options *opts, cg_error *err);

/* Adds everything in src to dst (see cg_read_files for the matching
 * rules).  Events of src missing from dst give CG_EMISMATCH. */
CG_EXTERN int cg_profile_merge_into(cg_profile *dst, const cg_profile *src, cg_error *err);

/* ---- writing ------------------------------------------------------------------ */

typedef struct cg_write_options {
	unsigned version;             /* CG_WRITE_OPTIONS_VERSION */
	/* fprof output: the analyse options, e.g. "totals,{sort,own}"; NULL
	 * for fprof's defaults. */
	const char *fprof_analyse;
	/* Callgrind output: merge all parts into one (callgrind_annotate
	 * understands only one part).  Default 0: one part per part. */
	int merge_parts;
	/* Event to weigh folded stacks and dot edges by, and the gprof
	 * reports' self time when the profile has no exact one (name); NULL =
	 * event 0. */
	const char *event;
	/* gprof reports (gprof, flat, graph): where an arc knows the true
	 * inclusive cost of its calls (call-tree inputs: cgtree, fprof,
	 * Callgrind), the report prints it; set this to print gprof's
	 * proportional estimate instead, as gprof would.  gmon inputs have no
	 * such arcs and always get gprof's numbers. */
	int gprof_estimate;
} cg_write_options;

#define CG_WRITE_OPTIONS_VERSION 1
#define CG_WRITE_OPTIONS_INIT { CG_WRITE_OPTIONS_VERSION, NULL, 0, NULL, 0 }

/* Writes `profile` in `format` to an open stream. opts may be NULL. */
CG_EXTERN int cg_write(const cg_profile *profile, cg_format format, FILE *out,
		       const cg_write_options *opts, cg_error *err);
/* The same to a file (atomically: temporary file renamed on success);
 * path "-" or NULL writes to stdout. */
CG_EXTERN int cg_write_file(const cg_profile *profile, cg_format format, const char *path,
			    const cg_write_options *opts, cg_error *err);

/* ---- simple writers (also reachable through cg_write) ---------------------- */

/* Folded stacks ("a;b;c 123" per line) from the call tree; a part with no
 * call tree gives one-frame stacks (self cost per function), since arcs
 * alone do not say which paths the cost took.  Several parts: the part
 * name is the bottom frame.  Weighted by the chosen event (event index;
 * -1 = event 0). */
CG_EXTERN int cg_write_folded(const cg_profile *profile, FILE *out, int event, cg_error *err);
/* Graphviz digraph of the call graph (parts merged): nodes labelled with
 * self and inclusive cost, edges with counts and weighted by cost, cycles
 * as clusters; functions under 0.5 % of the total are left out. */
CG_EXTERN int cg_write_dot(const cg_profile *profile, FILE *out, int event, cg_error *err);

#ifdef __cplusplus
}
#endif
#endif
