/*
 * callgraph/gprof.h — gprof's analysis and report, computed from the model.
 *
 * This module turns a cg_profile into the report GNU gprof 2.40 prints
 * (flat profile, call graph, index by function name; normal and -T
 * style), byte for byte when the profile comes from gmon.out, and into an
 * analysis (cycles, index numbers, propagated times) other writers reuse.
 *
 * What the analysis expects from the profile (the gmon reader provides
 * all of it; other readers provide what they can):
 *  - Functions in gprof's symbol-table order (sorted by address) with
 *    CG_FN_HAS_ADDR/CG_FN_STATIC/CG_FN_IS_FUNC, file and line.  Without
 *    CG_FN_HAS_ADDR the function order stands for the address order.
 *    Functions flagged CG_FN_SPONTANEOUS are not symbols: arcs from or to
 *    them are ignored (their callees print as <spontaneous>, as gprof does
 *    for calls from outside the profiled range).
 *  - end = one past gprof's inclusive end address: a symbol with
 *    end <= addr (data_start above .text) has an empty range and never
 *    tests as being in an option table, as in gprof.
 *  - Self time: cg_profile_self_exact() of event 0 when the part has exact
 *    values (gprof's fractional histogram credit, in ticks), else the
 *    integer self cost of opts->event.  One tick lasts unit_seconds of that
 *    event; when unit_seconds is 0 the report prints raw units (hz = 1).
 *  - Arcs in the order gprof tallies them (first appearance).  The arc
 *    tables (-k, -q A/B, -Q A/B) are applied here, as gprof applies them
 *    while tallying: a rejected arc is not counted in the callee's calls.
 *  - The gmon facts (cg_profile_gmon_info), when the profile has them:
 *    has_histogram / has_arcs say which sections have data, total_time is
 *    the flat profile's denominator (default: the sum of self times),
 *    scale the first histogram record's (granularity (long)scale * 2
 *    bytes; default 0), dimension and its abbreviation (default "seconds",
 *    "s").
 *  - Metadata (all optional):
 *      "hz"                   samples per second (decimal); overrides
 *                             1/unit_seconds.  "0" = arcs without histogram.
 *      "gprof.source_files"   the source files in gprof's internal list
 *                             order (most recently seen in .symtab order
 *                             first), one per line; -A prints files in
 *                             this order.  Default: the order gprof
 *                             learns them from the symbol table of
 *                             "executable", else by first function, last
 *                             first
 *      "executable"           see above
 *
 * Thread safety: no global state (the demangling style is an option);
 * one analysis may be read from several threads once built.  Output is deterministic: every sort has gprof's tie-breaks.
 */
#ifndef CALLGRAPH_GPROF_H
#define CALLGRAPH_GPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "callgraph/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- symbol specifications (gprof's option tables) ---------------------- */

/* The twelve tables of gprof (spec 3.7).  Each -p/-P/-q/-Q/-k/-n/-N/-e/-E/
 * -f/-F/-A/-J/-C/-Z argument becomes one or two (table, spec) entries:
 *   -pS  INCL_FLAT          -PS  EXCL_FLAT
 *   -qS  INCL_GRAPH, or INCL_ARCS when S contains '/'
 *   -QS  EXCL_GRAPH, or EXCL_ARCS when S contains '/'
 *   -k S EXCL_ARCS (ignored without '/')
 *   -n S INCL_TIME          -N S EXCL_TIME
 *   -e S EXCL_GRAPH         -E S EXCL_TIME + EXCL_GRAPH
 *   -f S INCL_GRAPH         -F S INCL_TIME + INCL_GRAPH
 *   -AS  INCL_ANNO          -JS  EXCL_ANNO
 *   -CS  INCL_EXEC          -ZS  EXCL_EXEC
 * gprof's default exclusions (mcount & co. in EXCL_TIME/GRAPH/FLAT) are
 * added by the library unless no_default_excludes is set. */
enum cg_gprof_table {
	CG_GPROF_INCL_GRAPH, CG_GPROF_EXCL_GRAPH,
	CG_GPROF_INCL_ARCS,  CG_GPROF_EXCL_ARCS,
	CG_GPROF_INCL_FLAT,  CG_GPROF_EXCL_FLAT,
	CG_GPROF_INCL_TIME,  CG_GPROF_EXCL_TIME,
	CG_GPROF_INCL_ANNO,  CG_GPROF_EXCL_ANNO,
	CG_GPROF_INCL_EXEC,  CG_GPROF_EXCL_EXEC,
	CG_GPROF_NTABLES
};

typedef struct cg_gprof_symspec {
	unsigned table;       /* enum cg_gprof_table */
	const char *spec;     /* "name", "file.c", "file.c:name", "file.c:12",
	                         "A/B" for the arc tables; "" matches all */
} cg_gprof_symspec;

/* ---- options -------------------------------------------------------------- */

/* Report sections (the `parts` bits of cg_gprof_report). */
enum cg_gprof_sections {
	CG_GPROF_FLAT        = 1u << 0,  /* flat profile */
	CG_GPROF_GRAPH       = 1u << 1,  /* call graph, followed by the index */
	CG_GPROF_EXEC_COUNTS = 1u << 2,  /* -C execution counts */
	CG_GPROF_ANNOTATE    = 1u << 3,  /* -A annotated source */
	CG_GPROF_FUNCTION_ORDER = 1u << 4 /* -r suggested function order */
};

typedef struct cg_gprof_options {
	unsigned version;            /* CG_GPROF_OPTIONS_VERSION */

	const cg_gprof_symspec *specs;   /* table entries, command-line order */
	size_t nspecs;
	int no_default_excludes;     /* do not add mcount & co. */

	int brief;                   /* -b: no explanations */
	int traditional;             /* -T: BSD style */
	int zero;                    /* -z: also unused functions */
	unsigned width;              /* -w N: index width (default 80) */
	int demangle;                /* default 1; --no-demangle = 0 */
	int inline_file_names;       /* --inline-file-names */
	int print_path;              /* -L: whole source paths */
	int line_mode;               /* -l: functions are line symbols */

	/* Something was already written to the stream (gprof's -i summary):
	 * then the first section starts with a form feed line too. */
	int after_output;

	/* Profiles not from gmon.out: the event giving self time when the part
	 * has no exact self values (default 0). */
	unsigned event;
	/* Print the true per-arc inclusive costs of arcs that carry them (a
	 * call-tree input) instead of gprof's proportional estimate.  Off by
	 * default (then reports are gprof's, whatever the input). */
	int use_exact_inclusive;

	/* Annotated source (CG_GPROF_ANNOTATE, gprof's -A).  The pointers are
	 * kept by the analysis: they must outlive it. */
	const char *const *source_paths; /* -I arguments, then $GPROF_PATH, in
	                                    order; each may hold dir:dir:... */
	size_t nsource_paths;
	unsigned long min_count;     /* -m N: counts below N print as ##### (1) */
	int table_length;            /* -t N: "Top N Lines" (10; 0 = none) */
	int all_lines;               /* -x */
	int separate_files;          /* -y: write BASENAME-ann in the current
	                                directory instead of the stream */
	FILE *messages;              /* "PROG: could not locate `F'" and the
	                                like go here; NULL: nowhere */
	const char *program_name;    /* PROG in those messages ("gprof") */
	/* --demangle=STYLE (see cg_demangle_style); NULL: automatic. */
	const char *demangle_style;
} cg_gprof_options;

#define CG_GPROF_OPTIONS_VERSION 1
#define CG_GPROF_OPTIONS_INIT \
	{ .version = CG_GPROF_OPTIONS_VERSION, .width = 80, .demangle = 1, .min_count = 1, \
	  .table_length = 10 }

/* Writes the report sections `parts` (CG_GPROF_* bits) of part `part` in
 * gprof's order ([-T: graph] flat [normal: graph] index [exec counts]).
 * opts may be NULL (defaults).  Returns CG_EUSAGE for a bad spec or part,
 * CG_EIO on a write error. */
CG_EXTERN int cg_gprof_report(const cg_profile *p, unsigned part, unsigned parts,
			      const cg_gprof_options *opts, FILE *out, cg_error *err);

/* ---- analysis (reusable by other writers) ------------------------------- */

typedef struct cg_gprof_analysis cg_gprof_analysis;

/* Runs gprof's analysis on part: option tables, arcs, cycles (numbered as
 * gprof numbers them), propagation, index numbers. */
CG_EXTERN int cg_gprof_analyze(cg_gprof_analysis **out, const cg_profile *p, unsigned part,
			       const cg_gprof_options *opts, cg_error *err);
CG_EXTERN void cg_gprof_analysis_free(cg_gprof_analysis *a);

/* Writes sections of an existing analysis (what cg_gprof_report does). */
CG_EXTERN int cg_gprof_print(const cg_gprof_analysis *a, unsigned parts, FILE *out,
			     cg_error *err);

/* Number of cycles (1..n are valid cycle numbers). */
CG_EXTERN uint32_t cg_gprof_cycle_count(const cg_gprof_analysis *a);

typedef struct cg_gprof_function_info {
	uint32_t cycle;        /* 0 = not in a cycle, else 1..cycle_count */
	uint32_t index;        /* gprof's index number [n] (1-based) */
	int printed;           /* entry printed in the call graph ([n] vs (n)) */
	uint64_t ncalls;       /* calls, without self-recursive ones */
	uint64_t self_calls;   /* self-recursive calls */
	double self_seconds;   /* propagated self time (prop_self / hz) */
	double child_seconds;  /* propagated children time (prop_child / hz) */
} cg_gprof_function_info;

/* Information about function f of the analysed profile; CG_ENOTFOUND for
 * functions that are not symbols (spontaneous pseudo functions). */
CG_EXTERN int cg_gprof_function(const cg_gprof_analysis *a, cg_fid f,
				cg_gprof_function_info *out);
/* Same for cycle `cycle` (1..n): index, printed, ncalls (external calls),
 * self_calls (calls between members), times of the whole cycle. */
CG_EXTERN int cg_gprof_cycle(const cg_gprof_analysis *a, uint32_t cycle,
			     cg_gprof_function_info *out);

/* ---- option tables alone (for readers) ---------------------------------- */

/* gprof resolves its option tables against the symbol table before it
 * reads the profile files, because histogram samples of functions that
 * fail the flat tables (-p/-P, mcount & co.) are not credited at all.
 * These let the gmon reader ask the same question: build the tables for
 * the profile's functions (before any file is read), then pass
 * cg_gprof_flat_filter with the tables as ctx (cg_gmon_options
 * .flat_filter/.flat_filter_ctx). */
typedef struct cg_gprof_tables cg_gprof_tables;
CG_EXTERN int cg_gprof_tables_new(cg_gprof_tables **out, const cg_profile *p,
				  const cg_gprof_options *opts, cg_error *err);
CG_EXTERN void cg_gprof_tables_free(cg_gprof_tables *t);
/* Nonzero when f passes (INCL_FLAT, EXCL_FLAT); ctx is a cg_gprof_tables
 * built on the same profile (functions may not change in between). */
CG_EXTERN int cg_gprof_flat_filter(void *ctx, const cg_profile *p, cg_fid f);

/* Cycle membership only, without options (default tables): fills
 * cycle_of[f] (array of cg_profile_function_count() entries) with 0 or
 * gprof's cycle number, and *ncycles. */
CG_EXTERN int cg_gprof_cycles(const cg_profile *p, unsigned part, uint32_t *cycle_of,
			      uint32_t *ncycles, cg_error *err);

#ifdef __cplusplus
}
#endif
#endif
