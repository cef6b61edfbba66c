/*
 * graph.h — internal: the library's one graph engine.
 *
 * A call graph in compressed form (cg_graph), its strongly connected
 * components (cg_graph_scc: Tarjan's algorithm, iterative, so a call chain
 * as deep as the input likes never touches the C stack), and gprof's
 * propagation of cost from callees to callers with every component
 * collapsed into one node (cg_graph_propagate).
 *
 * Users: the gprof engine (its cycles and time propagation must come out
 * exactly as GNU gprof 2.40's, hence the ordering guarantees below),
 * arc_cost.c (per-arc inclusive costs for the Callgrind and dot writers),
 * the dot writer (cycles) and diff (cycles, proportional inclusive costs).
 *
 * Ordering guarantees, which gprof's report depends on:
 * - the search starts from nodes 0, 1, 2 ... in turn and follows each
 *   node's edges in the order the graph lists them;
 * - components are numbered in the order the search completes them, which
 *   puts every component after all the components it calls (callees
 *   first); gprof's "topological number" of a node is comp + 1;
 * - `found` lists each component's members in the order the search first
 *   reached them, so its first member is where the search entered the
 *   component (gprof's cycle head) and the rest is gprof's member chain;
 * - `sorted` lists the members of each component in ascending node order,
 *   components callees first: gprof's stable sort by topological number.
 *
 * Not thread-safe on one object; separate objects are independent.
 */
#ifndef CG_GRAPH_H
#define CG_GRAPH_H

#include <stddef.h>
#include <stdint.h>
#include "callgraph/model.h"

/* Out-edges of node v are positions start[v] .. start[v + 1] - 1 of the
 * per-position arrays.  `arc` says which of the caller's arcs each
 * position is (NULL: the position itself); every per-edge array that
 * cg_graph_propagate reads or writes is indexed by that arc number. */
typedef struct cg_graph {
	uint32_t nnodes;
	uint32_t nedges;
	uint32_t *start;     /* nnodes + 1 */
	uint32_t *target;    /* nedges: the callee of each position */
	uint64_t *count;     /* nedges: calls along it (NULL: unknown) */
	uint32_t *arc;       /* nedges or NULL */
	int arc_borrowed;    /* arc belongs to the caller: cg_graph_free leaves it */
} cg_graph;

/* Allocates the arrays of an empty graph of nnodes nodes and nedges edges
 * (count and arc included); the caller fills them.  CG_ENOMEM or 0. */
int cg_graph_alloc(cg_graph *g, uint32_t nnodes, uint32_t nedges);
void cg_graph_free(cg_graph *g);

/* The graph of a profile's functions with the arcs of `part` (or of every
 * part: CG_GRAPH_ALL_PARTS), each caller's edges in arc order; arc[] gives
 * the model arc index (meaningful for one part only). */
#define CG_GRAPH_ALL_PARTS (-1)
int cg_graph_from_profile(cg_graph *g, const cg_profile *p, int part);

typedef struct cg_scc {
	uint32_t nnodes, ncomps;
	uint32_t *comp;      /* nnodes: node -> component, callees first */
	uint32_t *first;     /* ncomps + 1: component c is [first[c], first[c+1]) of: */
	uint32_t *found;     /* nnodes: members in the order the search reached them */
	uint32_t *sorted;    /* nnodes: members in ascending node order */
} cg_scc;

/* Edges with a count of 0 do not join components (they are still edges
 * for cg_graph_propagate's denominators, where they add nothing). */
#define CG_SCC_SKIP_UNCALLED 1u

/* Components of g; CG_ENOMEM or 0.  out is freed by cg_scc_free (also
 * after a failure). */
int cg_graph_scc(cg_scc *out, const cg_graph *g, unsigned flags);
void cg_scc_free(cg_scc *s);
static inline uint32_t cg_scc_size(const cg_scc *s, uint32_t c)
{
	return s->first[c + 1] - s->first[c];
}

/*
 * Propagation, as gprof does it.  Each component's cost is the sum of its
 * members' self costs (`self`, in `found` order) plus what the edges leaving
 * it carry ("child" cost).  An edge u -> w from component C into another
 * component D carries, for each of the nev values,
 *     edge_self  = comp_self[D]  * (count / calls_into[D])
 *     edge_child = comp_child[D] * (count / calls_into[D])
 * where calls_into[D] sums the counts of every edge entering D from outside
 * (modulo 2^64, as gprof's call counts); its edge_self + edge_child is
 * added to node_child[u] and comp_child[C].  Components are processed
 * callees first, members in ascending node order, edges in graph order:
 * the order of every floating-point operation is gprof's.
 *
 * An edge carries nothing when it stays inside a component, has a count
 * of 0, D has no calls_into, or either end is `excluded` (gprof's -E/-e:
 * such a node also adds no self cost).  An edge with a `known` cost
 * carries that instead (nev values at known[arc * nev], used when
 * known_set[arc]).
 *
 * `carry` (optional) is called for every edge that carries a propagated
 * share, at the moment it is computed (so in the order above), with its
 * edge_self and edge_child values: clients keep per-arc results where
 * they like, with no per-arc arrays here.
 */
typedef void cg_graph_carry_fn(void *ctx, uint32_t caller, uint32_t arc,
			       const double *edge_self, const double *edge_child);

typedef struct cg_propagation {
	size_t nev;                     /* values per node/edge, 1 .. CG_MAX_EVENTS */
	const double *self;             /* nnodes * nev */
	const unsigned char *excluded;  /* nnodes, or NULL */
	const double *known;            /* per arc * nev, or NULL */
	const unsigned char *known_set; /* per arc, or NULL */
	cg_graph_carry_fn *carry;       /* or NULL */
	void *ctx;                      /* for carry */
	/* outputs, all optional; zeroed first */
	double *node_child;             /* nnodes * nev */
	double *comp_self, *comp_child; /* ncomps * nev */
} cg_propagation;

/* 0, CG_ENOMEM, or CG_EUSAGE for a bad nev. */
int cg_graph_propagate(const cg_graph *g, const cg_scc *s, cg_propagation *io);

#endif
