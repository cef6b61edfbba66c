/*
 * graph.c — the one SCC and the one propagation of the library (graph.h).
 */
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "graph.h"

/* malloc of n items of `size` bytes, at least one item, n * size checked. */
static void *alloc_array(size_t n, size_t size)
{
	if (n == 0)
		n = 1;
	if (n > SIZE_MAX / size)
		return NULL;
	return malloc(n * size);
}

static void *zalloc_array(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

int cg_graph_alloc(cg_graph *g, uint32_t nnodes, uint32_t nedges)
{
	memset(g, 0, sizeof *g);
	g->nnodes = nnodes;
	g->nedges = nedges;
	g->start = zalloc_array((size_t)nnodes + 1, sizeof *g->start);
	g->target = alloc_array(nedges, sizeof *g->target);
	g->count = alloc_array(nedges, sizeof *g->count);
	g->arc = alloc_array(nedges, sizeof *g->arc);
	if (!g->start || !g->target || !g->count || !g->arc) {
		cg_graph_free(g);
		return CG_ENOMEM;
	}
	return 0;
}

void cg_graph_free(cg_graph *g)
{
	free(g->start);
	free(g->target);
	free(g->count);
	if (!g->arc_borrowed)
		free(g->arc);
	memset(g, 0, sizeof *g);
}

int cg_graph_from_profile(cg_graph *g, const cg_profile *p, int part)
{
	size_t nf = cg_profile_function_count(p), np = cg_profile_part_count(p), m = 0;
	for (unsigned q = 0; q < np; q++)
		if (part < 0 || (unsigned)part == q)
			m += cg_profile_arc_count(p, q);
	if (nf >= UINT32_MAX || m >= UINT32_MAX)
		return CG_ENOMEM;
	if (cg_graph_alloc(g, (uint32_t)nf, (uint32_t)m))
		return CG_ENOMEM;
	/* Counting sort by caller: start[v + 1] first counts v's edges. */
	for (unsigned q = 0; q < np; q++)
		if (part < 0 || (unsigned)part == q)
			for (size_t i = 0; i < cg_profile_arc_count(p, q); i++)
				g->start[cg_profile_arc(p, q, i)->caller + 1]++;
	for (size_t v = 0; v < nf; v++)
		g->start[v + 1] += g->start[v];
	uint32_t *fill = alloc_array(nf, sizeof *fill);
	if (!fill) {
		cg_graph_free(g);
		return CG_ENOMEM;
	}
	memcpy(fill, g->start, nf * sizeof *fill);
	for (unsigned q = 0; q < np; q++)
		if (part < 0 || (unsigned)part == q)
			for (size_t i = 0; i < cg_profile_arc_count(p, q); i++) {
				const cg_arc *a = cg_profile_arc(p, q, i);
				uint32_t k = fill[a->caller]++;
				g->target[k] = a->callee;
				g->count[k] = a->count;
				g->arc[k] = (uint32_t)i;
			}
	free(fill);
	return 0;
}

void cg_scc_free(cg_scc *s)
{
	free(s->comp);
	free(s->first);
	free(s->found);
	free(s->sorted);
	memset(s, 0, sizeof *s);
}

#define UNSEEN UINT32_MAX

/* Tarjan's algorithm with an explicit search stack.  Components come out
 * when their root finishes, callees first; the root is the member the
 * search reached first and the members sit above it on Tarjan's stack in
 * the order they were reached, which is what `found` records. */
int cg_graph_scc(cg_scc *out, const cg_graph *g, unsigned flags)
{
	uint32_t n = g->nnodes;
	int skip_uncalled = (flags & CG_SCC_SKIP_UNCALLED) && g->count;
	memset(out, 0, sizeof *out);
	out->nnodes = n;
	out->comp = alloc_array(n, sizeof *out->comp);
	out->first = alloc_array((size_t)n + 1, sizeof *out->first);
	out->found = alloc_array(n, sizeof *out->found);
	out->sorted = alloc_array(n, sizeof *out->sorted);
	uint32_t *index = alloc_array(n, sizeof *index);
	uint32_t *low = alloc_array(n, sizeof *low);
	/* Tarjan's stack lives in `sorted`, which is only filled at the end. */
	uint32_t *stack = out->sorted;
	uint32_t *path = alloc_array(n, sizeof *path);     /* the search path */
	uint32_t *next = alloc_array(n, sizeof *next);     /* next edge per node */
	unsigned char *on_stack = zalloc_array(n, 1);
	int rc = CG_ENOMEM;
	if (!out->comp || !out->first || !out->found || !out->sorted || !index || !low ||
	    !stack || !path || !next || !on_stack)
		goto done;
	for (uint32_t v = 0; v < n; v++)
		index[v] = UNSEEN;
	uint32_t counter = 0, sp = 0, nc = 0, nfound = 0;
	for (uint32_t root = 0; root < n; root++) {
		if (index[root] != UNSEEN)
			continue;
		uint32_t depth = 0;
		path[depth++] = root;
		index[root] = low[root] = counter++;
		next[root] = g->start[root];
		stack[sp++] = root;
		on_stack[root] = 1;
		while (depth) {
			uint32_t v = path[depth - 1];
			if (next[v] < g->start[v + 1]) {
				uint32_t e = next[v]++;
				if (skip_uncalled && g->count[e] == 0)
					continue;
				uint32_t w = g->target[e];
				if (index[w] == UNSEEN) {
					index[w] = low[w] = counter++;
					next[w] = g->start[w];
					stack[sp++] = w;
					on_stack[w] = 1;
					path[depth++] = w;
				} else if (on_stack[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			depth--;
			if (depth && low[v] < low[path[depth - 1]])
				low[path[depth - 1]] = low[v];
			if (low[v] != index[v])
				continue;
			uint32_t base = sp;
			while (stack[base - 1] != v)
				base--;
			base--;
			out->first[nc] = nfound;
			for (uint32_t k = base; k < sp; k++) {
				uint32_t w = stack[k];
				on_stack[w] = 0;
				out->comp[w] = nc;
				out->found[nfound++] = w;
			}
			sp = base;
			nc++;
		}
	}
	out->first[nc] = nfound;
	out->ncomps = nc;
	/* sorted: a counting sort of the nodes by component keeps them
	 * ascending within each one. */
	memcpy(next, out->first, (size_t)nc * sizeof *next);
	for (uint32_t v = 0; v < n; v++)
		out->sorted[next[out->comp[v]]++] = v;
	rc = 0;
done:
	free(index);
	free(low);
	free(path);
	free(next);
	free(on_stack);
	return rc;
}

int cg_graph_propagate(const cg_graph *g, const cg_scc *s, cg_propagation *io)
{
	size_t nev = io->nev;
	uint32_t n = g->nnodes, nc = s->ncomps;
	if (nev == 0 || nev > CG_MAX_EVENTS)
		return CG_EUSAGE;
	double *own_self = NULL, *own_child = NULL;
	double *comp_self = io->comp_self, *comp_child = io->comp_child;
	uint64_t *calls_into = zalloc_array(nc, sizeof *calls_into);
	if (!comp_self)
		comp_self = own_self = alloc_array((size_t)nc * nev, sizeof *comp_self);
	if (!comp_child)
		comp_child = own_child = alloc_array((size_t)nc * nev, sizeof *comp_child);
	if (!calls_into || !comp_self || !comp_child) {
		free(calls_into);
		free(own_self);
		free(own_child);
		return CG_ENOMEM;
	}
	memset(comp_self, 0, (size_t)nc * nev * sizeof *comp_self);
	memset(comp_child, 0, (size_t)nc * nev * sizeof *comp_child);
	if (io->node_child)
		memset(io->node_child, 0, (size_t)n * nev * sizeof *io->node_child);
	const unsigned char *excluded = io->excluded;

	/* Calls into every component from outside it (wrapping, as gprof's
	 * unsigned call counts do). */
	if (g->count)
		for (uint32_t u = 0; u < n; u++)
			for (uint32_t e = g->start[u]; e < g->start[u + 1]; e++)
				if (s->comp[g->target[e]] != s->comp[u])
					calls_into[s->comp[g->target[e]]] += g->count[e];

	for (uint32_t c = 0; c < nc; c++) {
		double *cs = comp_self + (size_t)c * nev, *cc = comp_child + (size_t)c * nev;
		for (uint32_t k = s->first[c]; k < s->first[c + 1]; k++) {
			uint32_t v = s->found[k];
			if (excluded && excluded[v])
				continue;
			for (size_t x = 0; x < nev; x++)
				cs[x] += io->self[(size_t)v * nev + x];
		}
		for (uint32_t k = s->first[c]; k < s->first[c + 1]; k++) {
			uint32_t u = s->sorted[k];
			if (excluded && excluded[u])
				continue;
			double *nchild = io->node_child ? io->node_child + (size_t)u * nev : NULL;
			for (uint32_t e = g->start[u]; e < g->start[u + 1]; e++) {
				uint32_t w = g->target[e], d = s->comp[w];
				uint32_t arc = g->arc ? g->arc[e] : e;
				if (d == c || (excluded && excluded[w]))
					continue;
				if (io->known_set && io->known_set[arc]) {
					const double *kv = io->known + (size_t)arc * nev;
					for (size_t x = 0; x < nev; x++) {
						if (nchild)
							nchild[x] += kv[x];
						cc[x] += kv[x];
					}
					continue;
				}
				uint64_t count = g->count ? g->count[e] : 0;
				if (count == 0 || calls_into[d] == 0)
					continue;
				double ratio = (double)count / (double)calls_into[d];
				const double *ds = comp_self + (size_t)d * nev;
				const double *dc = comp_child + (size_t)d * nev;
				double es[CG_MAX_EVENTS], ec[CG_MAX_EVENTS];
				for (size_t x = 0; x < nev; x++) {
					es[x] = ds[x] * ratio;
					ec[x] = dc[x] * ratio;
					double share = es[x] + ec[x];
					if (nchild)
						nchild[x] += share;
					cc[x] += share;
				}
				if (io->carry)
					io->carry(io->ctx, u, arc, es, ec);
			}
		}
	}
	free(calls_into);
	free(own_self);
	free(own_child);
	return 0;
}
