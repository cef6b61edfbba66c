/* test_graph.c — unit tests of the graph engine (libcallgraph/graph/graph.h):
 * components, the orders gprof depends on, depth, propagation. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "graph.h"
#include "tap.h"

/* An edge list: caller, callee, count.  Each caller's edges keep the
 * order they are listed in; arc numbers are positions in the list. */
struct edge {
	uint32_t from, to;
	uint64_t count;
};

static void make_graph(cg_graph *g, uint32_t n, const struct edge *e, uint32_t ne)
{
	if (cg_graph_alloc(g, n, ne))
		abort();
	for (uint32_t k = 0; k < ne; k++)
		g->start[e[k].from + 1]++;
	for (uint32_t v = 0; v < n; v++)
		g->start[v + 1] += g->start[v];
	uint32_t *fill = calloc(n + 1, sizeof *fill);
	memcpy(fill, g->start, n * sizeof *fill);
	for (uint32_t k = 0; k < ne; k++) {
		uint32_t pos = fill[e[k].from]++;
		g->target[pos] = e[k].to;
		g->count[pos] = e[k].count;
		g->arc[pos] = k;
	}
	free(fill);
}

/* What cg_graph_propagate says each edge carries, by arc number. */
struct carried {
	size_t nev;
	double *es, *ec;
	unsigned char *carried;
	uint32_t last_caller_comp;
	const cg_scc *scc;
	int in_order;
};

static void record_carry(void *ctx, uint32_t caller, uint32_t arc, const double *es,
			 const double *ec)
{
	struct carried *c = ctx;
	for (size_t x = 0; x < c->nev; x++) {
		c->es[arc * c->nev + x] = es[x];
		c->ec[arc * c->nev + x] = ec[x];
	}
	c->carried[arc] = 1;
	/* callers come callees first */
	if (c->scc->comp[caller] < c->last_caller_comp)
		c->in_order = 0;
	c->last_caller_comp = c->scc->comp[caller];
}

/* Every edge between two components goes from a later one to an earlier
 * one (callees first). */
static int callees_first(const cg_graph *g, const cg_scc *s)
{
	for (uint32_t v = 0; v < g->nnodes; v++)
		for (uint32_t e = g->start[v]; e < g->start[v + 1]; e++)
			if (s->comp[g->target[e]] > s->comp[v])
				return 0;
	return 1;
}

static void test_self_loops(void)
{
	/* 0 calls itself and 1; 1 calls itself: two components of one. */
	const struct edge e[] = { { 0, 0, 5 }, { 0, 1, 2 }, { 1, 1, 7 } };
	cg_graph g;
	cg_scc s;
	make_graph(&g, 2, e, 3);
	check_int(cg_graph_scc(&s, &g, 0), ==, 0);
	check_int(s.ncomps, ==, 2);
	check_int(s.comp[1], ==, 0);
	check_int(s.comp[0], ==, 1);
	check_int(cg_scc_size(&s, 0), ==, 1);
	check_int(cg_scc_size(&s, 1), ==, 1);
	/* A self call carries nothing and is no call into the component:
	 * 1's whole cost goes through the only outside call. */
	double self[2] = { 1, 10 }, es[3] = { -1, -1, -1 }, ec[3] = { -1, -1, -1 }, child[2];
	unsigned char carried[3] = { 0 };
	struct carried rec = { 1, es, ec, carried, 0, &s, 1 };
	cg_propagation io = { .nev = 1, .self = self, .carry = record_carry, .ctx = &rec,
			      .node_child = child };
	check_int(cg_graph_propagate(&g, &s, &io), ==, 0);
	check_int(carried[0], ==, 0);
	check_int(carried[2], ==, 0);
	check_int(carried[1], ==, 1);
	check_double(es[0], -1);
	check_double(es[1], 10);
	check_double(ec[1], 0);
	check_double(child[0], 10);
	check_double(child[1], 0);
	cg_scc_free(&s);
	cg_graph_free(&g);
}

static void test_nested_cycles(void)
{
	/* 0 -> 2 -> 1 -> 0 is a cycle with 1 <-> 2 inside it; 1 also calls
	 * the cycle 3 <-> 4, which calls 5.  The search enters {0,1,2} at 0
	 * and reaches 2 before 1. */
	const struct edge e[] = {
		{ 0, 2, 1 }, { 2, 1, 1 }, { 1, 2, 1 }, { 1, 0, 1 },
		{ 1, 3, 1 }, { 3, 4, 1 }, { 4, 3, 1 }, { 4, 5, 1 },
	};
	cg_graph g;
	cg_scc s;
	make_graph(&g, 6, e, 8);
	check_int(cg_graph_scc(&s, &g, 0), ==, 0);
	check_int(s.ncomps, ==, 3);
	check(callees_first(&g, &s));
	/* 5 finishes first, then {3,4}, then {0,1,2} */
	check_int(s.comp[5], ==, 0);
	check_int(s.comp[3], ==, 1);
	check_int(s.comp[4], ==, 1);
	check_int(s.comp[0], ==, 2);
	check_int(s.comp[1], ==, 2);
	check_int(s.comp[2], ==, 2);
	/* found: the order the search reached them (gprof's head, chain) */
	const uint32_t *f = s.found + s.first[2];
	check_int(f[0], ==, 0);
	check_int(f[1], ==, 2);
	check_int(f[2], ==, 1);
	/* sorted: ascending within the component */
	const uint32_t *o = s.sorted + s.first[2];
	check_int(o[0], ==, 0);
	check_int(o[1], ==, 1);
	check_int(o[2], ==, 2);
	check_int(s.found[s.first[1]], ==, 3);
	check_int(s.found[s.first[1] + 1], ==, 4);
	cg_scc_free(&s);
	cg_graph_free(&g);
}

/* The deep tests run on a 256 KiB stack: a recursive search would need
 * far more for 100,000 levels and crash. */
#define DEEP 100000u

struct deep_result {
	int rc_chain, rc_ring, rc_prop;
	uint32_t ncomps_chain, ncomps_ring, first_comp, last_comp;
	int found_in_order;
	double child0;
};

static void *deep_work(void *arg)
{
	struct deep_result *r = arg;
	struct edge *e = malloc(DEEP * sizeof *e);
	for (uint32_t i = 0; i + 1 < DEEP; i++)
		e[i] = (struct edge){ i, i + 1, 1 };
	cg_graph g;
	cg_scc s;
	make_graph(&g, DEEP, e, DEEP - 1);
	r->rc_chain = cg_graph_scc(&s, &g, 0);
	r->ncomps_chain = s.ncomps;
	r->first_comp = s.comp[0];
	r->last_comp = s.comp[DEEP - 1];
	double *self = malloc(DEEP * sizeof *self), *child = malloc(DEEP * sizeof *child);
	for (uint32_t i = 0; i < DEEP; i++)
		self[i] = 1;
	cg_propagation io = { .nev = 1, .self = self, .node_child = child };
	r->rc_prop = cg_graph_propagate(&g, &s, &io);
	r->child0 = child[0];
	cg_scc_free(&s);
	cg_graph_free(&g);
	/* the same chain closed into one ring of DEEP members */
	e[DEEP - 1] = (struct edge){ DEEP - 1, 0, 1 };
	make_graph(&g, DEEP, e, DEEP);
	r->rc_ring = cg_graph_scc(&s, &g, 0);
	r->ncomps_ring = s.ncomps;
	r->found_in_order = 1;
	for (uint32_t i = 0; i < DEEP && !r->rc_ring; i++)
		if (s.found[i] != i)
			r->found_in_order = 0;
	cg_scc_free(&s);
	cg_graph_free(&g);
	free(self);
	free(child);
	free(e);
	return NULL;
}

static void test_deep_chain(void)
{
	struct deep_result r = { 0 };
	pthread_attr_t attr;
	pthread_t t;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	check_int(pthread_create(&t, &attr, deep_work, &r), ==, 0);
	pthread_join(t, NULL);
	pthread_attr_destroy(&attr);
	check_int(r.rc_chain, ==, 0);
	check_int(r.ncomps_chain, ==, DEEP);
	check_int(r.last_comp, ==, 0);
	check_int(r.first_comp, ==, DEEP - 1);
	check_int(r.rc_prop, ==, 0);
	check_double(r.child0, DEEP - 1);
	check_int(r.rc_ring, ==, 0);
	check_int(r.ncomps_ring, ==, 1);
	check(r.found_in_order);
}

static void test_disconnected_parts(void)
{
	/* {0 -> 1}, the cycle {2,3}, lone 4, and 6 -> 5: searched from 0, 2,
	 * 4, 5, 6 in turn. */
	const struct edge e[] = { { 0, 1, 1 }, { 2, 3, 1 }, { 3, 2, 1 }, { 6, 5, 1 } };
	cg_graph g;
	cg_scc s;
	make_graph(&g, 7, e, 4);
	check_int(cg_graph_scc(&s, &g, 0), ==, 0);
	check_int(s.ncomps, ==, 6);
	check(callees_first(&g, &s));
	const uint32_t want[7] = { 1, 0, 2, 2, 3, 4, 5 };
	for (uint32_t v = 0; v < 7; v++)
		check_int(s.comp[v], ==, want[v]);
	check_int(s.first[s.ncomps], ==, 7);
	/* no node lost or doubled */
	unsigned seen[7] = { 0 };
	for (uint32_t k = 0; k < 7; k++)
		seen[s.found[k]]++, seen[s.sorted[k]] += 10;
	for (uint32_t v = 0; v < 7; v++)
		check_int(seen[v], ==, 11);
	cg_scc_free(&s);
	cg_graph_free(&g);
}

static void test_propagation_sums(void)
{
	/* 0 and 2 call 1 (3 and 1 times); 1 calls 3 twice.  Self costs are
	 * 1, 2, 4, 8 in two events (the second twice the first). */
	const struct edge e[] = { { 0, 1, 3 }, { 2, 1, 1 }, { 1, 3, 2 } };
	cg_graph g;
	cg_scc s;
	make_graph(&g, 4, e, 3);
	check_int(cg_graph_scc(&s, &g, 0), ==, 0);
	double self[8] = { 1, 2, 2, 4, 4, 8, 8, 16 }, child[8], es[6], ec[6];
	double comp_self[8], comp_child[8];
	unsigned char carried[3] = { 0 };
	struct carried rec = { 2, es, ec, carried, 0, &s, 1 };
	cg_propagation io = { .nev = 2, .self = self, .node_child = child, .carry = record_carry,
			      .ctx = &rec, .comp_self = comp_self, .comp_child = comp_child };
	check_int(cg_graph_propagate(&g, &s, &io), ==, 0);
	check(rec.in_order);
	check_int(carried[0] + carried[1] + carried[2], ==, 3);
	check_double(es[2 * 2], 8);        /* 1 -> 3: all of 3 */
	check_double(child[1 * 2], 8);
	check_double(es[0 * 2], 1.5);      /* 0 -> 1: 3/4 of 1's self 2 ... */
	check_double(ec[0 * 2], 6);        /* ... and of its child 8 */
	check_double(es[1 * 2], 0.5);
	check_double(ec[1 * 2], 2);
	check_double(child[0 * 2], 7.5);
	check_double(child[2 * 2], 2.5);
	check_double(child[0 * 2 + 1], 15);
	/* nothing lost: the roots' inclusive costs add up to all self cost */
	check_double(self[0] + child[0] + self[4] + child[4], 15);
	check_double(self[1] + child[1] + self[5] + child[5], 30);
	check_double(comp_self[s.comp[1] * 2], 2);
	check_double(comp_child[s.comp[1] * 2], 8);
	cg_scc_free(&s);
	cg_graph_free(&g);
}

static void test_propagation_through_cycle(void)
{
	/* 0 calls the cycle {1,2} twice (at 1), the cycle calls 3 once (from
	 * 2); 4 calls 1 twice but is excluded; 5 -> 3 never called; a known
	 * cost on 6 -> 0. */
	const struct edge e[] = {
		{ 0, 1, 2 }, { 1, 2, 9 }, { 2, 1, 9 }, { 2, 3, 1 }, { 4, 1, 2 }, { 5, 3, 0 },
		{ 6, 0, 1 },
	};
	cg_graph g;
	cg_scc s;
	make_graph(&g, 7, e, 7);
	check_int(cg_graph_scc(&s, &g, 0), ==, 0);
	check_int(s.comp[1], ==, s.comp[2]);
	double self[7] = { 1, 2, 4, 8, 16, 32, 64 }, child[7], es[7] = { 0 }, ec[7] = { 0 };
	double known[7] = { 0, 0, 0, 0, 0, 0, 1000 };
	unsigned char known_set[7] = { 0, 0, 0, 0, 0, 0, 1 }, carried[7] = { 0 };
	unsigned char excluded[7] = { 0, 0, 0, 0, 1, 0, 0 };
	struct carried rec = { 1, es, ec, carried, 0, &s, 1 };
	cg_propagation io = { .nev = 1, .self = self, .node_child = child, .carry = record_carry,
			      .ctx = &rec, .excluded = excluded, .known = known,
			      .known_set = known_set };
	check_int(cg_graph_propagate(&g, &s, &io), ==, 0);
	check(rec.in_order);
	/* inside the cycle nothing is carried; the cycle (self 6) carries 8 */
	check_int(carried[1] + carried[2], ==, 0);
	check_double(child[2], 8);
	check_double(child[1], 0);
	/* calls into the cycle: 2 from 0 and 2 from excluded 4 */
	check_double(es[0], 3);
	check_double(ec[0], 4);
	check_double(child[0], 7);
	check_int(carried[4], ==, 0);
	check_double(child[4], 0);
	check_int(carried[5], ==, 0);
	check_double(child[5], 0);
	check_int(carried[6], ==, 0);
	check_double(child[6], 1000);
	cg_scc_free(&s);
	cg_graph_free(&g);
}

static void test_from_profile(void)
{
	/* main -> a (3 calls) -> b -> a (0 calls): only with
	 * CG_SCC_SKIP_UNCALLED is {a, b} not a cycle. */
	cg_profile *p;
	cg_fid f[3];
	check_int(cg_profile_new(&p), ==, 0);
	cg_profile_add_event(p, "calls", NULL, 0);
	const char *names[3] = { "main", "a", "b" };
	for (int i = 0; i < 3; i++)
		check_int(cg_profile_intern_function(p, names[i], NULL, NULL, &f[i]), ==, 0);
	check_int(cg_profile_add_arc(p, 0, f[0], f[1], 3, NULL, NULL), ==, 0);
	check_int(cg_profile_add_arc(p, 0, f[1], f[2], 1, NULL, NULL), ==, 0);
	check_int(cg_profile_add_arc(p, 0, f[2], f[1], 0, NULL, NULL), ==, 0);
	cg_graph g;
	cg_scc s;
	check_int(cg_graph_from_profile(&g, p, 0), ==, 0);
	check_int(g.nnodes, ==, 3);
	check_int(g.nedges, ==, 3);
	check_int(cg_graph_scc(&s, &g, 0), ==, 0);
	check_int(s.ncomps, ==, 2);
	cg_scc_free(&s);
	check_int(cg_graph_scc(&s, &g, CG_SCC_SKIP_UNCALLED), ==, 0);
	check_int(s.ncomps, ==, 3);
	cg_scc_free(&s);
	cg_graph_free(&g);
	cg_profile_free(p);
}

int main(void)
{
	TEST(test_self_loops(), "self loops: no cycle, nothing carried, no call into");
	TEST(test_nested_cycles(), "nested cycles: one component, gprof's head and orders");
	TEST(test_deep_chain(), "a 100,000-deep chain and ring on a 256 KiB stack");
	TEST(test_disconnected_parts(), "disconnected parts: every node in one component");
	TEST(test_propagation_sums(), "propagation: shares by call counts, sums kept");
	TEST(test_propagation_through_cycle(),
	     "propagation: cycles collapsed, excluded, uncalled and known edges");
	TEST(test_from_profile(), "graph of a profile part; uncalled arcs can stay out");
	return tap_done();
}
