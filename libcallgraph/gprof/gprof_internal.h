/*
 * gprof_internal.h — data shared by the gprof_*.c files (not installed).
 *
 * The analysis keeps gprof's own shapes: an array of symbols in address
 * order followed by one pseudo symbol per cycle, arcs with per-symbol
 * parent and child lists in gprof's list order (most recently created
 * first), and every double computed in gprof's order of operations so
 * that the printed reports match GNU gprof 2.40 byte for byte.
 */
#ifndef CG_GPROF_INTERNAL_H
#define CG_GPROF_INTERNAL_H

#include <stdint.h>
#include <stdio.h>
#include "callgraph/gprof.h"
#include "graph.h"

#define GP_NONE UINT32_MAX

typedef struct gp_sym {
	const char *name;     /* raw name; NULL for a cycle pseudo symbol */
	const char *file;     /* source path or NULL */
	uint32_t line;
	uint32_t flags;       /* cg_function_flags */
	uint64_t addr, end;   /* end: one past the last byte, 0 unknown */
	cg_fid fid;           /* CG_NO_FUNC for cycle symbols */

	double time;          /* self time in ticks (after the flat tables) */
	uint64_t ncalls;      /* calls, self-recursive ones removed */
	uint64_t self_calls;
	double child_time;
	double prop_fract, prop_self, prop_child;
	int print_flag;
	int top;              /* topological number: callees first, cycle members share it */
	uint32_t head;        /* cycle symbol of a cycle member; itself when none */
	uint32_t next;        /* next cycle member or GP_NONE */
	uint32_t cycle;       /* cycle number, 0 none */
	uint32_t index;       /* gprof index number */

	/* Parent/child lists: ranges of the analysis' list arrays. */
	uint32_t first_child, nchildren;
	uint32_t first_parent, nparents;
} gp_sym;

typedef struct gp_arc {
	uint32_t parent, child;   /* symbol indices */
	uint64_t count;
	double time, child_time;
	const cg_cost *inclusive; /* exact inclusive cost from the model */
} gp_arc;

/* A range of consecutive symbols [first, last] matched by one spec. */
typedef struct gp_range {
	uint32_t first, last;
} gp_range;

/* One entry of a gprof symbol table: a run of consecutive symbols that
 * matched one spec, and for arc specs the runs its right side matched. */
typedef struct gp_entry {
	gp_range r;
	gp_range *right;
	size_t nright;
} gp_entry;

/* A pseudo arc gprof adds between copies of symbols while resolving an
 * A/B spec (count 0); only -r ever sees them.  Ends are "objects":
 * vobj_sym[] gives the symbol whose name each one carries. */
typedef struct gp_fake_arc {
	uint32_t parent, child;
} gp_fake_arc;

/* One of gprof's specification tables, finalized the way gprof finalizes
 * it (sorted by start, one entry per start). */
typedef struct gp_table {
	gp_entry *e;
	size_t n;
} gp_table;

struct cg_gprof_analysis {
	const cg_profile *profile;
	unsigned part;
	cg_gprof_options opts;    /* copy; specs not kept */

	gp_sym *syms;             /* nsyms symbols then ncycles cycle symbols */
	uint32_t nsyms, ncycles;
	uint32_t *sym_of_fid;     /* fid -> symbol or GP_NONE */
	size_t nfuncs;

	gp_arc *arcs;
	uint32_t narcs;
	uint32_t *arc_of_model;   /* model arc index -> arc or GP_NONE */
	uint32_t *child_lists;    /* arc indices, by parent symbol */
	uint32_t *parent_lists;   /* arc indices, by child symbol */

	gp_table tables[CG_GPROF_NTABLES];
	gp_range **spec_runs;     /* right-side runs of arc specs (owned) */
	size_t nspec_runs;
	gp_fake_arc *fake;        /* pseudo arcs of A/B specs, gprof's order */
	size_t nfake;
	uint32_t *vobj_sym;       /* pseudo-arc end object -> named symbol */
	uint32_t nvobj;

	uint32_t *index_order;    /* nsyms + ncycles symbols in index order */

	double hz;                /* ticks per second (0: no histogram) */
	double total_time;        /* flat profile denominator, ticks */
	double print_time;        /* call graph denominator, ticks */
	double scale;             /* histogram scale (UNITs per bin) */
	const char *dimension, *dimension_abbrev;
	int raw_units;            /* time is an event that is not time */
	char raw_abbrev[2];
	int has_histogram, has_arcs;

	cg_graph graph;           /* symbols and their child lists (gprof_cycles.c) */
	cg_scc scc;               /* its components: gprof's cycles and topological order */

};

/* gprof_sort.c: glibc 2.36 qsort (top-down merge sort), comparison for
 * comparison; sorts uint32_t items with cmp(ctx, a, b). */
typedef int (*gp_cmp_fn)(const void *ctx, uint32_t a, uint32_t b);
int cg_gp_msort(uint32_t *items, size_t n, gp_cmp_fn cmp, const void *ctx);

/* gprof_symspec.c */
int cg_gp_tables_build(cg_gprof_analysis *a, const cg_gprof_options *opts, cg_error *err);
void cg_gp_tables_free(cg_gprof_analysis *a);
int cg_gp_in_table(const cg_gprof_analysis *a, unsigned table, uint32_t s);
/* S passes (INCL, EXCL): in INCL, or INCL empty and not in EXCL. */
int cg_gp_passes(const cg_gprof_analysis *a, unsigned incl, uint32_t s);
int cg_gp_arc_passes(const cg_gprof_analysis *a, uint32_t parent, uint32_t child);

/* gprof_cycles.c: topological numbering, cycle discovery and numbering
 * (graph engine); fills a->graph, a->scc and top/head/next/cycle of every
 * symbol, and appends cycle symbols. */
int cg_gp_find_cycles(cg_gprof_analysis *a, cg_error *err);

/* gprof_propagate.c: flags, fractions, times, index numbers. */
int cg_gp_propagate(cg_gprof_analysis *a, cg_error *err);

/* gprof_exact.c: replaces proportional arc and children times by the
 * exact ones the profile knows (use_exact_inclusive). */
int cg_gp_exact_inclusive(cg_gprof_analysis *a, const uint32_t *arc_of_model, cg_error *err);


/* gprof_print.c, gprof_flat.c, gprof_graph.c: the report sections. */
typedef struct gp_printer {
	const cg_gprof_analysis *a;
	FILE *out;
	int bsd;
	int first_output;
	char **names;         /* demangled names (NULL: use the raw name) */
	uint8_t *named;
	double print_time;
	uint32_t *buf;        /* scratch for list sorts */
	size_t bufcap;
} gp_printer;

/* The last path component of a source path, or all of it with -L. */
const char *cg_gp_base_name(const char *path, int print_path);
size_t cg_gp_print_name_only(gp_printer *pr, uint32_t s);
void cg_gp_print_name(gp_printer *pr, uint32_t s);
void cg_gp_section_start(gp_printer *pr);
int cg_gp_reserve(gp_printer *pr, size_t n);
int cg_gp_print_flat(gp_printer *pr);
int cg_gp_print_graph(gp_printer *pr);
int cg_gp_print_index(gp_printer *pr);
int cg_gp_print_exec_counts(gp_printer *pr);
/* A parent (descending = 0) or child (1) list in gprof's print order, into
 * pr->buf. */
int cg_gp_sort_arc_list(gp_printer *pr, const uint32_t *list, uint32_t n, int descending);
/* gprof_order.c: -r, after the call graph if it was printed. */
int cg_gp_print_function_order(gp_printer *pr, int graph_printed);

/* gprof_annotate.c: the -A listing (to `out`, or -ann files). */
int cg_gp_print_annotated(const cg_gprof_analysis *a, FILE *out, int *first_output);

static inline int gp_is_cycle(const cg_gprof_analysis *a, uint32_t s)
{
	return s >= a->nsyms;
}

#endif
