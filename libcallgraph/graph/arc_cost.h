/*
 * arc_cost.h — internal: the components of a part's call graph, and the
 * inclusive cost of every arc for writers that need one (Callgrind, dot)
 * when the input only knows counts (gmon).  Both are the graph engine
 * (graph.h) applied to a profile part.
 */
#ifndef CG_ARC_COST_H
#define CG_ARC_COST_H

#include "callgraph/model.h"

/* comp[f] = component of function f, numbered so that a component's
 * callees come first (reverse topological order of the condensation);
 * *ncomp = number of components; size[c] (optional, ncomp entries, caller
 * allocates nfuncs) = member count.  Only arcs with a count > 0 are edges. */
int cg_graph_part_scc(const cg_profile *p, unsigned part, uint32_t *comp, uint32_t *ncomp,
		      uint32_t *size);

/* Fills arc_incl (narcs * nev doubles) with each arc's inclusive cost.
 * `self` (nfuncs * nev) is each function's self cost in the unit wanted.
 * Arcs whose inclusive cost the model knows are scaled by scale[e];
 * the others get gprof's propagation: a component's total (self + calls
 * leaving it) is shared among the arcs entering it in proportion to their
 * counts; arcs inside a component and self-recursive arcs get 0, so no
 * cost is counted twice. */
int cg_graph_arc_costs(const cg_profile *p, unsigned part, const double *self,
		   const double *scale, double *arc_incl);

#endif
