/* test_model.c — unit tests of the profile model (model.c, util.c). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callgraph.h"
#include "tap.h"

static cg_profile *new_profile_with_events(void)
{
	cg_profile *p;
	if (cg_profile_new(&p))
		abort();
	cg_profile_add_event(p, "ticks", "CPU ticks", 0.01);
	cg_profile_add_event(p, "calls", "Call sequence count", 0);
	return p;
}

static void test_strings_are_interned(void)
{
	cg_profile *p;
	check_int(cg_profile_new(&p), ==, 0);
	char buf[8] = "main";
	const char *a = cg_profile_intern(p, buf);
	buf[0] = 'x';
	const char *b = cg_profile_intern(p, "main");
	check(a == b);
	check_str(a, "main");
	check(cg_profile_intern_len(p, "mainly", 4) == a);
	for (int i = 0; i < 5000; i++) {
		char s[32];
		snprintf(s, sizeof s, "f%d", i);
		cg_profile_intern(p, s);
	}
	check(cg_profile_intern(p, "main") == a);
	cg_profile_free(p);
}

static void test_function_identity(void)
{
	cg_profile *p = new_profile_with_events();
	cg_fid f1, f2, f3, f4;
	check_int(cg_profile_intern_function(p, "helper", NULL, "a.c", &f1), ==, 0);
	check_int(cg_profile_intern_function(p, "helper", NULL, "b.c", &f2), ==, 0);
	check_int(cg_profile_intern_function(p, "helper", NULL, "a.c", &f3), ==, 0);
	check(f1 != f2);
	check_int(f1, ==, f3);
	cg_function fn = { .name = "helper", .file = "a.c", .addr = 0x10, .flags = CG_FN_HAS_ADDR };
	check_int(cg_profile_add_function(p, &fn, &f4), ==, 0);
	check(f4 != f1);
	check_int(cg_profile_function_count(p), ==, 3);
	check_str(cg_profile_function(p, f2)->file, "b.c");
	check_int(cg_profile_add_event(p, "late", NULL, 0), <, 0 + 1000); /* allowed: no costs yet */
	cg_profile_free(p);
}

static void test_events_freeze_once_costs_exist(void)
{
	cg_profile *p = new_profile_with_events();
	cg_fid f;
	cg_profile_intern_function(p, "main", NULL, NULL, &f);
	cg_cost c[2] = { 3, 4 };
	check_int(cg_profile_add_self(p, 0, f, c), ==, 0);
	check_int(cg_profile_add_event(p, "late", NULL, 0), ==, CG_EUSAGE);
	check_int(cg_profile_find_event(p, "calls"), ==, 1);
	check_int(cg_profile_find_event(p, "nope"), ==, -1);
	cg_profile_free(p);
}

static void test_arcs_accumulate_in_first_seen_order(void)
{
	cg_profile *p = new_profile_with_events();
	cg_fid a, b, c;
	cg_profile_intern_function(p, "a", NULL, NULL, &a);
	cg_profile_intern_function(p, "b", NULL, NULL, &b);
	cg_profile_intern_function(p, "c", NULL, NULL, &c);
	cg_cost inc[2] = { 5, 1 };
	cg_profile_add_arc(p, 0, a, b, 2, NULL, NULL);
	cg_profile_add_arc(p, 0, b, c, 1, inc, NULL);
	cg_profile_add_arc(p, 0, a, b, 3, inc, NULL);
	check_int(cg_profile_arc_count(p, 0), ==, 2);
	const cg_arc *arc = cg_profile_arc(p, 0, 0);
	check_int(arc->caller, ==, a);
	check_int(arc->count, ==, 5);
	check_int(arc->inclusive[0], ==, 5);
	check_int(cg_profile_find_arc(p, 0, b, c), ==, 1);
	check_int(cg_profile_find_arc(p, 0, c, b), ==, -1);
	cg_profile_free(p);
}

/* main -> a -> b -> a(link) ; main -> b ; b self-recursive.  Inclusive of a
 * counts its subtree once; the recursive entry adds nothing. */
static void test_derive_from_tree_charges_outermost_only(void)
{
	cg_profile *p = new_profile_with_events();
	cg_fid m, a, b;
	cg_profile_intern_function(p, "main", NULL, NULL, &m);
	cg_profile_intern_function(p, "a", NULL, NULL, &a);
	cg_profile_intern_function(p, "b", NULL, NULL, &b);
	cg_nid nm, na, nb, nab, nb2;
	check_int(cg_profile_node_child(p, 0, 0, m, &nm), ==, 0);
	cg_profile_node_child(p, 0, nm, a, &na);
	cg_profile_node_child(p, 0, na, b, &nb);
	cg_profile_node_child(p, 0, nb, a, &nab);
	cg_profile_node_child(p, 0, nm, b, &nb2);
	cg_profile_node(p, 0, nm)->calls = 1;
	cg_profile_node(p, 0, nm)->self[0] = 1;
	cg_profile_node(p, 0, na)->calls = 2;
	cg_profile_node(p, 0, na)->self[0] = 10;
	cg_profile_node(p, 0, nb)->calls = 4;
	cg_profile_node(p, 0, nb)->self[0] = 20;
	cg_profile_node(p, 0, nb)->recursive = 7;
	cg_profile_node(p, 0, nab)->calls = 3;
	cg_profile_node(p, 0, nab)->recursion_target = na;
	cg_profile_node(p, 0, nb2)->calls = 1;
	cg_profile_node(p, 0, nb2)->self[0] = 5;
	cg_error err = CG_ERROR_INIT;
	check_int(cg_profile_derive_from_tree(p, &err), ==, 0);
	check_int(cg_profile_self(p, 0, b)[0], ==, 25);
	check_int(cg_profile_inclusive(p, 0, m)[0], ==, 36);
	check_int(cg_profile_inclusive(p, 0, a)[0], ==, 30);
	check_int(cg_profile_inclusive(p, 0, b)[0], ==, 25);
	check_int(cg_profile_calls(p, 0, a), ==, 5);
	check_int(cg_profile_calls(p, 0, b), ==, 12);
	long ab = cg_profile_find_arc(p, 0, a, b), ba = cg_profile_find_arc(p, 0, b, a);
	long bb = cg_profile_find_arc(p, 0, b, b), mb = cg_profile_find_arc(p, 0, m, b);
	check(ab >= 0 && ba >= 0 && bb >= 0 && mb >= 0);
	check_int(cg_profile_arc(p, 0, ab)->inclusive[0], ==, 20);
	check_int(cg_profile_arc(p, 0, ba)->count, ==, 3);
	check_int(cg_profile_arc(p, 0, ba)->inclusive[0], ==, 0);
	check_int(cg_profile_arc(p, 0, bb)->count, ==, 7);
	check_int(cg_profile_arc(p, 0, mb)->inclusive[0], ==, 5);
	check_int(cg_profile_find_arc(p, 0, m, m), ==, -1);
	cg_profile_free(p);
}

static void test_merge_parts_sums_everything(void)
{
	cg_profile *p = new_profile_with_events(), *m;
	cg_fid a, b;
	unsigned part1;
	cg_profile_intern_function(p, "a", NULL, NULL, &a);
	cg_profile_intern_function(p, "b", NULL, NULL, &b);
	check_int(cg_profile_add_part(p, "thread 2", &part1), ==, 0);
	cg_cost c[2] = { 2, 1 };
	cg_profile_add_self(p, 0, a, c);
	cg_profile_add_self(p, part1, a, c);
	cg_profile_set_self_exact(p, part1, a, 2.5);
	cg_profile_add_arc(p, 0, a, b, 1, NULL, NULL);
	cg_profile_add_arc(p, part1, a, b, 2, NULL, NULL);
	cg_nid n1, n2;
	cg_profile_node_child(p, 0, 0, a, &n1);
	cg_profile_node_child(p, part1, 0, a, &n2);
	cg_profile_node(p, 0, n1)->calls = 1;
	cg_profile_node(p, part1, n2)->calls = 2;
	cg_profile_set_meta(p, "cmd", "./prog");
	cg_error err = CG_ERROR_INIT;
	check_int(cg_profile_merge_parts(&m, p, &err), ==, 0);
	check_int(cg_profile_part_count(m), ==, 1);
	check_int(cg_profile_self(m, 0, a)[0], ==, 4);
	check_double(cg_profile_self_exact(m, 0, a), 4.5);
	check_int(cg_profile_arc(m, 0, 0)->count, ==, 3);
	check_int(cg_profile_node_count(m, 0), ==, 2);
	check_int(cg_profile_node(m, 0, 1)->calls, ==, 3);
	check_str(cg_profile_meta(m, "cmd"), "./prog");
	cg_cost tot[2];
	cg_profile_part_totals(m, 0, tot);
	check_int(tot[1], ==, 2);
	cg_profile_free(m);
	cg_profile_free(p);
}

static void test_output_is_atomic(void)
{
	char dir[] = "/tmp/cgmodelXXXXXX";
	check(mkdtemp(dir) != NULL);
	char path[256];
	snprintf(path, sizeof path, "%s/out.txt", dir);
	cg_output *o;
	cg_error err = CG_ERROR_INIT;
	check_int(cg_output_open(&o, path, &err), ==, 0);
	fputs("partial", cg_output_file(o));
	check(access(path, F_OK) != 0);
	cg_output_abort(o);
	check(access(path, F_OK) != 0);
	check_int(cg_output_open(&o, path, &err), ==, 0);
	fputs("done", cg_output_file(o));
	check_int(cg_output_commit(o, &err), ==, 0);
	check(access(path, F_OK) == 0);
	unlink(path);
	snprintf(path, sizeof path, "%s/missing/out.txt", dir);
	check_int(cg_output_open(&o, path, &err), ==, CG_EIO);
	check(strstr(err.message, "missing/out.txt") != NULL);
	rmdir(dir);
}

/* After cg_profile_compact the profile reads and grows as before: the
 * freed lookup tables come back when adding or looking up needs them. */
static void test_compact_keeps_lookups(void)
{
	cg_profile *p;
	check_int(cg_profile_new(&p), ==, 0);
	check_int(cg_profile_add_event(p, "Ir", NULL, 0), ==, 0);
	cg_fid f[50];
	char name[16];
	for (int i = 0; i < 50; i++) {
		snprintf(name, sizeof name, "f%d", i);
		check_int(cg_profile_intern_function(p, name, "obj", NULL, &f[i]), ==, 0);
	}
	cg_cost one[1] = { 1 };
	for (int i = 1; i < 50; i++)
		check_int(cg_profile_add_arc(p, 0, f[i - 1], f[i], 2, one, NULL), ==, 0);
	cg_nid a, b, c;
	check_int(cg_profile_node_child(p, 0, 0, f[0], &a), ==, 0);
	check_int(cg_profile_node_child(p, 0, a, f[1], &b), ==, 0);
	cg_profile_compact(p);
	check_int(cg_profile_find_arc(p, 0, f[10], f[11]), ==, 10);
	check_int(cg_profile_find_arc(p, 0, f[11], f[10]), ==, -1);
	cg_fid again;
	check_int(cg_profile_intern_function(p, "f7", "obj", NULL, &again), ==, 0);
	check_int(again, ==, f[7]);
	check_int(cg_profile_function_count(p), ==, 50);
	size_t idx;
	check_int(cg_profile_add_arc(p, 0, f[3], f[4], 5, one, &idx), ==, 0);
	check_int(idx, ==, 3);
	check_int(cg_profile_arc(p, 0, 3)->count, ==, 7);
	check_int(cg_profile_arc(p, 0, 3)->inclusive[0], ==, 2);
	check_int(cg_profile_arc_count(p, 0), ==, 49);
	check_int(cg_profile_node_child(p, 0, a, f[1], &c), ==, 0);
	check_int(c, ==, b);
	check_int(cg_profile_node_count(p, 0), ==, 3);
	cg_profile_free(p);
}

/* The memory budget refuses growth past it and says so; without a limit
 * nothing is refused. */
static void test_memory_limit(void)
{
	cg_set_memory_limit(1024 * 1024);
	check_int(cg_memory_limit(), ==, 1024 * 1024);
	cg_profile *p;
	if (cg_profile_new(&p) != 0) {
		check(!"cg_profile_new within a 1 MB budget");
		cg_set_memory_limit(0);
		return;
	}
	int rc = 0;
	char name[32];
	for (int i = 0; i < 100000 && !rc; i++) {
		snprintf(name, sizeof name, "function_%d", i);
		cg_fid f;
		rc = cg_profile_intern_function(p, name, NULL, NULL, &f);
	}
	check_int(rc, ==, CG_ENOMEM);
	check(cg_memory_limit_hit());
	check(cg_profile_function_count(p) < 100000);
	cg_profile_free(p);
	cg_set_memory_limit(0);
	check(!cg_memory_limit_hit());
	check_int(cg_profile_new(&p), ==, 0);
	rc = 0;
	for (int i = 0; i < 100000 && !rc; i++) {
		snprintf(name, sizeof name, "function_%d", i);
		cg_fid f;
		rc = cg_profile_intern_function(p, name, NULL, NULL, &f);
	}
	check_int(rc, ==, 0);
	check_int(cg_profile_function_count(p), ==, 100000);
	cg_profile_free(p);
}

int main(void)
{
	TEST(test_strings_are_interned(), "strings are interned once");
	TEST(test_function_identity(), "functions are identified by name, object and file");
	TEST(test_events_freeze_once_costs_exist(), "events are fixed once costs exist");
	TEST(test_arcs_accumulate_in_first_seen_order(), "arcs accumulate, first-seen order");
	TEST(test_derive_from_tree_charges_outermost_only(), "call tree: inclusive charged at the outermost instance");
	TEST(test_merge_parts_sums_everything(), "merging parts sums costs, arcs and trees");
	TEST(test_output_is_atomic(), "output files appear only on commit");
	TEST(test_compact_keeps_lookups(), "after cg_profile_compact lookups and additions still work");
	TEST(test_memory_limit(), "cg_set_memory_limit refuses growth past the budget");
	return tap_done();
}
