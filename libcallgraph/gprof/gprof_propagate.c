/*
 * gprof_propagate.c — print flags, propagation fractions, time
 * propagation and index numbers, in gprof's order of operations.
 *
 * Doubles are combined exactly as gprof combines them (count/ncalls first,
 * then the product; sums in list order), because the sorts that follow
 * compare these doubles for equality and ties are frequent.
 */
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
 * gprof's arithmetic in gprof's order; a symbol whose propagation
 * fraction is 0 takes no part.  What the engine leaves to gprof is the
 * scaling by the caller's fraction, done here in the same order (members
 * in symbol order within a cycle, child lists in list order). */
static int propagate_time(cg_gprof_analysis *a, const uint32_t *order, cg_error *err)
{
	gp_sym *s = a->syms;
	uint32_t n = a->nsyms, nc = a->scc.ncomps;
	double *self = malloc(((size_t)n + 1) * sizeof *self);
	double *node_child = malloc(((size_t)n + 1) * sizeof *node_child);
	double *comp_self = malloc(((size_t)nc + 1) * sizeof *comp_self);
	double *comp_child = malloc(((size_t)nc + 1) * sizeof *comp_child);
	double *edge_self = calloc((size_t)a->narcs + 1, sizeof *edge_self);
	double *edge_child = calloc((size_t)a->narcs + 1, sizeof *edge_child);
	unsigned char *excluded = malloc((size_t)n + 1);
	unsigned char *carried = calloc((size_t)a->narcs + 1, 1);
	int rc = CG_ENOMEM;
	if (!self || !node_child || !comp_self || !comp_child || !edge_self || !edge_child ||
	    !excluded || !carried)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		self[i] = s[i].time;
		excluded[i] = s[i].prop_fract == 0.0;
	}
	cg_propagation io = {
		.nev = 1, .self = self, .excluded = excluded,
		.edge_self = edge_self, .edge_child = edge_child, .edge_carried = carried,
		.node_child = node_child, .comp_self = comp_self, .comp_child = comp_child,
	};
	rc = cg_graph_propagate(&a->graph, &a->scc, &io);
	if (rc)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = order[i];
		gp_sym *ps = &s[p];
		ps->child_time = node_child[p];
		for (uint32_t k = 0; k < ps->nchildren; k++) {
			uint32_t arc_index = a->child_lists[ps->first_child + k];
			if (!carried[arc_index])
				continue;
			gp_arc *arc = &a->arcs[arc_index];
			double prop_share = ps->prop_fract * (edge_self[arc_index] + edge_child[arc_index]);
			ps->prop_child += prop_share;
			arc->time = edge_self[arc_index] * ps->prop_fract;
			arc->child_time = edge_child[arc_index] * ps->prop_fract;
			if (ps->head != p)
				s[ps->head].prop_child += prop_share;
		}
	}
	/* Cycle symbols: the component's sums (members with a fraction of 0
	 * add no time, as in gprof). */
	for (uint32_t k = 0; k < a->ncycles; k++) {
		gp_sym *y = &s[n + k];
		uint32_t c = a->scc.comp[y->next];
		y->time = comp_self[c];
		y->child_time = comp_child[c];
		y->prop_self = y->prop_fract * y->time;
	}
	rc = 0;
out:
	free(self);
	free(node_child);
	free(comp_self);
	free(comp_child);
	free(edge_self);
	free(edge_child);
	free(excluded);
	free(carried);
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
	int rc = propagate_time(a, order, err);
	if (rc)
		return rc;
	if (a->opts.use_exact_inclusive) {
		rc = cg_gp_exact_inclusive(a, a->arc_of_model, err);
		if (rc)
			return rc;
	}
	for (uint32_t i = 0; i < total; i++)
		a->index_order[i] = i;
	rc = cg_gp_msort(a->index_order, total, cmp_total, a);
	if (rc)
		return cg_error_set(err, rc, "gprof: out of memory");
	for (uint32_t i = 0; i < total; i++)
		a->syms[a->index_order[i]].index = i + 1;
	return 0;
}
