/*
 * gprof_propagate.c — print flags, propagation fractions, time
 * propagation and index numbers, in gprof's order of operations.
 *
 * Doubles are combined exactly as gprof combines them (count/ncalls first,
 * then the product; sums in list order), because the sorts that follow
 * compare these doubles for equality and ties are frequent.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gprof_internal.h"

static void inherit_flags(cg_gprof_analysis *a, uint32_t c)
{
	gp_sym *s = a->syms;
	uint32_t head = s[c].head;
	if (head == c) {
		s[c].print_flag = 0;
		s[c].prop_fract = 0.0;
		for (uint32_t k = 0; k < s[c].nparents; k++) {
			const gp_arc *arc = &a->arcs[a->parent_lists[s[c].first_parent + k]];
			uint32_t p = arc->parent;
			if (p == c)
				continue;
			s[c].print_flag |= s[p].print_flag;
			if (s[c].ncalls)
				s[c].prop_fract += s[p].prop_fract
					* ((double)arc->count / (double)s[c].ncalls);
		}
		return;
	}
	/* A cycle member: the whole cycle inherits from outside callers. */
	gp_sym *y = &s[head];
	y->print_flag = 0;
	y->prop_fract = 0.0;
	for (uint32_t m = y->next; m != GP_NONE; m = s[m].next) {
		for (uint32_t k = 0; k < s[m].nparents; k++) {
			const gp_arc *arc = &a->arcs[a->parent_lists[s[m].first_parent + k]];
			uint32_t p = arc->parent;
			if (s[p].head == head)
				continue;
			y->print_flag |= s[p].print_flag;
			if (y->ncalls)
				y->prop_fract += s[p].prop_fract
					* ((double)arc->count / (double)y->ncalls);
		}
	}
	for (uint32_t m = y->next; m != GP_NONE; m = s[m].next) {
		s[m].print_flag = y->print_flag;
		s[m].prop_fract = y->prop_fract;
	}
}

static void propagate_flags(cg_gprof_analysis *a, const uint32_t *order)
{
	gp_sym *s = a->syms;
	uint32_t old_head = GP_NONE;
	a->print_time = 0.0;
	for (uint32_t i = a->nsyms; i-- > 0;) {
		uint32_t c = order[i];
		if (s[c].head != old_head) {
			old_head = s[c].head;
			inherit_flags(a, c);
		}
		if (!s[c].print_flag) {
			if (cg_gp_passes(a, CG_GPROF_INCL_GRAPH, c))
				s[c].print_flag = 1;
		} else if (!cg_gp_in_table(a, CG_GPROF_INCL_GRAPH, c)
			   && cg_gp_in_table(a, CG_GPROF_EXCL_GRAPH, c)) {
			s[c].print_flag = 0;
		}
		if (s[c].prop_fract == 0.0) {
			if (cg_gp_passes(a, CG_GPROF_INCL_TIME, c))
				s[c].prop_fract = 1.0;
		} else if (!cg_gp_in_table(a, CG_GPROF_INCL_TIME, c)
			   && cg_gp_in_table(a, CG_GPROF_EXCL_TIME, c)) {
			s[c].prop_fract = 0.0;
		}
		s[c].prop_self = s[c].time * s[c].prop_fract;
		a->print_time += s[c].prop_self;
	}
}

/* Time goes from callees to callers through the graph engine, which does
 * gprof's arithmetic in gprof's order (components callees first, members
 * of a cycle in symbol order, child lists in list order); a symbol whose
 * propagation fraction is 0 takes no part.  Each arc that carries time
 * comes back here at once, in that order, to be scaled by its caller's
 * fraction and summed into its caller and the caller's cycle exactly as
 * gprof does. */
static void carry_arc(void *ctx, uint32_t p, uint32_t arc_index, const double *edge_self,
		      const double *edge_child)
{
	cg_gprof_analysis *a = ctx;
	gp_sym *ps = &a->syms[p];
	gp_arc *arc = &a->arcs[arc_index];
	double share = edge_self[0] + edge_child[0];
	ps->child_time += share;
	double prop_share = ps->prop_fract * share;
	ps->prop_child += prop_share;
	arc->time = edge_self[0] * ps->prop_fract;
	arc->child_time = edge_child[0] * ps->prop_fract;
	if (ps->head != p) {
		a->syms[ps->head].child_time += share;
		a->syms[ps->head].prop_child += prop_share;
	}
}

static int propagate_time(cg_gprof_analysis *a, cg_error *err)
{
	gp_sym *s = a->syms;
	uint32_t n = a->nsyms, nc = a->scc.ncomps;
	double *self = malloc(((size_t)n + 1) * sizeof *self);
	double *comp_self = malloc(((size_t)nc + 1) * sizeof *comp_self);
	unsigned char *excluded = malloc((size_t)n + 1);
	int rc = CG_ENOMEM;
	if (self && comp_self && excluded) {
		for (uint32_t i = 0; i < n; i++) {
			self[i] = s[i].time;
			excluded[i] = s[i].prop_fract == 0.0;
		}
		cg_propagation io = {
			.nev = 1, .self = self, .excluded = excluded,
			.carry = carry_arc, .ctx = a, .comp_self = comp_self,
		};
		rc = cg_graph_propagate(&a->graph, &a->scc, &io);
	}
	/* Cycle symbols: the time of their members (those with a fraction of
	 * 0 add none, as in gprof). */
	for (uint32_t k = 0; k < a->ncycles && !rc; k++) {
		gp_sym *y = &s[n + k];
		y->time = comp_self[a->scc.comp[y->next]];
		y->prop_self = y->prop_fract * y->time;
	}
	free(self);
	free(comp_self);
	free(excluded);
	if (rc)
		return cg_error_set(err, rc, "gprof: out of memory");
	return 0;
}

static int cmp_total(const void *ctx, uint32_t l, uint32_t r)
{
	const cg_gprof_analysis *a = ctx;
	const gp_sym *ls = &a->syms[l], *rs = &a->syms[r];
	double diff = (ls->prop_self + ls->prop_child) - (rs->prop_self + rs->prop_child);
	if (diff < 0.0)
		return 1;
	if (diff > 0.0)
		return -1;
	/* Deliberately gprof's: a cycle symbol always claims to come first,
	 * even against another cycle symbol. */
	if (!ls->name && ls->cycle != 0)
		return -1;
	if (!rs->name && rs->cycle != 0)
		return 1;
	if (!ls->name)
		return -1;
	if (!rs->name)
		return 1;
	if (ls->name[0] != '_' && rs->name[0] == '_')
		return -1;
	if (ls->name[0] == '_' && rs->name[0] != '_')
		return 1;
	if (ls->ncalls > rs->ncalls)
		return -1;
	if (ls->ncalls < rs->ncalls)
		return 1;
	return strcmp(ls->name, rs->name);
}

/* Runs of consecutive symbols that cmp_total cannot tell apart: named,
 * same name pointer, calls and total (a function's line symbols mostly). */
typedef struct run_sort {
	const cg_gprof_analysis *a;
	const uint32_t *first;    /* run -> its first symbol */
} run_sort;

static int cmp_run(const void *ctx, uint32_t l, uint32_t r)
{
	const run_sort *rs = ctx;
	return cmp_total(rs->a, rs->first[l], rs->first[r]);
}

static double sym_total(const gp_sym *s)
{
	return s->prop_self + s->prop_child;
}

static int same_run(const gp_sym *prev, const gp_sym *s)
{
	return s->name && s->name == prev->name && s->ncalls == prev->ncalls &&
	       sym_total(s) == sym_total(prev);
}

/* gprof's index order: its merge sort of all symbols and cycles by
 * cmp_total.  The merge only ever asks cmp(left, right) and takes the
 * left one on <= 0, so cmp_total's one inconsistency (two cycles of equal
 * time both claim to come first) acts as a tie, and without a NaN total
 * the sort is a stable sort by a consistent order.  Its result is then
 * that of sorting runs of symbols the order cannot tell apart and laying
 * each run out in place, which with line symbols sorts a tenth of the
 * items. */
static int index_sort(cg_gprof_analysis *a, uint32_t total)
{
	uint32_t *order = a->index_order;
	for (uint32_t i = 0; i < total; i++) {
		if (isnan(sym_total(&a->syms[i]))) {
			for (uint32_t k = 0; k < total; k++)
				order[k] = k;
			return cg_gp_msort(order, total, cmp_total, a);
		}
	}
	uint32_t *first = malloc(((size_t)total + 1) * sizeof *first);
	uint32_t *runs = malloc(((size_t)total + 1) * sizeof *runs);
	if (!first || !runs) {
		free(first);
		free(runs);
		return CG_ENOMEM;
	}
	uint32_t nruns = 0;
	for (uint32_t i = 0; i < total; i++) {
		if (i == 0 || !same_run(&a->syms[i - 1], &a->syms[i]))
			first[nruns++] = i;
	}
	first[nruns] = total;
	for (uint32_t k = 0; k < nruns; k++)
		runs[k] = k;
	run_sort ctx = { a, first };
	int rc = cg_gp_msort(runs, nruns, cmp_run, &ctx);
	if (!rc) {
		uint32_t n = 0;
		for (uint32_t k = 0; k < nruns; k++)
			for (uint32_t i = first[runs[k]]; i < first[runs[k] + 1]; i++)
				order[n++] = i;
	}
	free(first);
	free(runs);
	return rc;
}

int cg_gp_propagate(cg_gprof_analysis *a, cg_error *err)
{
	uint32_t total = a->nsyms + a->ncycles;
	/* Symbols by topological number, callees first, in symbol order within
	 * a cycle: gprof's stable sort, which the engine's `sorted` already is. */
	const uint32_t *order = a->scc.sorted;
	a->index_order = malloc(((size_t)total + 1) * sizeof *a->index_order);
	if (!a->index_order)
		return cg_error_set(err, CG_ENOMEM, "gprof: out of memory");
	propagate_flags(a, order);
	int rc = propagate_time(a, err);
	/* The report needs neither again: give the memory back before it. */
	cg_graph_free(&a->graph);
	cg_scc_free(&a->scc);
	if (rc)
		return rc;
	if (a->opts.use_exact_inclusive) {
		rc = cg_gp_exact_inclusive(a, a->arc_of_model, err);
		if (rc)
			return rc;
	}
	rc = index_sort(a, total);
	if (rc)
		return cg_error_set(err, rc, "gprof: out of memory");
	for (uint32_t i = 0; i < total; i++)
		a->syms[a->index_order[i]].index = i + 1;
	return 0;
}
