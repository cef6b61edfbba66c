/*
 * test_gprof.c — unit tests of the gprof analysis: the qsort replica,
 * cycle discovery and numbering, index numbers and the report on
 * hand-built profiles (the structure of the spec's worked examples), and
 * profiles that do not come from gmon.out.
 */
#include <stdlib.h>
#include <string.h>
#include "callgraph.h"
#include "gprof_internal.h"
#include "tap.h"

/* ---- the sort replica against the C library's qsort ---------------------- */

typedef struct item { int key; int is_cycle; int id; } item;
static item *g_items;

/* gprof's index comparator in miniature: inconsistent for two "cycles". */
static int cmp_items(const item *l, const item *r)
{
	if (l->key != r->key)
		return l->key < r->key ? 1 : -1;
	if (l->is_cycle)
		return -1;
	if (r->is_cycle)
		return 1;
	return l->id - r->id;
}

static int cmp_qsort(const void *a, const void *b)
{
	return cmp_items(a, b);
}

static int cmp_msort(const void *ctx, uint32_t a, uint32_t b)
{
	(void)ctx;
	return cmp_items(&g_items[a], &g_items[b]);
}

static void test_msort_matches_glibc(void)
{
	srand(12345);
	for (int round = 0; round < 200; round++) {
		size_t n = (size_t)(rand() % 300);
		item *arr = malloc((n + 1) * sizeof *arr);
		uint32_t *idx = malloc((n + 1) * sizeof *idx);
		g_items = malloc((n + 1) * sizeof *g_items);
		for (size_t i = 0; i < n; i++) {
			arr[i] = (item){ rand() % 4, rand() % 3 == 0, (int)i };
			g_items[i] = arr[i];
			idx[i] = (uint32_t)i;
		}
		qsort(arr, n, sizeof *arr, cmp_qsort);
		check_int(cg_gp_msort(idx, n, cmp_msort, NULL), ==, 0);
		for (size_t i = 0; i < n; i++)
			if ((uint32_t)arr[i].id != idx[i]) {
				check_int(idx[i], ==, arr[i].id);
				break;
			}
		free(arr);
		free(idx);
		free(g_items);
	}
}

/* ---- hand-built profiles -------------------------------------------------- */

static cg_profile *new_profile(const char *const *names, size_t n, double unit_seconds)
{
	cg_profile *p;
	if (cg_profile_new(&p))
		return NULL;
	cg_profile_add_event(p, "samples", "samples", unit_seconds);
	for (size_t i = 0; i < n; i++) {
		cg_function fn = { 0 };
		fn.name = names[i];
		fn.flags = CG_FN_HAS_ADDR | CG_FN_IS_FUNC;
		fn.addr = 0x1000 + 0x40 * i;
		fn.end = fn.addr + 0x40;
		cg_fid f;
		cg_profile_add_function(p, &fn, &f);
	}
	return p;
}

static void arc(cg_profile *p, cg_fid from, cg_fid to, uint64_t count)
{
	cg_profile_add_arc(p, 0, from, to, count, NULL, NULL);
}

enum { BURN, CYC_A, CYC_B, CYC_C, PING, PONG, FACT, MAIN, NFUNCS };
static const char *const cyc_names[] = {
	"burn", "cyc_a", "cyc_b", "cyc_c", "ping", "pong", "fact", "main"
};

/* The program of the spec's cycle example (11.3), arcs in gmon file order
 * (grouped by caller address). */
static cg_profile *cycles_profile(void)
{
	cg_profile *p = new_profile(cyc_names, NFUNCS, 0.01);
	arc(p, CYC_A, BURN, 90);  arc(p, CYC_A, CYC_B, 90);
	arc(p, CYC_B, BURN, 90);  arc(p, CYC_B, CYC_C, 90);
	arc(p, CYC_C, BURN, 90);  arc(p, CYC_C, CYC_A, 60);
	arc(p, PING, BURN, 80);   arc(p, PING, PONG, 80);
	arc(p, PONG, BURN, 140);  arc(p, PONG, PONG, 60);  arc(p, PONG, PING, 60);
	arc(p, FACT, BURN, 120);  arc(p, FACT, FACT, 100);
	arc(p, MAIN, CYC_A, 30);  arc(p, MAIN, PING, 20);  arc(p, MAIN, FACT, 20);
	cg_cost c[1] = { 46 };
	cg_profile_add_self(p, 0, BURN, c);
	cg_profile_set_meta(p, "hz", "100");
	return p;
}

static void test_cycle_numbering(void)
{
	cg_profile *p = cycles_profile();
	uint32_t cyc[NFUNCS], n = 0;
	cg_error err = CG_ERROR_INIT;
	check_int(cg_gprof_cycles(p, 0, cyc, &n, &err), ==, 0);
	check_int(n, ==, 2);
	check_int(cyc[CYC_A], ==, 1);
	check_int(cyc[CYC_B], ==, 1);
	check_int(cyc[CYC_C], ==, 1);
	check_int(cyc[PING], ==, 2);
	check_int(cyc[PONG], ==, 2);
	check_int(cyc[FACT], ==, 0);   /* self-recursion is not a cycle */
	check_int(cyc[BURN], ==, 0);
	check_int(cyc[MAIN], ==, 0);
	cg_profile_free(p);
}

static void test_index_and_calls(void)
{
	cg_profile *p = cycles_profile();
	cg_gprof_analysis *a;
	cg_error err = CG_ERROR_INIT;
	check_int(cg_gprof_analyze(&a, p, 0, NULL, &err), ==, 0);
	/* Index order of the spec's example: burn main <1> <2> pong fact
	 * cyc_a cyc_b cyc_c ping. */
	static const int want[NFUNCS] = { 1, 7, 8, 9, 10, 5, 6, 2 };
	cg_gprof_function_info fi;
	for (int f = 0; f < NFUNCS; f++) {
		check_int(cg_gprof_function(a, (cg_fid)f, &fi), ==, 0);
		check_int(fi.index, ==, want[f]);
	}
	check_int(cg_gprof_cycle(a, 1, &fi), ==, 0);
	check_int(fi.index, ==, 3);
	check_int(fi.ncalls, ==, 30);
	check_int(fi.self_calls, ==, 240);
	check_int(cg_gprof_cycle(a, 2, &fi), ==, 0);
	check_int(fi.index, ==, 4);
	check_int(fi.ncalls, ==, 20);
	check_int(fi.self_calls, ==, 140);
	cg_gprof_function(a, FACT, &fi);
	check_int(fi.ncalls, ==, 20);
	check_int(fi.self_calls, ==, 100);
	cg_gprof_function(a, PONG, &fi);
	check_int(fi.ncalls, ==, 80);
	check_int(fi.self_calls, ==, 60);
	cg_gprof_analysis_free(a);
	cg_profile_free(p);
}

static char *report(const cg_profile *p, unsigned parts, const cg_gprof_options *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cg_error err = CG_ERROR_INIT;
	int rc = cg_gprof_report(p, 0, parts, o, f, &err);
	fclose(f);
	if (rc) {
		printf("# report failed: %s\n", err.message);
		free(buf);
		return NULL;
	}
	return buf;
}

static void test_graph_lines(void)
{
	cg_profile *p = cycles_profile();
	cg_gprof_options o = CG_GPROF_OPTIONS_INIT;
	o.brief = 1;
	char *r = report(p, CG_GPROF_GRAPH, &o);
	check(r != NULL);
	if (r) {
		check(strstr(r, "[3]    100.0    0.00    0.14      30+240     <cycle 1 as a whole> [3]\n") != NULL
		      || strstr(r, "<cycle 1 as a whole> [3]\n") != NULL);
		check(strstr(r, "                                 100             fact [6]\n") != NULL);
		check(strstr(r, "                                  60             pong <cycle 2> [5]\n") != NULL);
		check(strstr(r, "[2]    100.0    0.00    0.46                 main [2]\n") != NULL);
		check(strstr(r, "   [1] burn                    [9] cyc_c                   [5] pong\n") != NULL);
		check(strstr(r, "   [8] cyc_b                  [10] ping                    [4] <cycle 2>\n") != NULL);
	}
	free(r);
	cg_profile_free(p);
}

static void test_arc_tables(void)
{
	/* -k cyc_c/cyc_a breaks cycle 1; ping/pong becomes cycle 1. */
	cg_profile *p = cycles_profile();
	cg_gprof_symspec k = { CG_GPROF_EXCL_ARCS, "cyc_c/cyc_a" };
	cg_gprof_options o = CG_GPROF_OPTIONS_INIT;
	o.specs = &k;
	o.nspecs = 1;
	cg_gprof_analysis *a;
	cg_error err = CG_ERROR_INIT;
	check_int(cg_gprof_analyze(&a, p, 0, &o, &err), ==, 0);
	check_int(cg_gprof_cycle_count(a), ==, 1);
	cg_gprof_function_info fi;
	cg_gprof_function(a, CYC_A, &fi);
	check_int(fi.cycle, ==, 0);
	check_int(fi.ncalls, ==, 30);
	cg_gprof_function(a, PING, &fi);
	check_int(fi.cycle, ==, 1);
	cg_gprof_analysis_free(a);

	/* gprof keeps one table entry per start: of two -k specs with the same
	 * caller only the later one takes effect. */
	cg_gprof_symspec two[2] = { { CG_GPROF_EXCL_ARCS, "main/cyc_a" },
				    { CG_GPROF_EXCL_ARCS, "main/ping" } };
	o.specs = two;
	o.nspecs = 2;
	check_int(cg_gprof_analyze(&a, p, 0, &o, &err), ==, 0);
	cg_gprof_cycle(a, 1, &fi);
	check_int(fi.ncalls, ==, 30);
	check_int(cg_gprof_function(a, PING, &fi), ==, 0);
	check_int(fi.cycle, ==, 2);
	cg_gprof_cycle(a, 2, &fi);
	check_int(fi.ncalls, ==, 0);
	cg_gprof_analysis_free(a);
	cg_profile_free(p);
}

static void test_spec_matching_nothing(void)
{
	cg_profile *p = cycles_profile();
	cg_gprof_symspec s = { CG_GPROF_INCL_FLAT, "nosuch" };
	cg_gprof_options o = CG_GPROF_OPTIONS_INIT;
	o.brief = 1;
	char *plain = report(p, CG_GPROF_FLAT, &o);
	o.specs = &s;
	o.nspecs = 1;
	char *with = report(p, CG_GPROF_FLAT, &o);
	check(plain && with && strcmp(plain, with) == 0);
	free(plain);
	free(with);
	cg_profile_free(p);
}

/* A profile from another reader: no addresses, microseconds, a
 * spontaneous pseudo caller. */
static void test_foreign_profile(void)
{
	cg_profile *p;
	cg_profile_new(&p);
	cg_profile_add_event(p, "us", "microseconds", 1e-6);
	static const char *const names[] = { "<spontaneous>", "main", "work", "helper" };
	cg_fid f[4];
	for (int i = 0; i < 4; i++) {
		cg_function fn = { 0 };
		fn.name = names[i];
		fn.flags = i == 0 ? CG_FN_SPONTANEOUS | CG_FN_SYNTHETIC : 0;
		cg_profile_add_function(p, &fn, &f[i]);
	}
	arc(p, f[0], f[1], 1);
	arc(p, f[1], f[2], 4);
	arc(p, f[2], f[3], 8);
	cg_cost c[1];
	c[0] = 1000;  cg_profile_add_self(p, 0, f[1], c);
	c[0] = 30000; cg_profile_add_self(p, 0, f[2], c);
	c[0] = 10000; cg_profile_add_self(p, 0, f[3], c);
	cg_gprof_options o = CG_GPROF_OPTIONS_INIT;
	o.brief = 1;
	char *r = report(p, CG_GPROF_FLAT | CG_GPROF_GRAPH, &o);
	check(r != NULL);
	if (r) {
		check(strstr(r, "Each sample counts as 1e-06 seconds.\n") != NULL);
		check(strstr(r, " 73.17      0.03     0.03        4     7.50    10.00  work\n") != NULL);
		check(strstr(r, "<spontaneous>\n[1]    100.0    0.00    0.04                 main [1]\n") != NULL);
		check(strstr(r, "                0.01    0.00       8/8           helper [3]\n") != NULL);
	}
	free(r);
	cg_profile_free(p);
}

/* ---- gprof's cycles are the strongly connected components -------------- */

typedef struct graph { int n; int *adj; int *deg; } graph;

/* Textbook reachability closure: f and g share a component when each
 * reaches the other. */
static void closure(const graph *g, unsigned char *reach)
{
	int n = g->n;
	memset(reach, 0, (size_t)n * n);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < g->deg[i]; k++)
			reach[i * n + g->adj[i * n + k]] = 1;
	for (int k = 0; k < n; k++)
		for (int i = 0; i < n; i++)
			if (reach[i * n + k])
				for (int j = 0; j < n; j++)
					if (reach[k * n + j])
						reach[i * n + j] = 1;
}

static void test_cycles_are_sccs(void)
{
	srand(777);
	for (int round = 0; round < 40; round++) {
		int n = 5 + rand() % 60;
		graph g = { n, calloc((size_t)n * n, sizeof(int)), calloc((size_t)n, sizeof(int)) };
		cg_profile *p;
		cg_profile_new(&p);
		cg_profile_add_event(p, "samples", "samples", 0.01);
		cg_fid f;
		char name[16];
		for (int i = 0; i < n; i++) {
			snprintf(name, sizeof name, "f%d", i);
			cg_profile_intern_function(p, name, NULL, NULL, &f);
		}
		int narcs = rand() % (3 * n);
		for (int k = 0; k < narcs; k++) {
			int a = rand() % n, b = rand() % n;
			if (cg_profile_find_arc(p, 0, (cg_fid)a, (cg_fid)b) < 0 && a != b)
				g.adj[a * n + g.deg[a]++] = b;
			cg_profile_add_arc(p, 0, (cg_fid)a, (cg_fid)b, 1 + (uint64_t)(rand() % 5), NULL, NULL);
		}
		uint32_t *cyc = calloc((size_t)n, sizeof *cyc), ncyc = 0;
		cg_error err = CG_ERROR_INIT;
		check_int(cg_gprof_cycles(p, 0, cyc, &ncyc, &err), ==, 0);
		unsigned char *reach = malloc((size_t)n * n);
		closure(&g, reach);
		int bad = 0;
		for (int i = 0; i < n && !bad; i++)
			for (int j = 0; j < n && !bad; j++) {
				int same_scc = i == j ? reach[i * n + i] : reach[i * n + j] && reach[j * n + i];
				int same_cycle = cyc[i] != 0 && cyc[i] == cyc[j];
				if (i == j)
					same_scc = same_scc && cyc[i] != 0 ? 1 : cyc[i] != 0 ? -1 : 0;
				if (i != j && same_scc != same_cycle) {
					printf("# round %d: f%d f%d scc %d cycle %u/%u\n", round, i, j,
					       same_scc, cyc[i], cyc[j]);
					bad = 1;
				}
				if (i == j && same_scc < 0) {
					printf("# round %d: f%d in cycle %u but on no cycle\n", round, i, cyc[i]);
					bad = 1;
				}
			}
		check(!bad);
		/* numbers 1..ncycles, each used */
		unsigned char used[64] = { 0 };
		for (int i = 0; i < n; i++) {
			check_int(cyc[i], <=, ncyc);
			if (cyc[i] && cyc[i] < 64)
				used[cyc[i]] = 1;
		}
		for (uint32_t c = 1; c <= ncyc && c < 64; c++)
			check(used[c]);
		free(reach);
		free(cyc);
		free(g.adj);
		free(g.deg);
		cg_profile_free(p);
	}
}

static void test_flat_filter_and_form_feed(void)
{
	cg_profile *p = cycles_profile();
	cg_gprof_symspec specs[2] = { { CG_GPROF_EXCL_FLAT, "burn" }, { CG_GPROF_INCL_FLAT, "nosuch" } };
	cg_gprof_options o = CG_GPROF_OPTIONS_INIT;
	o.specs = specs;
	o.nspecs = 2;
	cg_gprof_tables *t;
	cg_error err = CG_ERROR_INIT;
	check_int(cg_gprof_tables_new(&t, p, &o, &err), ==, 0);
	check_int(cg_gprof_flat_filter(t, p, BURN), ==, 0);
	check_int(cg_gprof_flat_filter(t, p, MAIN), !=, 0);
	cg_gprof_tables_free(t);

	/* -Pburn: burn's time leaves the total: nothing accumulated */
	o.brief = 1;
	char *r = report(p, CG_GPROF_FLAT, &o);
	check(r && strstr(r, " no time accumulated\n") && !strstr(r, " burn\n"));
	free(r);
	/* after gprof's -i summary, the first section starts a new page */
	o.nspecs = 0;
	o.after_output = 1;
	r = report(p, CG_GPROF_FLAT, &o);
	check(r && strncmp(r, "\f\nFlat profile:\n", 16) == 0);
	free(r);
	cg_profile_free(p);
}

/* ---- the fast cycle search against gprof's literal algorithm ----------- */

typedef struct ref {
	const cg_gprof_analysis *a;
	int *top;
	uint32_t *head, *next, *stack;
	uint32_t depth;
	int counter;
} ref;

static void ref_find_cycle(ref *r, uint32_t c)
{
	uint32_t t, h = 0;
	for (t = r->depth; t > 0; t--) {
		h = r->stack[t];
		if (c == h || (r->head[c] != c && r->head[c] == h))
			break;
	}
	if (t == 0 || t == r->depth)
		return;
	uint32_t tail = h;
	while (r->next[tail] != GP_NONE)
		tail = r->next[tail];
	if (r->head[h] != h)
		h = r->head[h];
	for (uint32_t i = t + 1; i <= r->depth; i++) {
		uint32_t x = r->stack[i];
		if (r->head[x] == x) {
			r->next[tail] = x;
			r->head[x] = h;
			for (tail = x; r->next[tail] != GP_NONE; tail = r->next[tail])
				r->head[r->next[tail]] = h;
		}
	}
}

static void ref_visit(ref *r, uint32_t p)
{
	if (r->top[p] > 0)
		return;
	if (r->top[p] == -1) {
		ref_find_cycle(r, p);
		return;
	}
	r->stack[++r->depth] = p;
	r->top[p] = -1;
	const gp_sym *s = &r->a->syms[p];
	for (uint32_t k = 0; k < s->nchildren; k++)
		ref_visit(r, r->a->arcs[r->a->child_lists[s->first_child + k]].child);
	if (r->head[p] == p) {
		r->counter++;
		for (uint32_t m = p; m != GP_NONE; m = r->next[m])
			r->top[m] = r->counter;
	}
	r->depth--;
}

static void test_cycle_search_matches_gprof(void)
{
	srand(4242);
	for (int round = 0; round < 60; round++) {
		int n = 3 + rand() % 120;
		cg_profile *p;
		cg_profile_new(&p);
		cg_profile_add_event(p, "samples", "samples", 0.01);
		char name[16];
		cg_fid f;
		for (int i = 0; i < n; i++) {
			snprintf(name, sizeof name, "f%d", i);
			cg_profile_intern_function(p, name, NULL, NULL, &f);
		}
		int narcs = rand() % (4 * n);
		for (int k = 0; k < narcs; k++) {
			int a = rand() % n;
			int b = rand() % 3 ? (a + 1 + rand() % 5) % n : rand() % n;
			cg_profile_add_arc(p, 0, (cg_fid)a, (cg_fid)b, 1, NULL, NULL);
		}
		cg_gprof_analysis *an;
		cg_error err = CG_ERROR_INIT;
		check_int(cg_gprof_analyze(&an, p, 0, NULL, &err), ==, 0);
		ref r = { an, calloc((size_t)n, sizeof(int)), malloc((size_t)n * 4),
			  malloc((size_t)n * 4), malloc(((size_t)n + 1) * 4), 0, 0 };
		for (int i = 0; i < n; i++) {
			r.head[i] = (uint32_t)i;
			r.next[i] = GP_NONE;
		}
		for (int i = 0; i < n; i++)
			if (r.top[i] == 0)
				ref_visit(&r, (uint32_t)i);
		int bad = 0;
		for (int i = 0; i < n && !bad; i++) {
			const gp_sym *s = &an->syms[i];
			uint32_t want_head = r.head[i];
			/* a cycle head chains to its members; in the analysis the head
			 * and members point to the cycle symbol */
			int in_cycle = r.head[i] != (uint32_t)i || r.next[i] != GP_NONE;
			if (s->top != r.top[i] || (in_cycle != (s->cycle != 0))
			    || (in_cycle && an->syms[s->head].next != (r.head[i] == (uint32_t)i ? (uint32_t)i : want_head))
			    || (s->next != r.next[i]))
				bad = 1;
			if (bad)
				printf("# round %d f%d: top %d/%d next %u/%u cycle %u\n", round, i, s->top,
				       r.top[i], s->next, r.next[i], s->cycle);
		}
		check(!bad);
		free(r.top);
		free(r.head);
		free(r.next);
		free(r.stack);
		cg_gprof_analysis_free(an);
		cg_profile_free(p);
	}
}

/* main -> a -> c once (expensive), main -> b -> c nine times (cheap). */
static cg_profile *tree_profile(void)
{
	cg_profile *p;
	cg_profile_new(&p);
	cg_profile_add_event(p, "us", "microseconds", 1e-3);
	static const char *const names[] = { "main", "a", "b", "c" };
	cg_fid f[4];
	for (int i = 0; i < 4; i++)
		cg_profile_intern_function(p, names[i], NULL, NULL, &f[i]);
	cg_nid m, na, nb, c1, c2;
	cg_profile_node_child(p, 0, 0, f[0], &m);
	cg_profile_node_child(p, 0, m, f[1], &na);
	cg_profile_node_child(p, 0, m, f[2], &nb);
	cg_profile_node_child(p, 0, na, f[3], &c1);
	cg_profile_node_child(p, 0, nb, f[3], &c2);
	cg_profile_node(p, 0, m)->calls = 1;
	cg_profile_node(p, 0, na)->calls = 1;
	cg_profile_node(p, 0, nb)->calls = 1;
	cg_profile_node(p, 0, c1)->calls = 1;
	cg_profile_node(p, 0, c1)->self[0] = 90;
	cg_profile_node(p, 0, c2)->calls = 9;
	cg_profile_node(p, 0, c2)->self[0] = 10;
	cg_profile_node(p, 0, nb)->self[0] = 5;
	cg_error err = CG_ERROR_INIT;
	if (cg_profile_derive_from_tree(p, &err))
		printf("# derive: %s\n", err.message);
	return p;
}

static void test_exact_inclusive(void)
{
	cg_profile *p = tree_profile();
	cg_gprof_options o = CG_GPROF_OPTIONS_INIT;
	o.brief = 1;
	char *guess = report(p, CG_GPROF_GRAPH, &o);
	o.use_exact_inclusive = 1;
	char *exact = report(p, CG_GPROF_GRAPH, &o);
	check(guess && exact);
	if (guess && exact) {
		/* gprof's guess splits c's 100 ms by calls: 10 to a, 90 to b. */
		check(strstr(guess, "                0.01    0.00       1/10          a [") != NULL);
		check(strstr(guess, "                0.09    0.00       9/10          b [") != NULL);
		/* the tree knows: 90 below a, 10 below b */
		check(strstr(exact, "                0.09    0.00       1/10          a [") != NULL);
		check(strstr(exact, "                0.01    0.00       9/10          b [") != NULL);
		check(strstr(exact, "                0.00    0.09       1/1           a [") != NULL);
	}
	if (getenv("SHOW_EXACT") && exact)
		printf("%s", exact);
	free(guess);
	free(exact);
	cg_profile_free(p);
}

int main(void)
{
	TEST(test_msort_matches_glibc(), "merge sort replica = glibc qsort, inconsistent comparator included");
	TEST(test_cycle_numbering(), "cycles numbered by head address; self-recursion is no cycle");
	TEST(test_index_and_calls(), "index numbers, cycle call counts, self calls out of ncalls");
	TEST(test_graph_lines(), "call graph lines and index of the cycle example");
	TEST(test_arc_tables(), "-k removes arcs before cycle discovery; gprof's one entry per start");
	TEST(test_spec_matching_nothing(), "a spec that matches nothing has no effect");
	TEST(test_foreign_profile(), "profile without addresses, microseconds, spontaneous caller");
	TEST(test_cycles_are_sccs(), "gprof's cycles are exactly the non-trivial SCCs");
	TEST(test_flat_filter_and_form_feed(), "flat tables for the reader; -P removes time; form feed after -i");
	TEST(test_cycle_search_matches_gprof(), "fast cycle search = gprof's literal one (numbers, heads, chains)");
	TEST(test_exact_inclusive(), "use_exact_inclusive prints the call tree's attribution");
	return tap_done();
}
