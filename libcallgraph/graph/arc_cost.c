/*
 * arc_cost.c — a part's components and per-arc inclusive costs, through
 * the graph engine (graph.h).
 */
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "arc_cost.h"
#include "graph.h"

int cg_graph_part_scc(const cg_profile *p, unsigned part, uint32_t *comp, uint32_t *ncomp,
		      uint32_t *size)
{
	cg_graph g;
	cg_scc s = { 0 };
	if (cg_graph_from_profile(&g, p, (int)part))
		return CG_ENOMEM;
	int rc = cg_graph_scc(&s, &g, CG_SCC_SKIP_UNCALLED);
	if (!rc) {
		memcpy(comp, s.comp, (size_t)g.nnodes * sizeof *comp);
		*ncomp = s.ncomps;
		if (size)
			for (uint32_t c = 0; c < s.ncomps; c++)
				size[c] = cg_scc_size(&s, c);
	}
	cg_scc_free(&s);
	cg_graph_free(&g);
	return rc;
}

struct arc_costs {
	double *arc_incl;
	size_t nev;
};

/* An arc's inclusive cost is what it carries of its callee's component:
 * that component's self and children. */
static void carry_arc(void *ctx, uint32_t caller, uint32_t arc, const double *edge_self,
		      const double *edge_child)
{
	struct arc_costs *ac = ctx;
	(void)caller;
	for (size_t e = 0; e < ac->nev; e++)
		ac->arc_incl[(size_t)arc * ac->nev + e] = edge_self[e] + edge_child[e];
}

int cg_graph_arc_costs(const cg_profile *p, unsigned part, const double *self,
		   const double *scale, double *arc_incl)
{
	size_t na = cg_profile_arc_count(p, part);
	size_t nev = cg_profile_event_count(p);
	int need = 0;
	unsigned char *known = malloc(na ? na : 1);
	if (!known)
		return CG_ENOMEM;
	for (size_t i = 0; i < na; i++) {
		const cg_arc *a = cg_profile_arc(p, part, i);
		for (size_t e = 0; e < nev; e++)
			arc_incl[i * nev + e] = a->inclusive ? (double)a->inclusive[e] * scale[e] : 0;
		known[i] = a->inclusive != NULL;
		if (!a->inclusive && a->count)
			need = 1;
	}
	cg_graph g;
	cg_scc s = { 0 };
	int rc = 0;
	if (need && nev > 0 && !(rc = cg_graph_from_profile(&g, p, (int)part))) {
		rc = cg_graph_scc(&s, &g, CG_SCC_SKIP_UNCALLED);
		/* known costs are read from arc_incl while propagated ones
		 * are written to it: an arc is one or the other */
		struct arc_costs ac = { arc_incl, nev };
		cg_propagation io = {
			.nev = nev, .self = self, .known = arc_incl, .known_set = known,
			.carry = carry_arc, .ctx = &ac,
		};
		if (!rc)
			rc = cg_graph_propagate(&g, &s, &io);
		cg_scc_free(&s);
		cg_graph_free(&g);
	}
	free(known);
	return rc;
}
