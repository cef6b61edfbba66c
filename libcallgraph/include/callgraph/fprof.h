/*
 * callgraph/fprof.h — Erlang fprof: traces, analyses, and fprof's report.
 *
 * Inputs
 *  - The binary trace file written by fprof:trace/1 or fprof:apply/3,4
 *    (dbg's trace-port file).  cg_read_fprof_trace() replays it exactly as
 *    fprof:profile/1 does and produces the same CNT/ACC/OWN numbers,
 *    streaming: memory grows with the live processes' stacks and the
 *    result table, never with the length of the trace.
 *  - The text fprof:analyse/1 prints.  cg_read_fprof_analysis() reads it
 *    back (what erlgrind reads); it holds less than the trace: times are
 *    rounded to microseconds as printed, there is no call tree, and only
 *    the options the analysis was made with are present (see docs/fprof.md).
 *
 * Mapping into the model (docs/fprof.md has the details)
 *  - One event "us" (microseconds, unit_seconds 1e-6).
 *  - Functions are named "Module:Function/Arity" with Erlang atom quoting
 *    (e.g. "fpdemo:'-run/0-lc$^1/1-1-'/1"); the pseudo functions are
 *    "suspend", "garbage_collect" (CG_FN_SYNTHETIC) and "undefined"
 *    (CG_FN_SYNTHETIC | CG_FN_SPONTANEOUS: fprof's caller of bottom frames).
 *    Object and file are NULL.
 *  - One part per Erlang process, named by its pid ("<0.81.0>"), in order
 *    of first appearance.  Per part: self = fprof OWN summed per function,
 *    cg_profile_set_calls = CNT, cg_profile_set_inclusive = ACC (both summed
 *    over callers), one arc per fprof row (Caller -> Func, count = CNT,
 *    inclusive = ACC; rows with caller `undefined` come from the
 *    "undefined" function), and a calling-context tree of the simulated
 *    frames (self = OWN, calls = CNT; tail calls replace the frame's
 *    function, so they add siblings, not depth).  fprof's literal numbers
 *    are kept: `suspend` has self 0 and its waiting time as ACC.
 *  - OWN per (caller, function) is the arc's own self cost (cg_arc.self,
 *    cg_profile_add_arc_self), used by the writer when every arc of the
 *    part has one.
 *  - Metadata: "fprof.first_ts", "fprof.last_ts" (trace timestamps in µs;
 *    their difference is fprof's total ACC), "fprof.messages",
 *    "fprof.unknown_messages", "fprof.incomplete" (why, when a partial
 *    trace was accepted), and per process record (processes spawned during
 *    the trace) the part's own metadata (cg_profile_part_meta)
 *    "spawned_by", "spawned_as", "initial_calls" as Erlang term text.
 *
 * Output
 *  - cg_write_fprof_analysis() prints what fprof:analyse/1 prints for the
 *    options callers|no_callers, {sort, acc|own}, totals, details|no_details
 *    (cols 80), byte for byte for profiles read from a trace.
 *
 * Thread safety: readers and writers keep all their state in their
 * arguments; different profiles may be read or written in parallel.
 */
#ifndef CALLGRAPH_FPROF_H
#define CALLGRAPH_FPROF_H

#include <stdint.h>
#include <stdio.h>
#include "callgraph/common.h"
#include "callgraph/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- reading a trace -------------------------------------------------------- */

typedef struct cg_fprof_read_options {
	unsigned version;   /* CG_FPROF_READ_OPTIONS_VERSION */
	/* 0 (default): a truncated or corrupt trace, or one fprof itself
	 * rejects (inconsistent stack data, drop records), is an error
	 * (CG_EFORMAT, message with the byte offset) and nothing is added to
	 * the profile.  1: the data before the bad record are kept the way
	 * fprof keeps them, "fprof.incomplete" says why, warn() is called and
	 * the call returns 0. */
	int allow_partial;
	/* 0 (default): messages fprof does not know ({trace_ts, P, Kind, ...}
	 * with an unknown Kind) are counted, skipped and reported once through
	 * warn().  1: they stop the trace as in fprof (see allow_partial). */
	int strict;
	/* Warnings (one line, no newline).  May be NULL. */
	void (*warn)(void *ctx, const char *message);
	void *warn_ctx;
	/* Called every few MB with bytes read and the file size (0 when
	 * unknown, e.g. a pipe).  May be NULL. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	/* 0 (default): fprof's numbers, `suspend` has self 0 (its waiting time
	 * is only in ACC, so callers' inclusive costs exceed the sum of self
	 * costs).  1: `suspend` gets its waiting time as self cost, in the
	 * per-function self costs and in the call tree, so self costs add up
	 * to each process's traced wall time (docs/fprof.md; GC during a
	 * suspension is then counted in both).  What fprof:analyse prints is
	 * the same either way: OWN per row comes from the arcs' self costs. */
	int suspend_self;
} cg_fprof_read_options;

#define CG_FPROF_READ_OPTIONS_VERSION 1
#define CG_FPROF_READ_OPTIONS_INIT { .version = CG_FPROF_READ_OPTIONS_VERSION }

/* Reads the fprof trace at `path` ("-" = stdin) into `profile`, which
 * must be new (no functions yet) or already use the event "us".  opts may
 * be NULL.  Returns 0, CG_EIO, CG_EFORMAT or CG_ENOMEM. */
CG_EXTERN int cg_read_fprof_trace(cg_profile *profile, const char *path,
				  const cg_fprof_read_options *opts, cg_error *err);

/* The same from memory (fuzzing, tests); `name` is used in messages. */
CG_EXTERN int cg_read_fprof_trace_buffer(cg_profile *profile, const void *data, size_t len,
					 const char *name, const cg_fprof_read_options *opts,
					 cg_error *err);

/* Whether `head` (the first bytes of a file) looks like an fprof trace:
 * a record header Op 0 followed by the version byte 131 and a tuple
 * starting with the atom trace_ts.  1 or 0. */
CG_EXTERN int cg_fprof_trace_detect(const void *head, size_t len);

/* ---- reading an analysis ---------------------------------------------------- */

/* Reads fprof:analyse text.  Uses the per-process sections when present
 * (details), else the totals section's paragraphs (totals); an analysis
 * made with no_callers has no caller/callee rows, so the profile then has
 * self costs, calls and inclusive costs but no arcs.  With both per-process
 * and totals paragraphs, the totals ones are ignored (not added twice). */
CG_EXTERN int cg_read_fprof_analysis(cg_profile *profile, const char *path, cg_error *err);
CG_EXTERN int cg_read_fprof_analysis_buffer(cg_profile *profile, const void *data, size_t len,
					    const char *name, cg_error *err);
/* 1 when `head` starts like fprof:analyse output ("%% Analysis results:"). */
CG_EXTERN int cg_fprof_analysis_detect(const void *head, size_t len);

/* ---- writing fprof:analyse text ----------------------------------------------- */

typedef struct cg_fprof_analyse_options {
	unsigned version;   /* CG_FPROF_ANALYSE_OPTIONS_VERSION */
	int callers;        /* 1 (default) callers, 0 no_callers */
	int sort_own;       /* 0 (default) {sort, acc}, 1 {sort, own} */
	int totals;         /* 0 (default), 1 totals */
	int details;        /* 1 (default) details, 0 no_details */
	int cols;           /* 80 (default); fprof's {cols, N} */
} cg_fprof_analyse_options;

#define CG_FPROF_ANALYSE_OPTIONS_VERSION 1
#define CG_FPROF_ANALYSE_OPTIONS_INIT \
	{ .version = CG_FPROF_ANALYSE_OPTIONS_VERSION, .callers = 1, .details = 1, .cols = 80 }

/* Parses a comma-separated option list into *out (which it first resets
 * to the defaults).  Accepted words: callers, no_callers, sort=acc,
 * sort=own, totals, no_totals, details, no_details, cols=N, and fprof's
 * own spellings {sort,own}, {callers,false}, {totals,true},
 * {details,false}, {cols,N}.  NULL or "" gives the defaults.
 * CG_EUSAGE with a message naming the bad word. */
CG_EXTERN int cg_fprof_analyse_options_parse(cg_fprof_analyse_options *out, const char *list,
					     cg_error *err);

/* Writes the analysis of `profile` as fprof:analyse prints it.  Exact for
 * profiles read by cg_read_fprof_trace (and by cg_read_fprof_analysis for
 * the options the analysis contains); for other inputs the rows come from
 * the arcs and OWN per row from the call tree (or is shared out by call
 * counts when there is none).  opts may be NULL (fprof's defaults).
 * CG_EFORMAT "empty trace" when the profile has no rows, as fprof. */
CG_EXTERN int cg_write_fprof_analysis(const cg_profile *profile, FILE *out,
				      const cg_fprof_analyse_options *opts, cg_error *err);

#ifdef __cplusplus
}
#endif
#endif
