/*
 * test_typed_model.c — the model's typed format fields (gmon facts, arc
 * self costs) and its hashed lookups: metadata, the one hash map.
 */
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "hashmap.h"
#include "tap.h"
#include "xml_round_trip.h"

static cg_profile *two_event_profile(void)
{
	cg_profile *p;
	if (cg_profile_new(&p))
		abort();
	cg_profile_add_event(p, "us", "microseconds", 1e-6);
	cg_profile_add_event(p, "calls", "calls", 0);
	return p;
}

static void test_meta_hashed(void)
{
	cg_profile *p;
	check_int(cg_profile_new(&p), ==, 0);
	char k[32], v[32];
	for (int i = 0; i < 20000; i++) {
		snprintf(k, sizeof k, "key%d", i);
		snprintf(v, sizeof v, "v%d", i);
		check_int(cg_profile_set_meta(p, k, v), ==, 0);
	}
	check_int(cg_profile_set_meta(p, "key7", "seven"), ==, 0);
	check_int(cg_profile_meta_count(p), ==, 20000);
	check_str(cg_profile_meta(p, "key7"), "seven");
	check_str(cg_profile_meta(p, "key19999"), "v19999");
	check(cg_profile_meta(p, "key20000") == NULL);
	check(cg_profile_meta(p, "") == NULL);
	/* a string interned for another reason is still no key */
	cg_profile_intern(p, "not-a-key");
	check(cg_profile_meta(p, "not-a-key") == NULL);
	const char *key, *value;
	cg_profile_meta_at(p, 7, &key, &value);
	check_str(key, "key7");
	check_str(value, "seven");
	cg_profile_free(p);
}

/* A table reserved for n entries takes them without growing, keeps what
 * it held, and finds everything. */
static void test_hashmap_reserve(void)
{
	struct cg_hashmap m = { 0 };
	for (uint32_t i = 0; i < 10; i++)
		check_int(cg_hashmap_put(&m, (uint64_t)i << 32 | 7, i), ==, 0);
	check_int(cg_hashmap_reserve(&m, 5000), ==, 0);
	size_t cap = m.cap;
	check(cap >= 10000);
	for (uint32_t i = 10; i < 5000; i++)
		check_int(cg_hashmap_put(&m, (uint64_t)i << 32 | 7, i), ==, 0);
	check_int(m.cap, ==, cap);
	check_int(m.count, ==, 5000);
	size_t missing = 0;
	uint32_t v;
	for (uint32_t i = 0; i < 5000; i++)
		missing += !cg_hashmap_get(&m, (uint64_t)i << 32 | 7, &v) || v != i;
	check_int(missing, ==, 0);
	check_int(cg_hashmap_reserve(&m, 10), ==, 0);   /* never shrinks */
	check_int(m.cap, ==, cap);
	cg_hashmap_release(&m);
	check_int(cg_hashmap_reserve(&m, 0), ==, 0);
	check(cg_hashmap_get(&m, 7, &v) == 0);
	cg_hashmap_release(&m);
}

static void test_hashmap_content_keys(void)
{
	struct cg_hashmap m = { 0 };
	/* 100 items under one key among 5000 others, across rehashes */
	for (uint32_t i = 0; i < 5100; i++)
		check_int(cg_hashmap_add(&m, i < 100 ? 42 : 1000 + i, i), ==, 0);
	unsigned char seen[100] = { 0 };
	size_t cursor = 0, n = 0;
	uint32_t v;
	while (cg_hashmap_next(&m, 42, &cursor, &v)) {
		check(v < 100 && !seen[v]);
		if (v < 100)
			seen[v] = 1;
		n++;
	}
	check_int(n, ==, 100);
	cursor = 0;
	check(!cg_hashmap_next(&m, 7, &cursor, &v));
	check(cg_hashmap_get(&m, 1000 + 4000, &v) && v == 4000);
	cg_hashmap_release(&m);
	check(cg_hash_bytes(CG_HASH_INIT, "a", 1) != cg_hash_bytes(CG_HASH_INIT, "b", 1));
	check(cg_hash_bytes(cg_hash_bytes(CG_HASH_INIT, "ab", 2), "c", 1) ==
	      cg_hash_bytes(CG_HASH_INIT, "abc", 3));
}

static const cg_gmon_info sample_gmon = {
	.has_histogram = 1, .has_arcs = 1, .has_bb = 0, .version = 1,
	.dimension = "seconds", .dimension_abbrev = "s",
	.scale = 1.9967532467532467, .total_time = 0.1 + 0.2, .total_samples = 24,
};

static void check_gmon(const cg_gmon_info *g)
{
	check(g != NULL);
	if (!g)
		return;
	check_int(g->has_histogram, ==, 1);
	check_int(g->has_arcs, ==, 1);
	check_int(g->has_bb, ==, 0);
	check_int(g->version, ==, 1);
	check_str(g->dimension, "seconds");
	check_str(g->dimension_abbrev, "s");
	check_double(g->scale, 1.9967532467532467);
	check_double(g->total_time, 0.1 + 0.2);
	check_int(g->total_samples, ==, 24);
}

static void test_gmon_info_travels(void)
{
	cg_profile *p = two_event_profile(), *q = NULL, *r = NULL, *x = NULL;
	cg_error err = { 0 };
	check(cg_profile_gmon_info(p) == NULL);
	char dim[16] = "seconds";
	cg_gmon_info g = sample_gmon;
	g.dimension = dim;
	check_int(cg_profile_set_gmon_info(p, &g), ==, 0);
	dim[0] = 'x';   /* the profile keeps its own copy */
	check_gmon(cg_profile_gmon_info(p));
	check(cg_profile_meta_count(p) == 0);
	cg_fid f;
	cg_profile_intern_function(p, "main", NULL, NULL, &f);
	unsigned part;
	cg_profile_add_part(p, "second", &part);

	check_int(cg_profile_merge_parts(&q, p, &err), ==, 0);
	check_gmon(q ? cg_profile_gmon_info(q) : NULL);
	check_int(cg_profile_new(&r), ==, 0);
	check_int(cg_profile_merge_into(r, p, &err), ==, 0);
	check_gmon(cg_profile_gmon_info(r));
	x = xml_round_trip(p);
	check_gmon(x ? cg_profile_gmon_info(x) : NULL);
	cg_profile_free(x);
	const char *pattern = "main";
	check_int(cg_transparent_apply(&x, p, &pattern, 1, &err), ==, 0);
	check_gmon(x ? cg_profile_gmon_info(x) : NULL);

	/* defaults, and removal */
	cg_gmon_info bare = { .has_arcs = 1 };
	check_int(cg_profile_set_gmon_info(p, &bare), ==, 0);
	check_str(cg_profile_gmon_info(p)->dimension, "seconds");
	check_str(cg_profile_gmon_info(p)->dimension_abbrev, "s");
	check_int(cg_profile_set_gmon_info(p, NULL), ==, 0);
	check(cg_profile_gmon_info(p) == NULL);
	cg_profile_free(p);
	cg_profile_free(q);
	cg_profile_free(r);
	cg_profile_free(x);
}

/* An XML file from before <gmon> existed carries the facts as metadata. */
static void test_gmon_info_from_old_xml(void)
{
	static const char doc[] =
		"<callgraph version=\"1\" xmlns=\"urn:x-callgraph:profile:1\">\n"
		" <meta key=\"executable\" value=\"a.out\"/>\n"
		" <meta key=\"gmon.histogram\" value=\"1\"/>\n"
		" <meta key=\"gmon.arcs\" value=\"0\"/>\n"
		" <meta key=\"gmon.scale\" value=\"1.9967532467532467\"/>\n"
		" <meta key=\"gmon.total_time\" value=\"0.30000000000000004\"/>\n"
		" <meta key=\"gmon.total_samples\" value=\"24\"/>\n"
		" <part name=\"\"/>\n"
		"</callgraph>\n";
	cg_profile *p = NULL;
	cg_error err = { 0 };
	check_int(cg_read_xml_buffer(&p, doc, sizeof doc - 1, "old.xml", &err), ==, 0);
	const cg_gmon_info *g = p ? cg_profile_gmon_info(p) : NULL;
	check(g != NULL);
	if (g) {
		check_int(g->has_histogram, ==, 1);
		check_int(g->has_arcs, ==, 0);
		check_double(g->scale, 1.9967532467532467);
		check_double(g->total_time, 0.1 + 0.2);
		check_str(g->dimension, "seconds");
		check(cg_profile_meta(p, "gmon.scale") == NULL);
		check_str(cg_profile_meta(p, "executable"), "a.out");
	}
	cg_profile_free(p);
}

static void test_arc_self(void)
{
	cg_profile *p = two_event_profile(), *q = NULL, *r = NULL, *x = NULL;
	cg_error err = { 0 };
	cg_fid a, b, c;
	cg_profile_intern_function(p, "a", NULL, NULL, &a);
	cg_profile_intern_function(p, "b", NULL, NULL, &b);
	cg_profile_intern_function(p, "c", NULL, NULL, &c);
	unsigned p1;
	cg_profile_add_part(p, "<0.2.0>", &p1);
	size_t ab, ac, ab1;
	const cg_cost incl[2] = { 100, 3 }, s1[2] = { 30, 1 }, s2[2] = { 5, 0 };
	cg_profile_add_arc(p, 0, a, b, 3, incl, &ab);
	cg_profile_add_arc(p, 0, a, c, 1, incl, &ac);
	cg_profile_add_arc(p, p1, a, b, 2, incl, &ab1);
	check(cg_profile_arc(p, 0, ab)->self == NULL);
	check_int(cg_profile_add_arc_self(p, 0, ab, s1), ==, 0);
	check_int(cg_profile_add_arc_self(p, 0, ab, s2), ==, 0);
	check_int(cg_profile_add_arc_self(p, p1, ab1, s1), ==, 0);
	check_int(cg_profile_add_arc_self(p, 0, 99, s1), ==, CG_EUSAGE);
	check_int(cg_profile_add_arc_self(p, 7, ab, s1), ==, CG_EUSAGE);
	check_int(cg_profile_arc(p, 0, ab)->self[0], ==, 35);
	check_int(cg_profile_arc(p, 0, ab)->self[1], ==, 1);
	check(cg_profile_arc(p, 0, ac)->self == NULL);
	/* the callee's own self cost is separate */
	check_int(cg_profile_self(p, 0, b)[0], ==, 0);

	/* parts merged: a->b's self sums over both parts */
	check_int(cg_profile_merge_parts(&q, p, &err), ==, 0);
	long i = q ? cg_profile_find_arc(q, 0, a, b) : -1;
	check(i >= 0 && cg_profile_arc(q, 0, (size_t)i)->self &&
	      cg_profile_arc(q, 0, (size_t)i)->self[0] == 65);
	/* profiles merged (events in another order): by part name and event */
	check_int(cg_profile_new(&r), ==, 0);
	cg_profile_add_event(r, "calls", "calls", 0);
	cg_profile_add_event(r, "us", "microseconds", 1e-6);
	check_int(cg_profile_merge_into(r, p, &err), ==, 0);
	check_int(cg_profile_merge_into(r, p, &err), ==, 0);
	i = cg_profile_find_arc(r, 0, a, b);
	check(i >= 0 && cg_profile_arc(r, 0, (size_t)i)->self &&
	      cg_profile_arc(r, 0, (size_t)i)->self[1] == 70 &&
	      cg_profile_arc(r, 0, (size_t)i)->self[0] == 2);
	/* the XML image keeps it, and keeps its absence */
	x = xml_round_trip(p);
	check(x != NULL);
	if (x) {
		check(cg_profile_arc(x, 0, ab)->self && cg_profile_arc(x, 0, ab)->self[0] == 35);
		check(cg_profile_arc(x, 0, ac)->self == NULL);
		check(cg_profile_arc(x, p1, ab1)->self && cg_profile_arc(x, p1, ab1)->self[0] == 30);
	}
	cg_profile_free(p);
	cg_profile_free(q);
	cg_profile_free(r);
	cg_profile_free(x);
}

/* fprof's OWN per caller row, read from an analysis, survives merging the
 * profile with itself (it used to live in metadata keyed by part index). */
static void test_fprof_own_survives_merge(void)
{
	static const char analysis[] =
		"%% Analysis results:\n"
		"{  analysis_options,\n"
		" [{callers, true},\n"
		"  {sort, acc},\n"
		"  {totals, false},\n"
		"  {details, true}]}.\n"
		"\n"
		"%                                               CNT       ACC       OWN        \n"
		"[{ totals,                                        3,    0.030,    0.030}].  %%%\n"
		"\n"
		"%                                               CNT       ACC       OWN        \n"
		"[{ \"<0.80.0>\",                                    3,undefined,    0.030}].   %\n"
		"\n"
		"{[{undefined,                                     1,    0.030,    0.010}],\n"
		" { {m,a,0},                                       1,    0.030,    0.010},     %\n"
		" [{{m,b,0},                                       2,    0.020,    0.020}]}.\n"
		"\n"
		"{[{{m,a,0},                                       2,    0.020,    0.020}],\n"
		" { {m,b,0},                                       2,    0.020,    0.020},     %\n"
		" [ ]}.\n";
	cg_profile *p, *r;
	cg_error err = { 0 };
	check_int(cg_profile_new(&p), ==, 0);
	int rc = cg_read_fprof_analysis_buffer(p, analysis, sizeof analysis - 1, "t.analysis", &err);
	check_int(rc, ==, 0);
	if (rc)
		printf("# %s\n", err.message);
	cg_fid a, b;
	cg_profile_intern_function(p, "m:a/0", NULL, NULL, &a);
	cg_profile_intern_function(p, "m:b/0", NULL, NULL, &b);
	int us = cg_profile_find_event(p, "us");
	long i = cg_profile_find_arc(p, 0, a, b);
	check(us >= 0 && i >= 0 && cg_profile_arc(p, 0, (size_t)i)->self &&
	      cg_profile_arc(p, 0, (size_t)i)->self[us] == 20);
	check_int(cg_profile_new(&r), ==, 0);
	check_int(cg_profile_merge_into(r, p, &err), ==, 0);
	check_int(cg_profile_merge_into(r, p, &err), ==, 0);
	/* parts are matched by name: the process is the merged profile's last */
	unsigned part = (unsigned)cg_profile_part_count(r) - 1;
	check_str(cg_profile_part_name(r, part), "<0.80.0>");
	cg_profile_intern_function(r, "m:a/0", NULL, NULL, &a);
	cg_profile_intern_function(r, "m:b/0", NULL, NULL, &b);
	i = cg_profile_find_arc(r, part, a, b);
	check(i >= 0 && cg_profile_arc(r, part, (size_t)i)->self &&
	      cg_profile_arc(r, part, (size_t)i)->self[0] == 40);
	for (size_t k = 0; k < cg_profile_meta_count(r); k++) {
		const char *key, *value;
		cg_profile_meta_at(r, k, &key, &value);
		check(strstr(key, ".rows") == NULL);
	}
	cg_profile_free(p);
	cg_profile_free(r);
}

/* A part's own pairs follow the part: by name through a merge into a
 * profile whose part numbers differ, and through XML. */
static void test_part_meta(void)
{
	cg_profile *p = two_event_profile(), *r = NULL, *x = NULL;
	cg_error err = { 0 };
	unsigned p1, r1;
	cg_profile_set_part_name(p, 0, "<0.80.0>");
	cg_profile_add_part(p, "<0.81.0>", &p1);
	check_int(cg_profile_set_part_meta(p, p1, "spawned_by", "<0.80.0>"), ==, 0);
	check_int(cg_profile_set_part_meta(p, p1, "initial_calls", "[x]"), ==, 0);
	check_int(cg_profile_set_part_meta(p, p1, "initial_calls", "[{m,f,0}]"), ==, 0);
	check_int(cg_profile_set_part_meta(p, 9, "k", "v"), ==, CG_EUSAGE);
	check_int(cg_profile_part_meta_count(p, p1), ==, 2);
	check_str(cg_profile_part_meta(p, p1, "initial_calls"), "[{m,f,0}]");
	check(cg_profile_part_meta(p, 0, "spawned_by") == NULL);
	check(cg_profile_meta(p, "spawned_by") == NULL);

	check_int(cg_profile_new(&r), ==, 0);
	cg_profile_add_part(r, "<0.81.0>", &r1);   /* r's part 1 is p's part 1 */
	cg_profile_set_part_name(r, 0, "<0.99.0>");
	check_int(cg_profile_merge_into(r, p, &err), ==, 0);
	check_str(cg_profile_part_meta(r, r1, "spawned_by"), "<0.80.0>");
	check(cg_profile_part_meta(r, 0, "spawned_by") == NULL);
	x = xml_round_trip(p);
	check(x && cg_profile_part_meta_count(x, p1) == 2);
	if (x)
		check_str(cg_profile_part_meta(x, p1, "spawned_by"), "<0.80.0>");
	cg_profile_free(p);
	cg_profile_free(r);
	cg_profile_free(x);

	/* files from before part metadata kept it as "fprof.part.N.*" */
	static const char doc[] =
		"<callgraph version=\"1\" xmlns=\"urn:x-callgraph:profile:1\">\n"
		" <meta key=\"fprof.part.1.spawned_by\" value=\"&lt;0.80.0&gt;\"/>\n"
		" <meta key=\"fprof.part.7.spawned_by\" value=\"no such part\"/>\n"
		" <part name=\"a\"/>\n"
		" <part name=\"b\"/>\n"
		"</callgraph>\n";
	check_int(cg_read_xml_buffer(&x, doc, sizeof doc - 1, "old.xml", &err), ==, 0);
	if (x) {
		check_str(cg_profile_part_meta(x, 1, "spawned_by"), "<0.80.0>");
		check_int(cg_profile_meta_count(x), ==, 0);
	}
	cg_profile_free(x);
}

/* Old XML images of fprof profiles kept OWN per row in metadata: read
 * back into the arcs' self costs when they match the arcs, else dropped. */
static void test_old_fprof_rows(void)
{
	static const char head[] =
		"<callgraph version=\"1\" xmlns=\"urn:x-callgraph:profile:1\">\n"
		" <meta key=\"fprof.part.0.rows\" value=\"m:a/0&#9;m:b/0&#9;2&#9;20&#9;%s&#10;\"/>\n"
		" <event name=\"us\" unit-seconds=\"1e-06\"/>\n"
		" <function id=\"0\" name=\"m:a/0\"/>\n"
		" <function id=\"1\" name=\"m:b/0\"/>\n"
		" <part name=\"&lt;0.80.0&gt;\">\n"
		"  <arc caller=\"0\" callee=\"1\" count=\"%s\" inclusive=\"20\"/>\n"
		" </part>\n"
		"</callgraph>\n";
	char doc[1024];
	cg_profile *p = NULL;
	cg_error err = { 0 };
	snprintf(doc, sizeof doc, head, "7", "2");
	check_int(cg_read_xml_buffer(&p, doc, strlen(doc), "old.xml", &err), ==, 0);
	check(p && cg_profile_arc(p, 0, 0)->self && cg_profile_arc(p, 0, 0)->self[0] == 7);
	check(p && cg_profile_meta_count(p) == 0);
	cg_profile_free(p);
	p = NULL;
	snprintf(doc, sizeof doc, head, "7", "3");   /* rows no longer match the arcs */
	check_int(cg_read_xml_buffer(&p, doc, strlen(doc), "old.xml", &err), ==, 0);
	check(p && cg_profile_arc(p, 0, 0)->self == NULL);
	cg_profile_free(p);
}

int main(void)
{
	TEST(test_meta_hashed(), "metadata: 20k keys, overwrite, absent keys, order kept");
	TEST(test_hashmap_reserve(), "hash map: reserved room is used without growing");
	TEST(test_hashmap_content_keys(), "hash map: many values under one content key survive rehashing");
	TEST(test_gmon_info_travels(), "gmon facts: exact through part and profile merges, XML, transforms");
	TEST(test_gmon_info_from_old_xml(), "gmon facts: read from the gmon.* metadata of old XML files");
	TEST(test_arc_self(), "arc self cost: accumulates, summed by merges, kept by XML");
	TEST(test_fprof_own_survives_merge(), "fprof OWN per caller row survives a profile merge");
	TEST(test_part_meta(), "part metadata: follows its part through merges and XML");
	TEST(test_old_fprof_rows(), "old XML: fprof.part.N.rows become arc self costs when they match");
	return tap_done();
}
