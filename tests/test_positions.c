/*
 * test_positions.c — positions in the model: self costs per line,
 * address and inlined file, arc costs per call site; the invariant that
 * they add up, through merges, transforms, the XML image and bad input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "callgraph/sys/format.h"
#include "tap.h"
#include "xml_round_trip.h"

static cg_profile *profile_ab(cg_fid *a, cg_fid *b)
{
	cg_profile *p;
	if (cg_profile_new(&p))
		abort();
	cg_profile_add_event(p, "Ir", "instructions", 0);
	cg_profile_add_event(p, "Dr", "data reads", 0);
	cg_profile_intern_function(p, "a", "/bin/x", "a.c", a);
	cg_profile_intern_function(p, "b", "/bin/x", "b.c", b);
	cg_profile_function(p, *a)->line = 10;
	cg_profile_function(p, *b)->line = 20;
	return p;
}

/* sum of f's positions (event e) and how many */
static cg_cost position_sum(const cg_profile *p, unsigned part, cg_fid f, size_t e, int *n)
{
	size_t cursor = 0;
	cg_position at;
	const cg_cost *c;
	cg_cost sum = 0;
	*n = 0;
	while (cg_profile_next_self_position(p, part, f, &cursor, &at, &c)) {
		sum += c[e];
		(*n)++;
	}
	return sum;
}

static void test_self_positions(void)
{
	cg_fid a, b;
	cg_profile *p = profile_ab(&a, &b);
	cg_error err = { 0 };
	cg_position l11 = { .line = 11, .addr = 0x1000 }, l12 = { .line = 12, .addr = 0x1004 };
	cg_position inl = { .line = 3, .addr = 0x1008, .file = "inl.h" };
	cg_position own = { .line = 13, .file = "a.c" };   /* the function's own file */
	cg_cost c1[] = { 5, 1 }, c2[] = { 7, 0 }, c3[] = { 2, 2 };
	check_int(cg_profile_add_self_at(p, 0, a, &l11, c1), ==, 0);
	check_int(cg_profile_add_self_at(p, 0, a, &l12, c2), ==, 0);
	check_int(cg_profile_add_self_at(p, 0, a, &l11, c1), ==, 0);   /* adds up */
	check_int(cg_profile_add_self_at(p, 0, a, &inl, c3), ==, 0);
	check_int(cg_profile_add_self_at(p, 0, a, &own, c3), ==, 0);
	check_int(cg_profile_self(p, 0, a)[0], ==, 21);
	check_int(cg_profile_self(p, 0, a)[1], ==, 6);
	int n;
	check_int(position_sum(p, 0, a, 0, &n), ==, 21);
	check_int(n, ==, 4);
	/* order of first appearance; the own file is stored as NULL */
	size_t cursor = 0;
	cg_position at;
	const cg_cost *c;
	check(cg_profile_next_self_position(p, 0, a, &cursor, &at, &c));
	check(at.line == 11 && at.addr == 0x1000 && !at.file && c[0] == 10 && c[1] == 2);
	check(cg_profile_next_self_position(p, 0, a, &cursor, &at, &c));
	check(at.line == 12);
	check(cg_profile_next_self_position(p, 0, a, &cursor, &at, &c));
	check(at.line == 3 && at.file && strcmp(at.file, "inl.h") == 0);
	check(cg_profile_next_self_position(p, 0, a, &cursor, &at, &c));
	check(at.line == 13 && at.file == NULL);
	check(!cg_profile_next_self_position(p, 0, a, &cursor, &at, &c));
	check(!cg_profile_next_self_position(p, 0, b, &(size_t){ 0 }, &at, &c));
	check_int(cg_profile_position_kinds(p), ==, CG_POS_LINE | CG_POS_INSTR);
	check_int(cg_profile_check_positions(p, "t", &err), ==, 0);
	/* a sum past 2^63-1 is refused and changes nothing */
	cg_cost huge[] = { INT64_MAX, 0 };
	check_int(cg_profile_add_self_at(p, 0, a, &l12, huge), ==, CG_EFORMAT);
	check_int(cg_profile_self(p, 0, a)[0], ==, 21);
	check_int(position_sum(p, 0, a, 0, &n), ==, 21);
	/* a self cost added without a position breaks the invariant, and
	 * the check says so naming the function */
	check_int(cg_profile_add_self(p, 0, a, c1), ==, 0);
	check_int(cg_profile_check_positions(p, "t", &err), ==, CG_EFORMAT);
	check(strstr(err.message, "t: the costs per position of a") != NULL);
	cg_profile_free(p);
}

static void test_call_sites(void)
{
	cg_fid a, b;
	cg_profile *p = profile_ab(&a, &b);
	cg_error err = { 0 };
	cg_position s1 = { .line = 14 }, s2 = { .line = 15, .file = "inl.h" };
	cg_cost i1[] = { 100, 3 }, i2[] = { 50, 1 };
	size_t idx1, idx2;
	check_int(cg_profile_add_arc_at(p, 0, a, b, &s1, 2, i1, &idx1), ==, 0);
	check_int(cg_profile_add_arc_at(p, 0, a, b, &s2, 1, i2, &idx2), ==, 0);
	check_int(cg_profile_add_arc_at(p, 0, a, b, &s1, 1, i2, NULL), ==, 0);
	check_int(idx1, ==, idx2);
	const cg_arc *arc = cg_profile_arc(p, 0, idx1);
	check_int(arc->count, ==, 4);
	check_int(arc->inclusive[0], ==, 200);
	check_int(arc->line, ==, 14);
	size_t cursor = 0;
	cg_position at;
	uint64_t count;
	const cg_cost *c;
	check(cg_profile_next_arc_site(p, 0, idx1, &cursor, &at, &count, &c));
	check(at.line == 14 && count == 3 && c[0] == 150 && c[1] == 4);
	check(cg_profile_next_arc_site(p, 0, idx1, &cursor, &at, &count, &c));
	check(at.line == 15 && count == 1 && at.file && strcmp(at.file, "inl.h") == 0);
	check(!cg_profile_next_arc_site(p, 0, idx1, &cursor, &at, &count, &c));
	check_int(cg_profile_check_positions(p, "t", &err), ==, 0);
	/* calls added without a site break it */
	check_int(cg_profile_add_arc(p, 0, a, b, 1, NULL, NULL), ==, 0);
	check_int(cg_profile_check_positions(p, "t", &err), ==, CG_EFORMAT);
	check(strstr(err.message, "call sites of the call from a to b") != NULL);
	cg_profile_free(p);
}

/* part 0 with positions, part 1 without: the merged part puts part 1's
 * cost at the function's line (and the arc's), so the sums hold */
static void test_merge_parts(void)
{
	cg_fid a, b;
	cg_profile *p = profile_ab(&a, &b), *m = NULL;
	cg_error err = { 0 };
	unsigned part1;
	cg_profile_add_part(p, "t2", &part1);
	cg_position l11 = { .line = 11 }, s = { .line = 16 };
	cg_cost c[] = { 5, 1 }, d[] = { 3, 0 }, incl[] = { 40, 4 };
	check_int(cg_profile_add_self_at(p, 0, a, &l11, c), ==, 0);
	check_int(cg_profile_add_arc_at(p, 0, a, b, &s, 2, incl, NULL), ==, 0);
	check_int(cg_profile_add_self(p, part1, a, d), ==, 0);
	check_int(cg_profile_add_arc(p, part1, a, b, 1, incl, NULL), ==, 0);
	check_int(cg_profile_merge_parts(&m, p, &err), ==, 0);
	check_int(cg_profile_check_positions(m, "m", &err), ==, 0);
	int n;
	check_int(position_sum(m, 0, a, 0, &n), ==, 8);
	check_int(n, ==, 2);
	size_t cursor = 0;
	cg_position at;
	const cg_cost *co;
	cg_profile_next_self_position(m, 0, a, &cursor, &at, &co);
	check(at.line == 11 && co[0] == 5);
	cg_profile_next_self_position(m, 0, a, &cursor, &at, &co);
	check(at.line == 10 && co[0] == 3);   /* a's own line */
	/* merging the merged profile into a copy of itself doubles both */
	cg_profile *twice = NULL;
	check_int(cg_profile_merge_parts(&twice, m, &err), ==, 0);
	check_int(cg_profile_merge_into(twice, m, &err), ==, 0);
	check_int(cg_profile_check_positions(twice, "twice", &err), ==, 0);
	check_int(position_sum(twice, 0, a, 0, &n), ==, 16);
	check_int(cg_profile_position_kinds(twice), ==, CG_POS_LINE);
	cg_profile_free(twice);
	cg_profile_free(m);
	cg_profile_free(p);
}

static void test_xml_keeps_positions(void)
{
	cg_fid a, b;
	cg_profile *p = profile_ab(&a, &b);
	cg_error err = { 0 };
	cg_position l11 = { .line = 11, .addr = 0x401000 };
	cg_position inl = { .line = 3, .addr = 0x401010, .file = "in\tl.h" };   /* needs hex */
	cg_position s = { .line = 12, .addr = 0x401020 };
	cg_cost c[] = { 5, 1 }, incl[] = { 40, 4 };
	cg_profile_add_self_at(p, 0, b, &l11, c);
	cg_profile_add_self_at(p, 0, a, &inl, c);
	cg_profile_add_self_at(p, 0, a, &l11, c);
	cg_profile_add_arc_at(p, 0, a, b, &s, 2, incl, NULL);
	cg_profile *q = xml_round_trip(p);
	check(q != NULL);
	if (!q) {
		cg_profile_free(p);
		return;
	}
	check_int(cg_profile_check_positions(q, "q", &err), ==, 0);
	check_int(cg_profile_position_kinds(q), ==, CG_POS_LINE | CG_POS_INSTR);
	size_t cursor = 0;
	cg_position at;
	const cg_cost *co;
	check(cg_profile_next_self_position(q, 0, a, &cursor, &at, &co));
	check(at.line == 3 && at.addr == 0x401010 && at.file && strcmp(at.file, "in\tl.h") == 0);
	check(cg_profile_next_self_position(q, 0, a, &cursor, &at, &co));
	check(at.line == 11 && at.addr == 0x401000 && !at.file && co[0] == 5 && co[1] == 1);
	uint64_t count;
	cursor = 0;
	check(cg_profile_next_arc_site(q, 0, 0, &cursor, &at, &count, &co));
	check(at.line == 12 && at.addr == 0x401020 && count == 2 && co[0] == 40);
	/* the image of the image is the same */
	cg_profile *r = xml_round_trip(q);
	char *b1 = NULL, *b2 = NULL;
	size_t l1 = 0, l2 = 0;
	FILE *f1 = open_memstream(&b1, &l1), *f2 = open_memstream(&b2, &l2);
	cg_write_xml(q, f1, &err);
	cg_write_xml(r, f2, &err);
	fclose(f1);
	fclose(f2);
	check(l1 == l2 && memcmp(b1, b2, l1) == 0);
	free(b1);
	free(b2);
	cg_profile_free(r);
	cg_profile_free(q);
	cg_profile_free(p);
}

static void test_xml_refuses_bad_positions(void)
{
	static const char *docs[] = {
		/* positions that do not add up to the self cost */
		"<self fn=\"0\" costs=\"5\"/><self-at fn=\"0\" line=\"3\" costs=\"4\"/>",
		/* a call site of an arc that is not there */
		"<self fn=\"0\" costs=\"5\"/><call-at caller=\"0\" callee=\"0\" line=\"3\" count=\"1\"/>",
		/* an attribute the schema does not allow */
		"<self fn=\"0\" costs=\"5\"/><self-at fn=\"0\" lin=\"3\" costs=\"5\"/>",
	};
	static const char *want[] = { "do not add up", "has no <arc>", "does not allow: lin" };
	for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
		char doc[1024];
		snprintf(doc, sizeof doc,
			 "<callgraph xmlns=\"urn:x-callgraph:profile:1\" version=\"1\" positions=\"line\">"
			 "<event name=\"Ir\" description=\"Ir\" unit-seconds=\"0\"/>"
			 "<function id=\"0\" name=\"f\"/><part name=\"\">%s</part></callgraph>",
			 docs[i]);
		cg_profile *p = NULL;
		cg_error err = { 0 };
		check_int(cg_read_xml_buffer(&p, doc, strlen(doc), "bad.xml", &err), ==, CG_EFORMAT);
		check(p == NULL);
		check(strstr(err.message, "bad.xml") != NULL && strstr(err.message, want[i]) != NULL);
		if (!strstr(err.message, want[i]))
			printf("# got: %s\n", err.message);
	}
}

/* b is transparent: its cost goes to a, which keeps its own positions
 * and gets the rest at its line; the sums hold */
static void test_transparent_keeps_sums(void)
{
	cg_fid a, b, c;
	cg_profile *p = profile_ab(&a, &b), *q = NULL;
	cg_error err = { 0 };
	cg_profile_intern_function(p, "main", NULL, "m.c", &c);
	cg_position l11 = { .line = 11 }, l21 = { .line = 21 }, s = { .line = 12 }, sm = { .line = 2 };
	cg_cost ca[] = { 5, 1 }, cb[] = { 7, 2 }, incl[] = { 7, 2 }, inclm[] = { 12, 3 };
	cg_profile_add_self_at(p, 0, a, &l11, ca);
	cg_profile_add_self_at(p, 0, b, &l21, cb);
	cg_profile_add_arc_at(p, 0, a, b, &s, 2, incl, NULL);
	cg_profile_add_arc_at(p, 0, c, a, &sm, 1, inclm, NULL);
	const char *pattern = "b";
	check_int(cg_transparent_apply(&q, p, &pattern, 1, &err), ==, 0);
	check_int(cg_profile_check_positions(q, "q", &err), ==, 0);
	int n;
	check_int(cg_profile_self(q, 0, a)[0], ==, 12);
	check_int(position_sum(q, 0, a, 0, &n), ==, 12);
	check_int(n, ==, 2);
	check_int(position_sum(q, 0, b, 0, &n), ==, 0);
	check_int(n, ==, 0);
	/* the arc main -> a is unchanged: it keeps its call site */
	long idx = cg_profile_find_arc(q, 0, c, a);
	size_t cursor = 0;
	cg_position at;
	uint64_t count;
	const cg_cost *co;
	check(idx >= 0 && cg_profile_next_arc_site(q, 0, (size_t)idx, &cursor, &at, &count, &co));
	check(at.line == 2 && count == 1);
	cg_profile_free(q);
	cg_profile_free(p);
}

static void test_tree_drops_positions(void)
{
	cg_fid a, b;
	cg_profile *p = profile_ab(&a, &b);
	cg_error err = { 0 };
	cg_position l11 = { .line = 11 };
	cg_cost c[] = { 5, 1 };
	cg_profile_add_self_at(p, 0, a, &l11, c);
	cg_nid n;
	check_int(cg_profile_node_child(p, 0, 0, a, &n), ==, 0);
	cg_profile_node(p, 0, n)->self[0] = 9;
	check_int(cg_profile_derive_from_tree(p, &err), ==, 0);
	check(!cg_profile_has_positions(p, 0));
	check_int(cg_profile_check_positions(p, "p", &err), ==, 0);
	cg_profile_free(p);
}

/* Reads a two-line Callgrind text with the given options. */
static cg_profile *read_callgrind_text(const char *text, const cg_read_options *opts)
{
	cg_source *src;
	cg_error err = { 0 };
	cg_profile *p = NULL;
	if (cg_source_new_buffer(&src, "t.cg", text, strlen(text), &err))
		return NULL;
	if (cg_read_source(&p, src, opts, &err))
		printf("# read: %s\n", err.message);
	cg_source_close(src);
	return p;
}

static void test_drop_positions(void)
{
	const char *text = "events: Ir\nfn=a\n10 3\n12 4\ncfn=b\ncalls=2 20\n11 7\nfn=b\n20 7\n";
	cg_read_options keep = CG_READ_OPTIONS_INIT, drop = CG_READ_OPTIONS_INIT,
			old = CG_READ_OPTIONS_INIT;
	drop.drop_positions = 1;
	/* a version 2 caller's struct ends before drop_positions: never read */
	old.version = 2;
	old.drop_positions = 1;
	cg_profile *k = read_callgrind_text(text, &keep), *d = read_callgrind_text(text, &drop),
		   *o = read_callgrind_text(text, &old);
	check(k && d && o);
	if (!k || !d || !o)
		goto out;
	check(cg_profile_has_positions(k, 0));
	check(!cg_profile_has_positions(d, 0));
	check(cg_profile_has_positions(o, 0));
	cg_fid a = 0;
	check_int(cg_profile_self(d, 0, a)[0], ==, 7);
	check_int(cg_profile_self(k, 0, a)[0], ==, 7);
	check_int(cg_profile_arc_count(d, 0), ==, 1);
	check_int(cg_profile_arc(d, 0, 0)->count, ==, 2);
	check_int(cg_profile_arc(d, 0, 0)->inclusive[0], ==, 7);
out:
	cg_profile_free(k);
	cg_profile_free(d);
	cg_profile_free(o);
}

int main(void)
{
	TEST(test_self_positions(), "self costs per position add up; order, own file, overflow refused, check catches a mismatch");
	TEST(test_call_sites(), "arc costs per call site add up to the arc; check catches a mismatch");
	TEST(test_merge_parts(), "part and profile merges carry positions; cost without them goes to the function's line");
	TEST(test_xml_keeps_positions(), "XML keeps positions, call sites, inlined files and kinds");
	TEST(test_xml_refuses_bad_positions(), "XML: positions that do not add up, sites without an arc, unknown attributes refused");
	TEST(test_transparent_keeps_sums(), "transparent functions: kept functions keep positions, sums hold");
	TEST(test_tree_drops_positions(), "costs derived from a call tree drop positions");
	TEST(test_drop_positions(), "drop_positions reads only sums; version 2 options keep positions");
	return tap_done();
}
