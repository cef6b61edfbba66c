/*
 * diff_graph.c — the graph work cgdiff needs before comparing: cycles
 * (strongly connected components) and gprof-style proportional inclusive
 * costs for inputs that only have arcs (gmon.out).
 *
 * Tarjan's algorithm, iterative so that deep call chains (40k functions)
 * cannot overflow the stack.  It emits components callees-first, which is
 * exactly the order propagation needs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff_internal.h"

#define UNSEEN UINT32_MAX

struct graph {
	size_t n;
	size_t *start;      /* n + 1: out-edges of v are edge[start[v]..start[v+1]) */
	uint32_t *to;
	uint64_t *count;
};

static void graph_release(struct graph *g)
{
	free(g->start);
	free(g->to);
	free(g->count);
}

/* Out-edges of every function over `part` (all parts when part < 0). */
static int graph_build(struct graph *g, const cg_profile *p, int part)
{
	memset(g, 0, sizeof *g);
	g->n = cg_profile_function_count(p);
	size_t np = cg_profile_part_count(p), m = 0;
	for (unsigned q = 0; q < np; q++)
		if (part < 0 || (unsigned)part == q)
			m += cg_profile_arc_count(p, q);
	g->start = calloc(g->n + 2, sizeof *g->start);
	g->to = malloc((m ? m : 1) * sizeof *g->to);
	g->count = malloc((m ? m : 1) * sizeof *g->count);
	if (!g->start || !g->to || !g->count) {
		graph_release(g);
		return CG_ENOMEM;
	}
	for (unsigned q = 0; q < np; q++)
		if (part < 0 || (unsigned)part == q)
			for (size_t i = 0; i < cg_profile_arc_count(p, q); i++)
				g->start[cg_profile_arc(p, q, i)->caller + 2]++;
	for (size_t v = 0; v < g->n; v++)
		g->start[v + 2] += g->start[v + 1];
	for (unsigned q = 0; q < np; q++)
		if (part < 0 || (unsigned)part == q)
			for (size_t i = 0; i < cg_profile_arc_count(p, q); i++) {
				const cg_arc *a = cg_profile_arc(p, q, i);
				size_t k = g->start[a->caller + 1]++;
				g->to[k] = a->callee;
				g->count[k] = a->count;
			}
	return 0;
}

/* comp[v] = component number (0-based, in emission order: callees first).
 * Returns the number of components or a negative code. */
static long tarjan(const struct graph *g, uint32_t *comp)
{
	size_t n = g->n;
	uint32_t *index = malloc((n ? n : 1) * sizeof *index);
	uint32_t *low = malloc((n ? n : 1) * sizeof *low);
	uint32_t *stack = malloc((n ? n : 1) * sizeof *stack);
	uint32_t *call_v = malloc((n ? n : 1) * sizeof *call_v);
	size_t *call_e = malloc((n ? n : 1) * sizeof *call_e);
	unsigned char *on = calloc(n ? n : 1, 1);
	long ncomp = 0;
	if (!index || !low || !stack || !call_v || !call_e || !on) {
		ncomp = CG_ENOMEM;
		goto out;
	}
	for (size_t v = 0; v < n; v++)
		index[v] = UNSEEN;
	uint32_t next = 0;
	size_t sp = 0;
	for (size_t root = 0; root < n; root++) {
		if (index[root] != UNSEEN)
			continue;
		size_t depth = 0;
		call_v[0] = (uint32_t)root;
		call_e[0] = g->start[root];
		index[root] = low[root] = next++;
		stack[sp++] = (uint32_t)root;
		on[root] = 1;
		while (1) {
			uint32_t v = call_v[depth];
			if (call_e[depth] < g->start[v + 1]) {
				uint32_t w = g->to[call_e[depth]++];
				if (index[w] == UNSEEN) {
					index[w] = low[w] = next++;
					stack[sp++] = w;
					on[w] = 1;
					depth++;
					call_v[depth] = w;
					call_e[depth] = g->start[w];
				} else if (on[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			if (low[v] == index[v]) {
				uint32_t w;
				do {
					w = stack[--sp];
					on[w] = 0;
					comp[w] = (uint32_t)ncomp;
				} while (w != v);
				ncomp++;
			}
			if (depth == 0)
				break;
			depth--;
			uint32_t u = call_v[depth];
			if (low[v] < low[u])
				low[u] = low[v];
		}
	}
out:
	free(index);
	free(low);
	free(stack);
	free(call_v);
	free(call_e);
	free(on);
	return ncomp;
}

int cg_diff_cycles(const cg_profile *p, uint32_t *cycle_of, cg_error *err)
{
	/* One part: gprof's own cycles, so cgdiff groups exactly what cgprof
	 * prints as a cycle.  Several parts: the components of their union. */
	uint32_t ncycles;
	if (cg_profile_part_count(p) == 1 && cg_gprof_cycles(p, 0, cycle_of, &ncycles, NULL) == 0)
		return 0;
	struct graph g;
	if (graph_build(&g, p, -1))
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	uint32_t *comp = malloc((g.n ? g.n : 1) * sizeof *comp);
	long nc = comp ? tarjan(&g, comp) : CG_ENOMEM;
	uint32_t *size = nc >= 0 ? calloc((size_t)nc + 1, sizeof *size) : NULL;
	uint32_t *number = nc >= 0 ? calloc((size_t)nc + 1, sizeof *number) : NULL;
	if (nc < 0 || !size || !number) {
		free(comp);
		free(size);
		free(number);
		graph_release(&g);
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	}
	for (size_t v = 0; v < g.n; v++)
		size[comp[v]]++;
	uint32_t next = 0;
	for (size_t v = 0; v < g.n; v++) {
		uint32_t c = comp[v];
		if (size[c] < 2) {
			cycle_of[v] = 0;
			continue;
		}
		if (!number[c])
			number[c] = ++next;
		cycle_of[v] = number[c];
	}
	free(comp);
	free(size);
	free(number);
	graph_release(&g);
	return 0;
}

int cg_diff_propagate(const cg_profile *p, unsigned part, cg_cost *out, cg_error *err)
{
	struct graph g;
	size_t nev = cg_profile_event_count(p);
	if (graph_build(&g, p, (int)part))
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	size_t n = g.n;
	uint32_t *comp = malloc((n ? n : 1) * sizeof *comp);
	long nc = comp ? tarjan(&g, comp) : CG_ENOMEM;
	double *total = nc >= 0 ? calloc(((size_t)nc + 1) * (nev ? nev : 1), sizeof *total) : NULL;
	double *ext = nc >= 0 ? calloc((size_t)nc + 1, sizeof *ext) : NULL;
	size_t *first = nc >= 0 ? malloc(((size_t)nc + 2) * sizeof *first) : NULL;
	uint32_t *members = malloc((n ? n : 1) * sizeof *members);
	double *acc = malloc((nev ? nev : 1) * sizeof *acc);
	int rc = 0;
	if (nc < 0 || !total || !ext || !first || !members || !acc) {
		rc = cg_error_set(err, CG_ENOMEM, "out of memory");
		goto out;
	}
	/* Calls into each component from outside it. */
	for (size_t v = 0; v < n; v++)
		for (size_t k = g.start[v]; k < g.start[v + 1]; k++)
			if (comp[g.to[k]] != comp[v])
				ext[comp[g.to[k]]] += (double)g.count[k];
	/* Members grouped by component (counting sort). */
	memset(first, 0, ((size_t)nc + 2) * sizeof *first);
	for (size_t v = 0; v < n; v++)
		first[comp[v] + 1]++;
	for (long c = 0; c < nc; c++)
		first[c + 1] += first[c];
	for (size_t v = 0; v < n; v++)
		members[first[comp[v]]++] = (uint32_t)v;
	for (long c = nc; c > 0; c--)
		first[c] = first[c - 1];
	first[0] = 0;
	/* Callees first: a component's callees are final when it is reached. */
	for (long c = 0; c < nc; c++) {
		double *t = total + (size_t)c * nev;
		for (size_t i = first[c]; i < first[c + 1]; i++) {
			uint32_t v = members[i];
			const cg_cost *self = cg_profile_self(p, part, v);
			for (size_t e = 0; e < nev; e++)
				acc[e] = (double)self[e];
			for (size_t k = g.start[v]; k < g.start[v + 1]; k++) {
				uint32_t w = g.to[k];
				if (comp[w] == (uint32_t)c || ext[comp[w]] <= 0)
					continue;
				double share = (double)g.count[k] / ext[comp[w]];
				for (size_t e = 0; e < nev; e++)
					acc[e] += share * total[(size_t)comp[w] * nev + e];
			}
			for (size_t e = 0; e < nev; e++) {
				/* 2^63 and beyond has no cg_cost: refused, not
				 * rounded to whatever llround gives */
				if (!(fabs(acc[e]) < 9223372036854775808.0)) {
					rc = cg_error_set(err, CG_EFORMAT,
							  "the inclusive cost of %s does not fit in 64 "
							  "bits; refusing to compare",
							  cg_profile_function(p, v)->name);
					goto out;
				}
				t[e] += acc[e];
				out[(size_t)v * nev + e] = (cg_cost)llround(acc[e]);
			}
		}
	}
out:
	free(comp);
	free(total);
	free(ext);
	free(first);
	free(members);
	free(acc);
	graph_release(&g);
	return rc;
}
