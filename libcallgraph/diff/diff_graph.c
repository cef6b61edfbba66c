/*
 * diff_graph.c — the graph work cgdiff needs before comparing: cycles
 * (strongly connected components) and gprof-style proportional inclusive
 * costs for inputs that only have arcs (gmon.out).  Both come from the
 * graph engine (graph/graph.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff_internal.h"
#include "graph.h"

int cg_diff_cycles(const cg_profile *p, uint32_t *cycle_of, cg_error *err)
{
	/* One part: gprof's own cycles, so cgdiff groups exactly what cgprof
	 * prints as a cycle.  Several parts: the components of their union. */
	uint32_t ncycles;
	if (cg_profile_part_count(p) == 1 && cg_gprof_cycles(p, 0, cycle_of, &ncycles, NULL) == 0)
		return 0;
	cg_graph g;
	cg_scc s = { 0 };
	if (cg_graph_from_profile(&g, p, CG_GRAPH_ALL_PARTS))
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	uint32_t *number = NULL;
	if (cg_graph_scc(&s, &g, 0) || !(number = calloc((size_t)s.ncomps + 1, sizeof *number))) {
		cg_scc_free(&s);
		cg_graph_free(&g);
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	}
	/* Cycles numbered in the order of their lowest function. */
	uint32_t next = 0;
	for (uint32_t v = 0; v < g.nnodes; v++) {
		uint32_t c = s.comp[v];
		if (cg_scc_size(&s, c) < 2) {
			cycle_of[v] = 0;
			continue;
		}
		if (!number[c])
			number[c] = ++next;
		cycle_of[v] = number[c];
	}
	free(number);
	cg_scc_free(&s);
	cg_graph_free(&g);
	return 0;
}

int cg_diff_propagate(const cg_profile *p, unsigned part, cg_cost *out, cg_error *err)
{
	size_t nev = cg_profile_event_count(p);
	if (nev == 0)
		return 0;
	cg_graph g;
	cg_scc s = { 0 };
	if (cg_graph_from_profile(&g, p, (int)part))
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	size_t n = g.nnodes;
	double *self = malloc((n ? n : 1) * nev * sizeof *self);
	double *child = malloc((n ? n : 1) * nev * sizeof *child);
	int rc = cg_graph_scc(&s, &g, 0);
	if (!rc && (!self || !child))
		rc = CG_ENOMEM;
	if (!rc) {
		for (size_t v = 0; v < n; v++) {
			const cg_cost *c = cg_profile_self(p, part, (cg_fid)v);
			for (size_t e = 0; e < nev; e++)
				self[v * nev + e] = (double)c[e];
		}
		cg_propagation io = { .nev = nev, .self = self, .node_child = child };
		rc = cg_graph_propagate(&g, &s, &io);
	}
	/* A function's inclusive cost: its own plus its shares of the
	 * components it calls. */
	size_t too_big = SIZE_MAX;
	for (size_t i = 0; i < n * nev && !rc; i++) {
		double v = self[i] + child[i];
		/* 2^63 and beyond has no cg_cost: refused, not rounded to
		 * whatever llround gives */
		if (!(fabs(v) < 9223372036854775808.0)) {
			too_big = i / nev;
			break;
		}
		out[i] = (cg_cost)llround(v);
	}
	free(self);
	free(child);
	cg_scc_free(&s);
	cg_graph_free(&g);
	if (rc)
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	if (too_big != SIZE_MAX)
		return cg_error_set(err, CG_EFORMAT,
				    "the inclusive cost of %s does not fit in 64 bits; refusing to compare",
				    cg_profile_function(p, (cg_fid)too_big)->name);
	return 0;
}
