/*
 * callgraph/formats.h — format names, detection, and one generic reader and
 * writer over every format libcallgraph knows.
 *
 * cgconvert and cgdiff go through this module, so a new reader or writer
 * is registered once (formats/registry.c, or cg_format_register() from a
 * program) and every tool gets it.
 *
 * Thread safety: everything here may be called from several threads at
 * once on different profiles.
 *
 * Invariants:
 *  - cg_format_find(cg_format_name(f)) == f for every registered f.
 *  - Every entry point checks the options' version field and refuses
 *    (CG_EUSAGE) a version it does not know.
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

/* A format: an entry of the registry (callgraph/sys/format.h has its
 * fields, for programs that add formats).  Built-in names: gmon,
 * callgrind, xml, cgtree, fprof-trace, fprof-analysis, pprof, perf-script,
 * folded (inputs); callgrind, xml, gprof, flat, graph, folded, dot, fprof,
 * pprof (outputs). */
typedef struct cg_format_ops cg_format_ops;
/* One input (a file, a pipe, standard input or a buffer); see
 * callgraph/sys/format.h. */
typedef struct cg_source cg_source;

/* ---- the registry ---------------------------------------------------------- */

/* The format registered under `name`, or NULL. */
CG_EXTERN const cg_format_ops *cg_format_find(const char *name);
/* Every registered format, built-in ones first, in registration order. */
CG_EXTERN size_t cg_format_count(void);
CG_EXTERN const cg_format_ops *cg_format_at(size_t i);
CG_EXTERN const char *cg_format_name(const cg_format_ops *format);
/* Whether the format can be read / written. */
CG_EXTERN int cg_format_can_read(const cg_format_ops *format);
CG_EXTERN int cg_format_can_write(const cg_format_ops *format);
/* The names of the formats that can be read (or written), comma
 * separated, for messages such as "unknown format 'x' (one of: ...)".
 * Written to buf (always terminated); returns buf. */
CG_EXTERN char *cg_format_list(char *buf, size_t size, int writable);

/* ---- detection -------------------------------------------------------------- */

/* The readable format an input starting with `head` most likely is (pass
 * the first 64 KiB when available), or NULL. */
CG_EXTERN const cg_format_ops *cg_format_detect(const void *head, size_t len);
/* Opens `path` ("-" = standard input, consumed), and detects its format.
 * CG_EFORMAT (naming the file) when nothing matches, CG_EIO when
 * unreadable. */
CG_EXTERN int cg_format_detect_file(const char *path, const cg_format_ops **out,
				    cg_error *err);

/* ---- diagnostics ----------------------------------------------------------- */

/* Everything a reader has to say while it works goes through one callback:
 * warnings (the input is usable but odd), and progress. */
typedef enum cg_diag_kind {
	CG_DIAG_WARNING = 1,       /* message, file, line or offset */
	CG_DIAG_INPUT,             /* starting input `index` of `count`: file */
	CG_DIAG_BYTES              /* `done` of `total` bytes (total 0: unknown) */
} cg_diag_kind;

typedef struct cg_diagnostic {
	cg_diag_kind kind;
	const char *file;          /* the input concerned, or NULL */
	uint64_t line;             /* 1-based line, 0 when not a text position */
	uint64_t offset;           /* byte offset when line is 0 and it is known */
	const char *message;       /* WARNING: one line, no newline */
	size_t index, count;       /* INPUT */
	uint64_t done, total;      /* BYTES */
} cg_diagnostic;

typedef void (*cg_diag_fn)(void *ctx, const cg_diagnostic *diag);

/* ---- reading ------------------------------------------------------------------ */

typedef struct cg_read_options {
	unsigned version;             /* CG_READ_OPTIONS_VERSION */
	const char *format;           /* a format name; NULL: detect from content */
	const char *executable;       /* gmon: the profiled program; NULL = "a.out" */
	/* Warnings and progress; NULL drops them. */
	cg_diag_fn diag;
	void *diag_ctx;
	/* fprof traces: give `suspend` its waiting time as self cost, so each
	 * process's self costs add up to its traced wall time and inclusive
	 * costs stay within the total in KCachegrind (the mapping
	 * docs/fprof.md recommends).  0 keeps fprof's numbers (suspend's OWN
	 * is 0).  What the fprof analysis writer prints is the same either
	 * way. */
	int fprof_suspend_self;
	/* Version 3: nonzero reads only per-function and per-arc sums, not
	 * where inside a function the cost was spent (Callgrind positions):
	 * for callers that never look at positions, such as cgdiff, which
	 * saves the memory and time of keeping them.  Version 2 options are
	 * still accepted and keep positions. */
	int drop_positions;
} cg_read_options;

#define CG_READ_OPTIONS_VERSION 3
#define CG_READ_OPTIONS_INIT \
	{ .version = CG_READ_OPTIONS_VERSION }

/* Reads one profile file of any readable format ("-" = standard input).
 * opts may be NULL.  Errors name the file. */
CG_EXTERN int cg_read_file(cg_profile **out, const char *path,
			   const cg_read_options *opts, cg_error *err);
/* The same from an open source (which stays the caller's to close). */
CG_EXTERN int cg_read_source(cg_profile **out, cg_source *src,
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
	/* dot output: functions whose inclusive cost is below this percentage
	 * of the total are left out (0: none are).  Since version 2. */
	double dot_threshold;
	/* Version 3: folded stacks and dot show source lines where the
	 * profile has positions (docs/formats.md, "--lines"): folded frames
	 * become "func:LINE", dot labels list lines and call sites.  Version
	 * 2 options are still accepted (no lines). */
	int lines;
} cg_write_options;

#define CG_WRITE_OPTIONS_VERSION 3
#define CG_WRITE_OPTIONS_INIT { .version = CG_WRITE_OPTIONS_VERSION, .dot_threshold = 0.5 }

/* Writes `profile` in the format named `format` to an open stream. opts
 * may be NULL.  CG_EUSAGE for a format that does not exist or cannot be
 * written. */
CG_EXTERN int cg_write(const cg_profile *profile, const char *format, FILE *out,
		       const cg_write_options *opts, cg_error *err);
/* The same to a file (atomically, see cg_output_open); path "-" or NULL
 * writes to stdout. */
CG_EXTERN int cg_write_file(const cg_profile *profile, const char *format, const char *path,
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
 * as clusters; functions under 0.5 % of the total are left out
 * (cg_write_options.dot_threshold through cg_write chooses another cut). */
CG_EXTERN int cg_write_dot(const cg_profile *profile, FILE *out, int event, cg_error *err);

#ifdef __cplusplus
}
#endif
#endif
