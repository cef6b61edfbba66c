/*
 * diff_internal.h — the inside of a cg_diff, shared by diff.c (matching
 * and values), diff_graph.c (cycles, propagation), diff_rules.c (verdicts)
 * and the diff writers.  Not part of the public API.
 */
#ifndef CG_DIFF_INTERNAL_H
#define CG_DIFF_INTERNAL_H

#include "callgraph.h"
#include "hashmap.h"

#define DIFF_NO_ITEM UINT32_MAX

/* One input profile as seen by the diff. */
struct diff_side {
	const cg_profile *p;
	int ev[CG_MAX_EVENTS];   /* diff event -> event index in p */
	uint32_t *item_of;       /* fid -> function item */
	uint32_t *cycle_of;      /* fid -> SCC number (1..), 0 = none; only with cycles */
	/* arc_items[part][i]: the arc item of arc i of part, DIFF_NO_ITEM for
	 * an arc inside one item; found once by match_arcs, used by every
	 * scope's accumulation */
	uint32_t **arc_items;
	size_t nparts;
	const char *main_object; /* object holding most functions */
	const char *root;        /* source root stripped from file paths; NULL none */
};

/* Values of every item for one scope, per side (0 base, 1 new). */
struct diff_scope {
	const char *name;
	int part[2];                 /* -1: all parts (scope 0) */
	cg_cost *self[2];            /* nfuncs * nev */
	cg_cost *incl[2];            /* nfuncs * nev */
	unsigned char *incl_known[2];
	uint64_t *calls[2];          /* nfuncs */
	uint64_t *acount[2];         /* narcs */
	cg_cost *aincl[2];           /* narcs * nev */
	unsigned char *aincl_known[2];
	cg_cost total[2][CG_MAX_EVENTS];
	/* Repeated runs: run scope r holds run r of each side that has one;
	 * the arrays above are then the medians over the runs. */
	struct diff_scope *run;
	unsigned nrun;
};

struct diff_rule {
	char *text;
	int metric;              /* CG_DIFF_* */
	char *pattern;           /* NULL = all */
	char *pattern2;          /* arcs "A/B": callee pattern; NULL otherwise */
	int event;               /* diff event, -1 = the checked events */
	int both_ways;           /* "<>" */
	int percent;
	double value;            /* threshold in units, percent, or seconds */
	int64_t mantissa;        /* value = mantissa / 10^decimals, exactly */
	int decimals;
	double time_scale;       /* 0: value is in units; else seconds per value unit */
	char *within;            /* reason text of the findings within limits */
};

struct cg_diff {
	cg_diff_options opts;
	double z;
	size_t nev;
	const cg_event *events[CG_MAX_EVENTS];
	int kind[CG_MAX_EVENTS];
	struct diff_side side[2];    /* the first run of each side */
	struct diff_side *more[2];   /* the further runs: more[s][r - 1] is run r */
	size_t nruns[2];
	double alpha;

	cg_diff_function *funcs;
	size_t nfuncs, funccap;
	struct cg_hashmap func_index; /* identity hash -> function item */
	unsigned char *dupname;      /* item shares its name with another item */
	const char *main_object[2];  /* object holding most functions, per side */

	cg_diff_arc *arcs;
	size_t narcs, arccap;
	struct cg_hashmap arc_index; /* caller<<32|callee -> arc item */

	struct diff_scope *scopes;
	unsigned nscopes;

	char **owned;                /* strings the diff allocated (cycle names) */
	size_t nowned, ownedcap;

	struct diff_rule *rules;
	unsigned nrules;
	size_t checked_ev[CG_MAX_EVENTS];
	size_t nchecked_ev;
	/* Findings in chunks of DIFF_FINDING_CHUNK (diff_finding()): a large
	 * comparison has one per checked item (800k for two 200k-function
	 * profiles) and a doubling array of them held up to twice that
	 * (117 MB where 90 were used); chunks never move, so a finding's
	 * address stays valid as more are added. */
	cg_diff_finding **finding_chunks;
	size_t nfindings, nfinding_chunks, finding_chunkcap;
	unsigned char *exceeded;     /* per finding: the rule's threshold was exceeded */
	size_t exceededcap;
	char **reasons;              /* reason texts of flagged / noise findings */
	size_t nreasons, reasoncap;
};

#define DIFF_FINDING_CHUNK 4096

/* Finding i < d->nfindings. */
static inline cg_diff_finding *diff_finding(const cg_diff *d, size_t i)
{
	return &d->finding_chunks[i / DIFF_FINDING_CHUNK][i % DIFF_FINDING_CHUNK];
}

/* diff_graph.c */
/* Cycles: cycle_of[f] = 0 for functions not in a cycle, else a cycle
 * number from 1.  gprof's cycles (cg_gprof_cycles) for one-part profiles,
 * else the strongly connected components (two or more functions) of the
 * union of the arcs of all parts. */
int cg_diff_cycles(const cg_profile *p, uint32_t *cycle_of, cg_error *err);
/* gprof-style proportional inclusive costs of every function of part
 * (out: nfuncs * nev of p), cycles taken as one unit. */
int cg_diff_propagate(const cg_profile *p, unsigned part, cg_cost *out, cg_error *err);

/* diff.c: run r of side s (0 = the first). */
const struct diff_side *cg_diff_run_side(const cg_diff *d, int s, size_t r);
/* diff_stats.c: Mann-Whitney U test of new against base values: the
 * probability, if both samples come from one distribution, of new values
 * ranking at least this high (one_sided) or this far from the middle
 * (two-sided).  Exact (ties included) up to 40 values, else the normal
 * approximation with tie correction.  -1 on out of memory. */
double cg_diff_mann_whitney(const int64_t *base, size_t nb, const int64_t *new_values, size_t nn,
			    int one_sided);
/* The smallest p-value any data can give with nb and nn runs. */
double cg_diff_min_p(size_t nb, size_t nn, int one_sided);

/* diff_rules.c: frees the rules, findings and reasons. */
void cg_diff_clear_rules(cg_diff *d);

/* diff_write.c / diff_xml.c / diff_callgrind.c */
int cg_diff_write_table(const cg_diff *d, FILE *out, const cg_diff_write_options *o);
int cg_diff_write_tap(const cg_diff *d, FILE *out);
int cg_diff_write_xml(const cg_diff *d, FILE *out, cg_error *err);
int cg_diff_write_callgrind(const cg_diff *d, FILE *out);
/* diff_ci.c: JUnit XML, GitHub workflow commands, Markdown, Bencher BMF. */
int cg_diff_write_junit(const cg_diff *d, FILE *out);
int cg_diff_write_github(const cg_diff *d, FILE *out);
int cg_diff_write_markdown(const cg_diff *d, FILE *out);
int cg_diff_write_bmf(const cg_diff *d, FILE *out);
/* diff_svg.c: the differential flame graph. */
int cg_diff_write_svg(const cg_diff *d, FILE *out, const cg_diff_write_options *o,
		      cg_error *err);
/* diff_write.c: finding indexes sorted by scope, subject (total,
 * function, arc) and item, so one subject's findings are adjacent; NULL
 * on out of memory.  Kind: 0 total, 1 function, 2 arc. */
size_t *cg_diff_sorted_findings(const cg_diff *d);
int cg_diff_same_subject(const cg_diff_finding *a, const cg_diff_finding *b);
int cg_diff_finding_kind(const cg_diff_finding *f);

/* Formats a function item for humans: "name" or "name (file)" / "<object>". */
void cg_diff_item_label(const cg_diff *d, size_t item, char *buf, size_t size);

#endif
