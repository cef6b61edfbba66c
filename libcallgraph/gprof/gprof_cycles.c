/*
 * gprof_cycles.c — gprof's depth-first numbering and cycle discovery, on
 * the graph engine (graph/graph.h).
 *
 * gprof numbers symbols in the order its search finishes them (a cycle
 * when its head finishes), takes as a cycle's head the member through
 * which the search first entered it, chains the members in the order the
 * search reached them and numbers cycles by the head's address.  All of
 * that shows in the report; the engine's Tarjan search visits nodes and
 * edges in the same order and gives exactly these (graph.h says how), so
 * this file only translates: the call graph goes in as the symbols' child
 * lists, in gprof's list order.
 */
#include <stdlib.h>
#include "gprof_internal.h"

/* The symbols' child lists as the engine's graph: node = symbol, edges in
 * child-list order, arc numbers = gprof arc indices. */
static int build_graph(cg_gprof_analysis *a)
{
	cg_graph *g = &a->graph;
	if (cg_graph_alloc(g, a->nsyms, a->narcs))
		return CG_ENOMEM;
	for (uint32_t i = 0; i < a->nsyms; i++)
		g->start[i] = a->syms[i].first_child;
	g->start[a->nsyms] = a->narcs;
	for (uint32_t k = 0; k < a->narcs; k++) {
		uint32_t arc = a->child_lists[k];
		g->target[k] = a->arcs[arc].child;
		g->count[k] = a->arcs[arc].count;
	}
	/* the child lists already say which arc each position is */
	free(g->arc);
	g->arc = a->child_lists;
	g->arc_borrowed = 1;
	return 0;
}

/* Number the cycles by the address of their head, create their pseudo
 * symbols and count calls into and within each cycle. */
static int link_cycles(cg_gprof_analysis *a, cg_error *err)
{
	uint32_t n = a->nsyms, ncyc = 0;
	for (uint32_t i = 0; i < n; i++)
		if (a->syms[i].head == i && a->syms[i].next != GP_NONE)
			ncyc++;
	a->ncycles = ncyc;
	if (!ncyc)
		return 0;
	gp_sym *ns = realloc(a->syms, ((size_t)n + ncyc) * sizeof *ns);
	if (!ns)
		return cg_error_set(err, CG_ENOMEM, "gprof: out of memory");
	a->syms = ns;
	gp_sym *s = a->syms;

	uint32_t num = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!(s[i].head == i && s[i].next != GP_NONE))
			continue;
		num++;
		uint32_t cy = n + num - 1;
		gp_sym *c = &s[cy];
		*c = (gp_sym){ 0 };
		c->fid = CG_NO_FUNC;
		c->print_flag = 1;
		c->cycle = num;
		c->head = cy;
		c->next = i;
		c->first_child = c->first_parent = 0;
		for (uint32_t m = i; m != GP_NONE; m = s[m].next) {
			s[m].cycle = num;
			s[m].head = cy;
		}
		for (uint32_t m = i; m != GP_NONE; m = s[m].next) {
			for (uint32_t k = 0; k < s[m].nparents; k++) {
				const gp_arc *arc = &a->arcs[a->parent_lists[s[m].first_parent + k]];
				if (arc->parent == m)
					continue;
				if (s[arc->parent].cycle == num)
					c->self_calls += arc->count;
				else
					c->ncalls += arc->count;
			}
		}
	}
	return 0;
}

int cg_gp_find_cycles(cg_gprof_analysis *a, cg_error *err)
{
	if (build_graph(a) || cg_graph_scc(&a->scc, &a->graph, 0))
		return cg_error_set(err, CG_ENOMEM, "gprof: out of memory");
	const cg_scc *scc = &a->scc;
	gp_sym *s = a->syms;
	for (uint32_t c = 0; c < scc->ncomps; c++) {
		const uint32_t *m = scc->found + scc->first[c];
		uint32_t size = cg_scc_size(scc, c);
		for (uint32_t k = 0; k < size; k++) {
			s[m[k]].top = (int)c + 1;
			s[m[k]].head = size > 1 ? m[0] : m[k];
			s[m[k]].next = k + 1 < size ? m[k + 1] : GP_NONE;
			s[m[k]].cycle = 0;
		}
	}
	return link_cycles(a, err);
}
