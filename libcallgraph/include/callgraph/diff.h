/*
 * callgraph/diff.h — compare two profiles (base and new) and judge the
 * differences, for CI gates (the cgdiff tool is a thin front end).
 *
 * Model of a diff:
 *  - Functions of both profiles are matched by identity: (name, object,
 *    file), optionally ignoring object and/or file, after renaming
 *    (`map`: an old name stands for a new one).  Each matched identity is
 *    an "item" of the diff; functions of one profile that fall on the same
 *    identity are summed.  With `cycles` set, the members of each cycle
 *    (strongly connected component of the call graph) become one item
 *    named "<cycle F>" after their smallest member name.
 *  - Arcs are matched by their two (matched) ends.
 *  - Events are matched by name; only events present in both profiles are
 *    compared, in the base profile's order.
 *  - Scope 0 is the whole profile (all parts summed).  Scopes 1..n are
 *    the parts present on both sides (matched by name; remaining parts by
 *    position), only when both profiles have more than one part.
 *  - Values are 64-bit integers in the event's unit; "calls" of a function
 *    is cg_profile_calls() when known, else the sum of its incoming arcs.
 *  - Inclusive cost comes from cg_profile_inclusive() when the input knows
 *    it; otherwise it is estimated from the arcs by gprof's proportional
 *    propagation (each caller is charged the callee's inclusive cost in
 *    proportion to its share of the calls; cycles are handled as one unit).
 *
 * Verdicts: rules (see cg_diff_check and cgdiff(1)) are checked per item
 * and event.  An event is EXACT when its unit is not time (unit_seconds ==
 * 0: instructions, calls, call-sequence counts): any change is real.  It
 * is SAMPLED when it counts timer ticks (unit_seconds >= 1e-4): a change
 * counts only when it also exceeds z * sqrt(base + new), the Poisson noise
 * of two sample counts.  Finer time units (fprof microseconds) are
 * MEASURED: no noise model, only the rule's threshold applies.  Call and
 * arc counts are always exact.
 *
 * Thread safety: a cg_diff is used by one thread at a time; diffs of
 * different profiles may run in parallel (the inputs are only read).
 */
#ifndef CALLGRAPH_DIFF_H
#define CALLGRAPH_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "callgraph/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Default noise factor: with z = 4 a pair of Poisson counts of an
 * unchanged program exceeds the bound with probability ~6e-5, so 100
 * functions checked over 20 repeated pairs give under 15% chance of one
 * false alarm from noise alone — and a rule's threshold must be exceeded
 * as well. */
#define CG_DIFF_DEFAULT_Z 4.0

/* ---- options ---------------------------------------------------------------- */

typedef struct cg_diff_options {
	unsigned version;              /* CG_DIFF_OPTIONS_VERSION */
	int ignore_object;             /* match functions without their object */
	int ignore_file;               /* ... without their source file */
	/* Renames: base function map_old[i] is compared with new function
	 * map_new[i] (names, exact). */
	const char *const *map_old;
	const char *const *map_new;
	size_t nmap;
	int cycles;                    /* compare cycles as single items */
	int parts;                     /* also compare matched parts (scopes 1..n) */
	double z;                      /* noise factor; <= 0 means CG_DIFF_DEFAULT_Z */
	/* Version 2. */
	/* Source files are matched relative to a root directory per side
	 * (base, new): source_root[s] when set, else the pair of roots under
	 * which most source paths of the two sides agree (path-suffix
	 * matching), so one program built in two checkouts matches.
	 * absolute_paths: match the full paths instead. */
	const char *source_root[2];
	int absolute_paths;
	/* Functions matching one of these globs get no verdict (cg_diff_check
	 * skips them, and arcs with an end among them), except from rules
	 * whose pattern is their exact name (a per-function tolerance). */
	const char *const *ignore;
	size_t nignore;
	/* Repeated runs: further profiles of each side (besides base and
	 * new_profile).  With two runs or more on each side, every value is
	 * the median of the runs, and a value that varies between runs
	 * (time, or counts of a nondeterministic program) must also pass a
	 * one-sided (">") or two-sided ("<>") Mann-Whitney U test at
	 * alpha / (number of values so tested) to be flagged. */
	const cg_profile *const *more_runs[2];
	size_t nmore_runs[2];
	double alpha;                  /* family-wise false-alarm rate; <= 0: CG_DIFF_DEFAULT_ALPHA */
} cg_diff_options;

#define CG_DIFF_DEFAULT_ALPHA 0.01
#define CG_DIFF_OPTIONS_VERSION 2
#define CG_DIFF_OPTIONS_INIT { CG_DIFF_OPTIONS_VERSION, 0, 0, NULL, NULL, 0, 0, 0, 0, \
			       { NULL, NULL }, 0, NULL, 0, { NULL, NULL }, { 0, 0 }, 0 }

/* ---- life cycle ----------------------------------------------------------------- */

typedef struct cg_diff cg_diff;

/* Compares base with new.  Both profiles must outlive the diff (names are
 * borrowed from them).  opts may be NULL.  CG_EMISMATCH when the profiles
 * share no event. */
CG_EXTERN int cg_diff_new(cg_diff **out, const cg_profile *base, const cg_profile *new_profile,
			  const cg_diff_options *opts, cg_error *err);
CG_EXTERN void cg_diff_free(cg_diff *diff);

/* ---- events ------------------------------------------------------------------------ */

enum cg_diff_event_kind {
	CG_DIFF_EXACT    = 0,  /* counts: any change is real */
	CG_DIFF_SAMPLED  = 1,  /* timer samples: Poisson noise test */
	CG_DIFF_MEASURED = 2   /* measured durations: threshold only */
};

CG_EXTERN size_t cg_diff_event_count(const cg_diff *diff);
/* Borrowed from the base profile. */
CG_EXTERN const cg_event *cg_diff_event(const cg_diff *diff, size_t e);
CG_EXTERN int cg_diff_event_kind(const cg_diff *diff, size_t e);
CG_EXTERN const char *cg_diff_event_kind_name(int kind);   /* "exact", ... */
/* Index of the event named `name` in the diff, or -1. */
CG_EXTERN int cg_diff_find_event(const cg_diff *diff, const char *name);

/* ---- scopes (0 = whole profile, 1..n matched parts) ----------------------- */

CG_EXTERN unsigned cg_diff_scope_count(const cg_diff *diff);
/* "" for scope 0, else the (base) part name. */
CG_EXTERN const char *cg_diff_scope_name(const cg_diff *diff, unsigned scope);

/* ---- items ---------------------------------------------------------------------------- */

typedef struct cg_diff_function {
	const char *name;      /* identity after renaming ("<cycle F>" for cycles) */
	const char *object;    /* NULL when unknown or ignored */
	const char *file;      /* NULL when unknown or ignored */
	int in_base, in_new;   /* present in that profile */
	uint32_t line;         /* first line (new side preferred), 0 unknown */
} cg_diff_function;

typedef struct cg_diff_arc {
	uint32_t caller, callee;   /* function items */
} cg_diff_arc;

CG_EXTERN size_t cg_diff_function_count(const cg_diff *diff);
CG_EXTERN void cg_diff_function_at(const cg_diff *diff, size_t i, cg_diff_function *out);
/* Item index of a function by name (first match in item order), or -1. */
CG_EXTERN long cg_diff_find_function(const cg_diff *diff, const char *name);
CG_EXTERN size_t cg_diff_arc_count(const cg_diff *diff);
CG_EXTERN void cg_diff_arc_at(const cg_diff *diff, size_t i, cg_diff_arc *out);
/* Item index of the arc caller->callee (function items), or -1. */
CG_EXTERN long cg_diff_find_arc(const cg_diff *diff, size_t caller, size_t callee);

/* ---- values ------------------------------------------------------------------------------ */

enum cg_diff_metric {
	CG_DIFF_SELF = 0,       /* function item, per event */
	CG_DIFF_INCLUSIVE,      /* function item, per event */
	CG_DIFF_CALLS,          /* function item; event ignored */
	CG_DIFF_ARC_CALLS,      /* arc item; event ignored */
	CG_DIFF_ARC_INCLUSIVE,  /* arc item, per event (when the inputs know it) */
	CG_DIFF_TOTAL,          /* item ignored, per event: sum of self costs */
	CG_DIFF_NMETRICS
};

CG_EXTERN const char *cg_diff_metric_name(int metric);   /* "self", "inclusive", ... */

typedef struct cg_diff_value {
	int64_t base, new_value;   /* 0 when absent */
	int64_t delta;             /* new - base */
	double relative;           /* delta / base; +-INFINITY when base == 0 and delta != 0 */
	int known;                 /* 0 when neither input knows the value */
} cg_diff_value;

/* CG_EUSAGE on an index out of range. */
CG_EXTERN int cg_diff_value_get(const cg_diff *diff, unsigned scope, int metric, size_t item,
				size_t event, cg_diff_value *out);

/* ---- rules and verdicts ------------------------------------------------------------------- */

/* Rule text (cgdiff --fail):
 *     METRIC [ "(" PATTERN ")" ] [ "[" EVENT "]" ] OP VALUE [ UNIT ]
 *   METRIC   self | inclusive | calls | arcs | total
 *   PATTERN  fnmatch(3) glob on function names (arcs: "CALLER/CALLEE"
 *            globs, or one glob matching either end); default "*"
 *   EVENT    event name; default: the events given to cg_diff_check
 *   OP       ">"  the increase (new - base) exceeds VALUE
 *            "<>" the change in either direction exceeds VALUE
 *   VALUE    decimal number; UNIT "%" makes it relative to the base value
 *            (a value appearing from 0 exceeds any percentage), "s", "ms",
 *            "us", "ns" convert a time to the event's unit; none: units.
 * An item is flagged when the rule's threshold is exceeded and, for
 * self/inclusive/total of a SAMPLED event, |delta| > z*sqrt(base+new). */
typedef struct cg_diff_finding {
	unsigned rule;          /* index into the rules given to cg_diff_check */
	unsigned scope;
	int metric;
	size_t item;            /* function or arc item; 0 for total */
	size_t event;           /* diff event (0 for call counts) */
	cg_diff_value value;
	int flagged;            /* 1: limit exceeded; 0: checked and within limits */
	int noise;              /* 1: threshold exceeded but explained by noise */
	double noise_bound;     /* z*sqrt(base+new) for sampled events, else 0 */
	const char *reason;     /* which rule and why, one line; borrowed from the diff */
	/* Added in release 0.2 (the struct is only read through pointers the
	 * library returns, so fields may be appended). */
	double p_value;         /* Mann-Whitney p of repeated runs; -1 when not tested */
	double detectable;      /* sampled, single runs: the smallest increase (in the
				 * event's units) the noise test could have flagged; else 0 */
} cg_diff_finding;

/* Parses and checks `rules` (none: "self>5%", "calls>0", "arcs>0") for
 * the events named in `events` (none: the first event).  Records one
 * finding per rule and checked item whose value is non-zero on a side
 * (all of them, flagged or not) in the diff, replacing earlier ones.
 * Returns the number of flagged findings (>= 0) or CG_EUSAGE (bad rule or
 * event name) / CG_ENOMEM. */
CG_EXTERN int cg_diff_check(cg_diff *diff, const char *const *rules, size_t nrules,
			    const char *const *events, size_t nevents, cg_error *err);
CG_EXTERN size_t cg_diff_finding_count(const cg_diff *diff);
/* Borrowed, valid until the next cg_diff_check or cg_diff_free. */
CG_EXTERN const cg_diff_finding *cg_diff_finding_at(const cg_diff *diff, size_t i);
/* Rule text as given (after defaults). */
CG_EXTERN const char *cg_diff_rule_text(const cg_diff *diff, unsigned rule);
/* Events the rules were checked for (after defaults). */
CG_EXTERN size_t cg_diff_checked_event_count(const cg_diff *diff);
CG_EXTERN size_t cg_diff_checked_event(const cg_diff *diff, size_t i);

/* ---- output --------------------------------------------------------------------------------- */

enum cg_diff_format {
	CG_DIFF_TABLE = 0,      /* readable table sorted by impact */
	CG_DIFF_TAP,            /* one TAP test per checked function / arc / total */
	CG_DIFF_XML,            /* every item, value and finding */
	CG_DIFF_CALLGRIND,      /* new minus old as a Callgrind file (EVENT_up/EVENT_down) */
	CG_DIFF_JUNIT,          /* JUnit XML: one testcase per checked function / arc / total */
	CG_DIFF_GITHUB,         /* GitHub Actions workflow commands (::error file=...,line=...::) */
	CG_DIFF_MARKDOWN,       /* Markdown summary ($GITHUB_STEP_SUMMARY, merge-request notes) */
	CG_DIFF_BMF,            /* Bencher Metric Format JSON */
	CG_DIFF_SVG             /* differential flame graph, one self-contained SVG file */
};

typedef struct cg_diff_write_options {
	unsigned version;       /* CG_DIFF_WRITE_OPTIONS_VERSION */
	unsigned width;         /* table: line width; 0 = 80 */
	size_t limit;           /* table: rows of unflagged changes shown; 0 = 20 */
	int all;                /* table: show every changed item */
	/* Version 2. */
	int full_names;         /* table: never cut names (output is not a terminal) */
	/* Version 3. */
	const char *names[2];   /* svg: what to call base and new in the title (file
				 * names); NULL: "base", "new" */
} cg_diff_write_options;

#define CG_DIFF_WRITE_OPTIONS_VERSION 3
#define CG_DIFF_WRITE_OPTIONS_INIT { CG_DIFF_WRITE_OPTIONS_VERSION, 0, 0, 0, 0, { NULL, NULL } }

/* Runs per side (1 + more_runs): side 0 base, 1 new. */
CG_EXTERN size_t cg_diff_run_count(const cg_diff *diff, int side);
/* The value of one run of one side (before taking the median). */
CG_EXTERN int cg_diff_run_value(const cg_diff *diff, unsigned scope, int metric, size_t item,
				size_t event, int side, size_t run, int64_t *out);

/* "table", "tap", "xml", "callgrind", "junit", "github", "markdown",
 * "bmf", "svg" -> format; -1 when unknown. */
CG_EXTERN int cg_diff_format_from_name(const char *name);
/* Writes the diff (with the findings of the last cg_diff_check).  opts
 * may be NULL.  CG_EIO on a write error. */
CG_EXTERN int cg_diff_write(const cg_diff *diff, int format, FILE *out,
			    const cg_diff_write_options *opts, cg_error *err);

#ifdef __cplusplus
}
#endif
#endif
