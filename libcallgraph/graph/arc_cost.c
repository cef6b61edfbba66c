/*
 * arc_cost.c — SCCs of a part's call graph and per-arc inclusive costs.
 */
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "arc_cost.h"

/* Outgoing adjacency of a part in CSR form (arc indexes per caller). */
struct adjacency {
	uint32_t *start;   /* nfuncs + 1 */
	uint32_t *arcs;    /* arc indexes grouped by caller */
};

static int adjacency_build(const cg_profile *p, unsigned part, struct adjacency *adj)
{
	size_t nf = cg_profile_function_count(p), na = cg_profile_arc_count(p, part);
	adj->start = calloc(nf + 1, sizeof *adj->start);
	adj->arcs = malloc((na ? na : 1) * sizeof *adj->arcs);
	if (!adj->start || !adj->arcs)
		return CG_ENOMEM;
	for (size_t i = 0; i < na; i++)
		adj->start[cg_profile_arc(p, part, i)->caller + 1]++;
	for (size_t f = 0; f < nf; f++)
		adj->start[f + 1] += adj->start[f];
	uint32_t *fill = malloc((nf ? nf : 1) * sizeof *fill);
	if (!fill)
		return CG_ENOMEM;
	memcpy(fill, adj->start, nf * sizeof *fill);
	for (size_t i = 0; i < na; i++)
		adj->arcs[fill[cg_profile_arc(p, part, i)->caller]++] = (uint32_t)i;
	free(fill);
	return 0;
}

static void adjacency_free(struct adjacency *adj)
{
	free(adj->start);
	free(adj->arcs);
}

int cg_graph_scc(const cg_profile *p, unsigned part, uint32_t *comp, uint32_t *ncomp,
	     uint32_t *size)
{
	size_t nf = cg_profile_function_count(p);
	struct adjacency adj = { 0 };
	uint32_t *index = malloc((nf ? nf : 1) * sizeof *index);
	uint32_t *low = malloc((nf ? nf : 1) * sizeof *low);
	uint32_t *stack = malloc((nf ? nf : 1) * sizeof *stack);
	uint32_t *call = malloc((nf ? nf : 1) * sizeof *call);   /* DFS stack */
	uint32_t *next = malloc((nf ? nf : 1) * sizeof *next);   /* next edge per node */
	unsigned char *onstack = calloc(nf ? nf : 1, 1);
	int rc = CG_ENOMEM;
	if (!index || !low || !stack || !call || !next || !onstack ||
	    adjacency_build(p, part, &adj))
		goto out;
	const uint32_t unvisited = UINT32_MAX;
	for (size_t f = 0; f < nf; f++)
		index[f] = unvisited;
	uint32_t counter = 0, sp = 0, nc = 0;
	for (size_t root = 0; root < nf; root++) {
		if (index[root] != unvisited)
			continue;
		uint32_t depth = 0;
		call[depth++] = (uint32_t)root;
		index[root] = low[root] = counter++;
		next[root] = adj.start[root];
		stack[sp++] = (uint32_t)root;
		onstack[root] = 1;
		while (depth) {
			uint32_t v = call[depth - 1];
			if (next[v] < adj.start[v + 1]) {
				const cg_arc *a = cg_profile_arc(p, part, adj.arcs[next[v]++]);
				if (a->count == 0)
					continue;
				uint32_t w = a->callee;
				if (index[w] == unvisited) {
					index[w] = low[w] = counter++;
					next[w] = adj.start[w];
					stack[sp++] = w;
					onstack[w] = 1;
					call[depth++] = w;
				} else if (onstack[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			depth--;
			if (depth && low[v] < low[call[depth - 1]])
				low[call[depth - 1]] = low[v];
			if (low[v] == index[v]) {
				uint32_t members = 0, w;
				do {
					w = stack[--sp];
					onstack[w] = 0;
					comp[w] = nc;
					members++;
				} while (w != v);
				if (size)
					size[nc] = members;
				nc++;
			}
		}
	}
	*ncomp = nc;
	rc = 0;
out:
	adjacency_free(&adj);
	free(index);
	free(low);
	free(stack);
	free(call);
	free(next);
	free(onstack);
	return rc;
}

int cg_graph_arc_costs(const cg_profile *p, unsigned part, const double *self,
		   const double *scale, double *arc_incl)
{
	size_t nf = cg_profile_function_count(p), na = cg_profile_arc_count(p, part);
	size_t nev = cg_profile_event_count(p);
	int need = 0;
	for (size_t i = 0; i < na; i++) {
		const cg_arc *a = cg_profile_arc(p, part, i);
		for (size_t e = 0; e < nev; e++)
			arc_incl[i * nev + e] = a->inclusive ? (double)a->inclusive[e] * scale[e] : 0;
		if (!a->inclusive && a->count)
			need = 1;
	}
	if (!need)
		return 0;

	uint32_t *comp = malloc((nf ? nf : 1) * sizeof *comp), nc = 0;
	double *total = NULL, *in_calls = NULL;
	uint32_t *order = NULL, *ostart = NULL;
	int rc = CG_ENOMEM;
	if (!comp || cg_graph_scc(p, part, comp, &nc, NULL))
		goto out;
	total = calloc((size_t)(nc ? nc : 1) * (nev ? nev : 1), sizeof *total);
	in_calls = calloc(nc ? nc : 1, sizeof *in_calls);
	/* arcs grouped by the component of their caller */
	ostart = calloc((size_t)nc + 1, sizeof *ostart);
	order = malloc((na ? na : 1) * sizeof *order);
	if (!total || !in_calls || !ostart || !order)
		goto out;
	for (size_t f = 0; f < nf; f++)
		for (size_t e = 0; e < nev; e++)
			total[(size_t)comp[f] * nev + e] += self[f * nev + e];
	for (size_t i = 0; i < na; i++) {
		const cg_arc *a = cg_profile_arc(p, part, i);
		ostart[comp[a->caller] + 1]++;
		if (a->count && comp[a->caller] != comp[a->callee])
			in_calls[comp[a->callee]] += (double)a->count;
	}
	for (uint32_t c = 0; c < nc; c++)
		ostart[c + 1] += ostart[c];
	{
		uint32_t *fill = malloc(((size_t)nc + 1) * sizeof *fill);
		if (!fill)
			goto out;
		memcpy(fill, ostart, ((size_t)nc + 1) * sizeof *fill);
		for (size_t i = 0; i < na; i++)
			order[fill[comp[cg_profile_arc(p, part, i)->caller]]++] = (uint32_t)i;
		free(fill);
	}
	/* Components come callees first, so every arc leaving component c
	 * already has its cost when c's total is formed. */
	for (uint32_t c = 0; c < nc; c++) {
		for (uint32_t k = ostart[c]; k < ostart[c + 1]; k++) {
			uint32_t i = order[k];
			const cg_arc *a = cg_profile_arc(p, part, i);
			if (comp[a->callee] == c)
				continue;
			if (!a->inclusive) {
				uint32_t d = comp[a->callee];
				double share = in_calls[d] > 0 ? (double)a->count / in_calls[d] : 0;
				for (size_t e = 0; e < nev; e++)
					arc_incl[(size_t)i * nev + e] = total[(size_t)d * nev + e] * share;
			}
			for (size_t e = 0; e < nev; e++)
				total[(size_t)c * nev + e] += arc_incl[(size_t)i * nev + e];
		}
	}
	rc = 0;
out:
	free(comp);
	free(total);
	free(in_calls);
	free(ostart);
	free(order);
	return rc;
}
