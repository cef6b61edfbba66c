/*
 * test_checked.c — exact or refused: the checked arithmetic of
 * core/checked.h, the one growable-array helper of core/array.h, and the
 * model operations built on them (sums that do not fit leave the model as
 * it was and say CG_EFORMAT).
 */
#include <stdint.h>
#include <stdlib.h>

#include "array.h"
#include "callgraph.h"
#include "checked.h"
#include "tap.h"

static void test_add_cost(void)
{
	cg_cost a = INT64_MAX - 1;
	check_int(cg_checked_add_cost(&a, 1), ==, 0);
	check_int(a, ==, INT64_MAX);
	check_int(cg_checked_add_cost(&a, 1), ==, 1);
	check_int(a, ==, INT64_MAX);   /* untouched on overflow */
	a = INT64_MIN;
	check_int(cg_checked_add_cost(&a, -1), ==, 1);
	check_int(a, ==, INT64_MIN);
	check_int(cg_checked_add_cost(&a, INT64_MAX), ==, 0);
	check_int(a, ==, -1);
}

static void test_add_u64(void)
{
	uint64_t c = UINT64_MAX - 2;
	check_int(cg_checked_add_u64(&c, 2), ==, 0);
	check(c == UINT64_MAX);
	check_int(cg_checked_add_u64(&c, 1), ==, 1);
	check(c == UINT64_MAX);
}

static void test_vectors_all_or_nothing(void)
{
	cg_cost acc[3] = { 1, INT64_MAX, 3 }, add[3] = { 10, 1, 30 };
	check_int(cg_checked_add_costs(acc, add, 3), ==, 1);
	check_int(acc[0], ==, 1);   /* the first event was not changed either */
	check_int(acc[2], ==, 3);
	add[1] = -5;
	check_int(cg_checked_add_costs(acc, add, 3), ==, 0);
	check_int(acc[0], ==, 11);
	check_int(acc[1], ==, INT64_MAX - 5);
	check_int(acc[2], ==, 33);
}

static void test_mul_size(void)
{
	size_t out;
	check_int(cg_checked_mul_size(SIZE_MAX / 2 + 1, 2, &out), ==, 1);
	check_int(cg_checked_mul_size(1000, 8, &out), ==, 0);
	check_int(out, ==, 8000);
}

static void test_array_grow(void)
{
	int *v = NULL;
	size_t cap = 0;
	check_int(cg_array_grow((void **)&v, &cap, 5, sizeof *v, 4), ==, 0);
	check_int(cap, ==, 8);
	for (size_t i = 0; i < cap; i++)
		check_int(v[i], ==, 0);   /* new elements are zeroed */
	v[7] = 42;
	check_int(CG_ARRAY_GROW(v, cap, 100), ==, 0);
	check_int(cap, ==, 128);
	check_int(v[7], ==, 42);
	check_int(v[100], ==, 0);
	/* need * elem past SIZE_MAX: refused before any allocation */
	int *before = v;
	check_int(cg_array_grow((void **)&v, &cap, SIZE_MAX / 2, 16, 4), ==, CG_ENOMEM);
	check(v == before);
	check_int(cap, ==, 128);
	check_int(cg_array_grow((void **)&v, &cap, SIZE_MAX, 1, 4), ==, CG_ENOMEM);
	check_int(cap, ==, 128);
	free(v);
}

static cg_profile *profile_with(cg_fid *a, cg_fid *b)
{
	cg_profile *p;
	if (cg_profile_new(&p) || cg_profile_add_event(p, "Ir", "Ir", 0) < 0 ||
	    cg_profile_intern_function(p, "a", NULL, NULL, a) ||
	    cg_profile_intern_function(p, "b", NULL, NULL, b))
		abort();
	return p;
}

static void test_model_self(void)
{
	cg_fid a, b;
	cg_profile *p = profile_with(&a, &b);
	cg_cost big = INT64_MAX, one = 1;
	check_int(cg_profile_add_self(p, 0, a, &big), ==, 0);
	check_int(cg_profile_add_self(p, 0, a, &one), ==, CG_EFORMAT);
	check_int(cg_profile_self(p, 0, a)[0], ==, INT64_MAX);
	/* each function fits, the total does not: the check every reader
	 * makes refuses it, naming the event and the function */
	check_int(cg_profile_add_self(p, 0, b, &big), ==, 0);
	cg_cost totals[1];
	check_int(cg_profile_checked_totals(p, 0, totals), ==, CG_EFORMAT);
	cg_error err = CG_ERROR_INIT;
	check_int(cg_profile_check_sums(p, "x.cg", &err), ==, CG_EFORMAT);
	check_str(err.message, "x.cg: Ir costs sum past 2^63-1 at function b; "
			       "refusing a total that cannot be exact");
	/* the public totals saturate instead of overflowing */
	cg_profile_part_totals(p, 0, totals);
	check_int(totals[0], ==, INT64_MAX);
	cg_profile_free(p);
}

static void test_model_arcs(void)
{
	cg_fid a, b;
	cg_profile *p = profile_with(&a, &b);
	cg_cost big = INT64_MAX, one = 1;
	size_t idx;
	check_int(cg_profile_add_arc(p, 0, a, b, UINT64_MAX - 1, &big, &idx), ==, 0);
	check_int(cg_profile_add_arc(p, 0, a, b, 2, NULL, NULL), ==, CG_EFORMAT);
	check_int(cg_profile_add_arc(p, 0, a, b, 0, &one, NULL), ==, CG_EFORMAT);
	const cg_arc *arc = cg_profile_arc(p, 0, idx);
	check(arc->count == UINT64_MAX - 1);   /* neither sum was applied */
	check_int(arc->inclusive[0], ==, INT64_MAX);
	check_int(cg_profile_add_arc(p, 0, a, b, 1, NULL, NULL), ==, 0);
	check(arc->count == UINT64_MAX);
	cg_profile_free(p);
}

static void test_model_merge(void)
{
	cg_fid a, b;
	cg_profile *p = profile_with(&a, &b), *q = profile_with(&a, &b);
	cg_cost big = INT64_MAX;
	cg_profile_add_self(p, 0, a, &big);
	cg_profile_add_self(q, 0, a, &big);
	cg_error err = CG_ERROR_INIT;
	check_int(cg_profile_merge_into(p, q, &err), ==, CG_EFORMAT);
	check(strstr(err.message, "sum past 2^63-1") != NULL);
	cg_profile_free(p);
	cg_profile_free(q);
}

static void test_tree_sums(void)
{
	cg_fid a, b;
	cg_profile *p = profile_with(&a, &b);
	cg_nid na, nb;
	check_int(cg_profile_node_add(p, 0, 0, a, &na), ==, 0);
	check_int(cg_profile_node_add(p, 0, na, b, &nb), ==, 0);
	cg_profile_node(p, 0, na)->self[0] = INT64_MAX;
	cg_profile_node(p, 0, nb)->self[0] = 1;
	cg_error err = CG_ERROR_INIT;
	check_int(cg_profile_derive_from_tree(p, &err), ==, CG_EFORMAT);
	check(strstr(err.message, "call tree sum past 2^63-1") != NULL);
	cg_profile_free(p);
}

int main(void)
{
	TEST(test_add_cost(), "cost sums: exact, or refused with the accumulator untouched");
	TEST(test_add_u64(), "count sums: exact, or refused");
	TEST(test_vectors_all_or_nothing(), "cost vectors are added all or nothing");
	TEST(test_mul_size(), "size products are checked");
	TEST(test_array_grow(), "cg_array_grow doubles, zeroes, and refuses n * size past SIZE_MAX");
	TEST(test_model_self(), "self costs: a sum past 2^63-1 is refused, totals checked");
	TEST(test_model_arcs(), "arc counts and inclusive costs: refused, arc untouched");
	TEST(test_model_merge(), "merging two profiles whose sum does not fit is refused");
	TEST(test_tree_sums(), "call-tree totals that do not fit are refused");
	return tap_done();
}
