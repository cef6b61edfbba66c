/* test_diff.c — unit tests of cgdiff's library part (diff*.c), on profiles
 * built through the model API. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "tap.h"

enum { TICKS, CSC };

/* A profile with a sampled event (100 Hz ticks) and an exact one. */
static cg_profile *new_profile(void)
{
	cg_profile *p;
	if (cg_profile_new(&p))
		abort();
	cg_profile_add_event(p, "ticks", "CPU ticks", 0.01);
	cg_profile_add_event(p, "csc", "call sequence count", 0);
	return p;
}

static cg_fid fn(cg_profile *p, const char *name, const char *file)
{
	cg_fid f;
	if (cg_profile_intern_function(p, name, "/bin/prog", file, &f))
		abort();
	return f;
}

static void self(cg_profile *p, unsigned part, cg_fid f, cg_cost ticks, cg_cost csc)
{
	cg_cost c[2] = { ticks, csc };
	cg_profile_add_self(p, part, f, c);
}

/* main -> a (2), main -> b (1), a -> c, b -> c; self 1, 2, 3, 4 ticks. */
static cg_profile *diamond(cg_cost c_ticks, cg_cost c_csc, uint64_t b_calls_c)
{
	cg_profile *p = new_profile();
	cg_fid m = fn(p, "main", "m.c"), a = fn(p, "a", "m.c"), b = fn(p, "b", "m.c"),
	       c = fn(p, "c", "m.c");
	self(p, 0, m, 100, 10);
	self(p, 0, a, 200, 20);
	self(p, 0, b, 300, 30);
	self(p, 0, c, c_ticks, c_csc);
	cg_profile_add_arc(p, 0, m, a, 2, NULL, NULL);
	cg_profile_add_arc(p, 0, m, b, 1, NULL, NULL);
	cg_profile_add_arc(p, 0, a, c, 1, NULL, NULL);
	if (b_calls_c)
		cg_profile_add_arc(p, 0, b, c, b_calls_c, NULL, NULL);
	return p;
}

static int check_rules(cg_diff *d, const char *rule1, const char *rule2, const char *event)
{
	const char *rules[2] = { rule1, rule2 };
	const char *events[1] = { event };
	cg_error err = CG_ERROR_INIT;
	int n = cg_diff_check(d, rules, rule1 ? (rule2 ? 2 : 1) : 0, events, event ? 1 : 0, &err);
	if (n < 0)
		printf("# %s\n", err.message);
	return n;
}

/* Whether the function (or arc "a>b") named was flagged by the last check. */
static int flagged(const cg_diff *d, const char *name)
{
	const char *gt = strchr(name, '>');
	long item = -1;
	if (gt) {
		char caller[64];
		snprintf(caller, sizeof caller, "%.*s", (int)(gt - name), name);
		long a = cg_diff_find_function(d, caller), b = cg_diff_find_function(d, gt + 1);
		item = a >= 0 && b >= 0 ? cg_diff_find_arc(d, (size_t)a, (size_t)b) : -1;
	} else {
		item = cg_diff_find_function(d, name);
	}
	for (size_t i = 0; i < cg_diff_finding_count(d); i++) {
		const cg_diff_finding *f = cg_diff_finding_at(d, i);
		int is_arc = f->metric == CG_DIFF_ARC_CALLS || f->metric == CG_DIFF_ARC_INCLUSIVE;
		if (f->flagged && f->metric != CG_DIFF_TOTAL && is_arc == (gt != NULL) &&
		    (long)f->item == item)
			return 1;
	}
	return 0;
}

static void test_identical_profiles_pass(void)
{
	cg_profile *b = diamond(400, 40, 1), *n = diamond(400, 40, 1);
	cg_diff *d;
	check_int(cg_diff_new(&d, b, n, NULL, NULL), ==, 0);
	check_int(cg_diff_function_count(d), ==, 4);
	check_int(cg_diff_arc_count(d), ==, 4);
	check_int(check_rules(d, NULL, NULL, NULL), ==, 0);   /* default rules */
	check_int(check_rules(d, "self>0", "calls>0", "csc"), ==, 0);
	check(cg_diff_finding_count(d) > 0);
	cg_diff_free(d);
	cg_profile_free(b);
	cg_profile_free(n);
}

static void test_propagated_inclusive(void)
{
	cg_profile *b = diamond(400, 40, 1), *n = diamond(400, 40, 1);
	cg_diff *d;
	cg_diff_value v;
	check_int(cg_diff_new(&d, b, n, NULL, NULL), ==, 0);
	/* c: 400; a: 200 + 1/2 * 400; b: 300 + 1/2 * 400; main: 100 + 400 + 500 */
	long m = cg_diff_find_function(d, "main"), a = cg_diff_find_function(d, "a");
	cg_diff_value_get(d, 0, CG_DIFF_INCLUSIVE, (size_t)a, TICKS, &v);
	check_int(v.base, ==, 400);
	check(v.known);
	cg_diff_value_get(d, 0, CG_DIFF_INCLUSIVE, (size_t)m, TICKS, &v);
	check_int(v.base, ==, 1000);
	cg_diff_value_get(d, 0, CG_DIFF_CALLS, (size_t)cg_diff_find_function(d, "c"), 0, &v);
	check_int(v.base, ==, 2);
	cg_diff_value_get(d, 0, CG_DIFF_TOTAL, 0, CSC, &v);
	check_int(v.new_value, ==, 100);
	cg_diff_free(d);
	cg_profile_free(b);
	cg_profile_free(n);
}

static void test_exact_event_any_change_counts(void)
{
	cg_profile *b = diamond(400, 40, 1), *n = diamond(400, 41, 1);
	cg_diff *d;
	check_int(cg_diff_new(&d, b, n, NULL, NULL), ==, 0);
	check_int(cg_diff_event_kind(d, CSC), ==, CG_DIFF_EXACT);
	check_int(check_rules(d, "self>0", NULL, "csc"), ==, 1);
	check(flagged(d, "c"));
	check(!flagged(d, "a"));
	check_int(check_rules(d, "self>5%", NULL, "csc"), ==, 0);   /* 2.5% */
	check_int(check_rules(d, "self(c)>2%", NULL, "csc"), ==, 1);
	check_int(check_rules(d, "self(a*)>0", NULL, "csc"), ==, 0);
	cg_diff_free(d);
	cg_profile_free(b);
	cg_profile_free(n);
}

static void test_sampled_change_needs_to_beat_noise(void)
{
	/* 400 -> 440 ticks is +10% but sqrt(840) * 4 = 116 > 40: noise. */
	cg_profile *b = diamond(400, 40, 1), *n = diamond(440, 40, 1);
	cg_diff *d;
	check_int(cg_diff_new(&d, b, n, NULL, NULL), ==, 0);
	check_int(cg_diff_event_kind(d, TICKS), ==, CG_DIFF_SAMPLED);
	check_int(check_rules(d, "self>5%", NULL, "ticks"), ==, 0);
	int noise = 0;
	for (size_t i = 0; i < cg_diff_finding_count(d); i++)
		noise += cg_diff_finding_at(d, i)->noise;
	check_int(noise, ==, 1);
	cg_diff_free(d);
	cg_profile_free(n);
	/* 400 -> 800 is far beyond the noise. */
	n = diamond(800, 40, 1);
	cg_diff_options o = CG_DIFF_OPTIONS_INIT;
	check_int(cg_diff_new(&d, b, n, &o, NULL), ==, 0);
	check_int(check_rules(d, "self>5%", NULL, "ticks"), ==, 1);
	check(flagged(d, "c"));
	check(strstr(cg_diff_finding_at(d, 0)->reason, "noise") || cg_diff_finding_count(d) > 1);
	/* the inclusive cost of main grows by 400 of 1000 */
	check_int(check_rules(d, "inclusive(main)>2%", NULL, NULL), ==, 1);
	check(flagged(d, "main"));
	check_int(check_rules(d, "inclusive(main)>50%", NULL, NULL), ==, 0);
	check_int(check_rules(d, "total>3%", NULL, NULL), ==, 1);
	/* time units: 400 ticks of 10 ms = 4 s */
	check_int(check_rules(d, "self>3.9s", NULL, NULL), ==, 1);
	check_int(check_rules(d, "self>4100ms", NULL, NULL), ==, 0);
	cg_diff_free(d);
	cg_profile_free(b);
	cg_profile_free(n);
}

static void test_extra_call_flags_callee_and_arc(void)
{
	cg_profile *b = diamond(400, 40, 1), *n = diamond(400, 40, 2);
	cg_diff *d;
	check_int(cg_diff_new(&d, b, n, NULL, NULL), ==, 0);
	check_int(check_rules(d, "calls>0", "arcs>0", NULL), ==, 2);
	check(flagged(d, "c"));
	check(flagged(d, "b>c"));
	check(!flagged(d, "a>c"));
	check(!flagged(d, "b"));
	check_int(check_rules(d, "arcs(a/c)>0", NULL, NULL), ==, 0);
	check_int(check_rules(d, "arcs(b/c)>0", NULL, NULL), ==, 1);
	cg_diff_free(d);
	cg_profile_free(n);
	/* A new arc (b never called c before) is flagged as well. */
	cg_profile_free(b);
	b = diamond(400, 40, 0);
	n = diamond(400, 40, 1);
	check_int(cg_diff_new(&d, b, n, NULL, NULL), ==, 0);
	check_int(check_rules(d, "arcs>0", NULL, NULL), ==, 1);
	check(flagged(d, "b>c"));
	cg_diff_free(d);
	cg_profile_free(b);
	cg_profile_free(n);
}

static void test_identity_options(void)
{
	cg_profile *b = new_profile(), *n = new_profile();
	cg_fid f;
	cg_profile_intern_function(b, "old_name", "/tmp/build1/prog", "x.c", &f);
	self(b, 0, f, 10, 10);
	cg_profile_intern_function(b, "helper", "/tmp/build1/prog", "x.c", &f);
	self(b, 0, f, 5, 5);
	cg_profile_intern_function(n, "new_name", "/tmp/build2/prog", "x.c", &f);
	self(n, 0, f, 10, 10);
	cg_profile_intern_function(n, "helper", "/tmp/build2/prog", "y.c", &f);
	self(n, 0, f, 5, 5);
	cg_diff *d;
	/* The two builds' executables are the same program; files differ. */
	check_int(cg_diff_new(&d, b, n, NULL, NULL), ==, 0);
	check_int(cg_diff_function_count(d), ==, 4);
	cg_diff_free(d);
	const char *olds[] = { "old_name" }, *news[] = { "new_name" };
	cg_diff_options o = CG_DIFF_OPTIONS_INIT;
	o.ignore_file = 1;
	o.map_old = olds;
	o.map_new = news;
	o.nmap = 1;
	check_int(cg_diff_new(&d, b, n, &o, NULL), ==, 0);
	check_int(cg_diff_function_count(d), ==, 2);
	check_int(check_rules(d, "self<>0", NULL, "csc"), ==, 0);
	cg_diff_function info;
	cg_diff_function_at(d, 0, &info);
	check_str(info.name, "new_name");
	check(info.in_base && info.in_new);
	check(info.file == NULL);
	cg_diff_free(d);
	cg_profile_free(b);
	cg_profile_free(n);
}

static void test_cycles_compare_as_one(void)
{
	cg_profile *p[2];
	for (int s = 0; s < 2; s++) {
		p[s] = new_profile();
		cg_fid m = fn(p[s], "main", NULL), x = fn(p[s], "x", NULL), y = fn(p[s], "y", NULL);
		self(p[s], 0, m, 1, 1);
		/* the work moves from x to y inside the cycle: same cycle total */
		self(p[s], 0, x, s ? 10 : 30, s ? 10 : 30);
		self(p[s], 0, y, s ? 30 : 10, s ? 30 : 10);
		cg_profile_add_arc(p[s], 0, m, x, 1, NULL, NULL);
		cg_profile_add_arc(p[s], 0, x, y, 5, NULL, NULL);
		cg_profile_add_arc(p[s], 0, y, x, 4, NULL, NULL);
	}
	cg_diff *d;
	cg_diff_options o = CG_DIFF_OPTIONS_INIT;
	check_int(cg_diff_new(&d, p[0], p[1], &o, NULL), ==, 0);
	check_int(check_rules(d, "self>0", NULL, "csc"), ==, 1);
	cg_diff_free(d);
	o.cycles = 1;
	check_int(cg_diff_new(&d, p[0], p[1], &o, NULL), ==, 0);
	check_int(cg_diff_function_count(d), ==, 2);
	check(cg_diff_find_function(d, "<cycle x>") >= 0);
	check_int(cg_diff_arc_count(d), ==, 1);
	check_int(check_rules(d, "self>0", "arcs>0", "csc"), ==, 0);
	cg_diff_free(d);
	cg_profile_free(p[0]);
	cg_profile_free(p[1]);
}

static void test_parts_are_compared_per_part(void)
{
	cg_profile *p[2];
	for (int s = 0; s < 2; s++) {
		p[s] = new_profile();
		unsigned t2;
		cg_profile_set_part_name(p[s], 0, "thread 1");
		cg_profile_add_part(p[s], s ? "thread 2" : "thread 9", &t2);
		cg_fid w = fn(p[s], "work", NULL);
		/* work moves from thread 1 to thread 2: the sum is unchanged */
		self(p[s], 0, w, 0, s ? 50 : 100);
		self(p[s], t2, w, 0, s ? 100 : 50);
	}
	cg_diff *d;
	cg_diff_options o = CG_DIFF_OPTIONS_INIT;
	check_int(cg_diff_new(&d, p[0], p[1], &o, NULL), ==, 0);
	check_int(cg_diff_scope_count(d), ==, 1);
	check_int(check_rules(d, "self<>0", NULL, "csc"), ==, 0);
	cg_diff_free(d);
	o.parts = 1;
	check_int(cg_diff_new(&d, p[0], p[1], &o, NULL), ==, 0);
	check_int(cg_diff_scope_count(d), ==, 3);
	check_str(cg_diff_scope_name(d, 1), "thread 1");
	check_str(cg_diff_scope_name(d, 2), "thread 9");  /* paired by position */
	check_int(check_rules(d, "self<>0", NULL, "csc"), ==, 2);
	check_int(check_rules(d, "self>0", NULL, "csc"), ==, 1);
	cg_diff_value v;
	cg_diff_value_get(d, 2, CG_DIFF_SELF, 0, CSC, &v);
	check_int(v.delta, ==, 50);
	check_double(v.relative, 1.0);
	cg_diff_free(d);
	cg_profile_free(p[0]);
	cg_profile_free(p[1]);
}

static void test_bad_rules_are_usage_errors(void)
{
	cg_profile *b = diamond(400, 40, 1);
	cg_diff *d;
	check_int(cg_diff_new(&d, b, b, NULL, NULL), ==, 0);
	static const char *const bad[] = {
		"speed>5%", "self>", "self>5%%", "self(main>5", "self=5", "self[nope]>1",
		"total(main)>1", "calls>1s", "self>-1", "self[csc]>1ms",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cg_error err = CG_ERROR_INIT;
		const char *r[1] = { bad[i] };
		int rc = cg_diff_check(d, r, 1, NULL, 0, &err);
		check_int(rc, ==, CG_EUSAGE);
		if (rc != CG_EUSAGE)
			printf("#   rule: %s\n", bad[i]);
		check(strlen(err.message) > 0);
	}
	cg_error err = CG_ERROR_INIT;
	const char *ev[1] = { "nope" };
	check_int(cg_diff_check(d, NULL, 0, ev, 1, &err), ==, CG_EUSAGE);
	check(strstr(err.message, "nope") != NULL);
	cg_diff_free(d);
	cg_profile_free(b);
}

static void test_no_common_event_is_a_mismatch(void)
{
	cg_profile *b = new_profile(), *n;
	cg_profile_new(&n);
	cg_profile_add_event(n, "Ir", NULL, 0);
	cg_diff *d;
	cg_error err = CG_ERROR_INIT;
	check_int(cg_diff_new(&d, b, n, NULL, &err), ==, CG_EMISMATCH);
	check(d == NULL);
	cg_profile_free(b);
	cg_profile_free(n);
}

static char *write_to_string(const cg_diff *d, int format)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cg_diff_write_options o = CG_DIFF_WRITE_OPTIONS_INIT;
	o.width = 100;
	if (cg_diff_write(d, format, f, &o, NULL) != 0)
		check(0);
	fclose(f);
	return buf;
}

static void test_writers(void)
{
	cg_profile *b = diamond(400, 40, 1), *n = diamond(800, 40, 2);
	cg_diff *d;
	check_int(cg_diff_new(&d, b, n, NULL, NULL), ==, 0);
	check_int(check_rules(d, "self>5%", "calls>0", NULL), ==, 2);
	char *s = write_to_string(d, CG_DIFF_TABLE);
	if (getenv("SHOW_OUTPUT"))
		printf("%s", s);
	check(strstr(s, "FAIL") != NULL);
	check(strstr(s, "+400") != NULL);
	/* sorted by impact: c (+400) comes before any other function row */
	check(strstr(s, "\nFAIL        +400 ") != NULL);
	free(s);
	s = write_to_string(d, CG_DIFF_TAP);
	if (getenv("SHOW_OUTPUT"))
		printf("%s", s);
	check(strstr(s, "not ok 4 - function c\n") != NULL);
	check(strstr(s, "ok 1 - function main\n") != NULL);
	check(strstr(s, "\n1..4\n") != NULL);
	free(s);
	s = write_to_string(d, CG_DIFF_XML);
	check(strstr(s, "result=\"fail\"") != NULL);
	check(strstr(s, "<finding ") != NULL);
	free(s);
	s = write_to_string(d, CG_DIFF_CALLGRIND);
	check(strstr(s, "events: ticks_up ticks_down csc_up csc_down\n") != NULL);
	check(strstr(s, "summary: 400 0 0 0\n") != NULL);
	check(strstr(s, "calls=2 0\n") != NULL);
	free(s);
	check_int(cg_diff_format_from_name("tap"), ==, CG_DIFF_TAP);
	check_int(cg_diff_format_from_name("html"), ==, -1);
	/* the differential flame graph: arcs only, so one row of functions;
	 * c's self cost doubled (400 -> 800): full red */
	check_int(cg_diff_format_from_name("svg"), ==, CG_DIFF_SVG);
	s = write_to_string(d, CG_DIFF_SVG);
	check(strstr(s, "Differential flame graph: base -&gt; new</text>") != NULL);
	check(strstr(s, "no call tree: one box per function") != NULL);
	check(strstr(s, "<g><title>c: self 400 -&gt; 800 ticks (+400, +100.0%)") != NULL);
	check(strstr(s, "fill=\"rgb(255,40,40)\"") != NULL);
	check(strstr(s, "<script") == NULL);
	free(s);
	/* callers built against version 2 of the options still work; 1 does not */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		cg_diff_write_options o = CG_DIFF_WRITE_OPTIONS_INIT;
		o.names[0] = "old.cgt";
		check_int(cg_diff_write(d, CG_DIFF_SVG, f, &o, NULL), ==, 0);
		o.version = 2;
		check_int(cg_diff_write(d, CG_DIFF_TABLE, f, &o, NULL), ==, 0);
		o.version = 1;
		check_int(cg_diff_write(d, CG_DIFF_TABLE, f, &o, NULL), ==, CG_EUSAGE);
		fclose(f);
		check(strstr(buf, "flame graph: old.cgt -&gt; new<") != NULL);
		free(buf);
	}
	cg_diff_free(d);
	cg_profile_free(b);
	cg_profile_free(n);
}

static void test_table_fits_the_width(void)
{
	cg_profile *p[2];
	char name[201];
	memset(name, 'x', 200);
	name[200] = '\0';
	for (int s = 0; s < 2; s++) {
		p[s] = new_profile();
		cg_fid m = fn(p[s], "main", "m.c"), l = fn(p[s], name, "m.c");
		self(p[s], 0, l, 10, 10 + s);
		cg_profile_add_arc(p[s], 0, m, l, 1 + (uint64_t)s, NULL, NULL);
	}
	cg_diff *d;
	check_int(cg_diff_new(&d, p[0], p[1], NULL, NULL), ==, 0);
	check_int(check_rules(d, "self>0", "arcs>0", "csc"), ==, 2);
	for (unsigned width = 80; width <= 160; width += 40) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		cg_diff_write_options o = CG_DIFF_WRITE_OPTIONS_INIT;
		o.width = width;
		check_int(cg_diff_write(d, CG_DIFF_TABLE, f, &o, NULL), ==, 0);
		fclose(f);
		char *end = strstr(buf, "\nLimits exceeded");
		check(end != NULL);
		if (end)
			*end = '\0';
		int rows = 0;
		for (char *line = buf, *nl; *line; line = nl + 1) {
			nl = strchr(line, '\n');
			if (!nl)
				break;
			check_int(nl - line, <=, (long)width);
			*nl = '\0';
			rows += strstr(line, "xxx...") != NULL;
		}
		check_int(rows, ==, 2);   /* the function row and the arc row */
		free(buf);
	}
	cg_diff_free(d);
	cg_profile_free(p[0]);
	cg_profile_free(p[1]);
}

/* One function "f" with `ticks` sampled ticks and `csc` calls-mode ticks. */
static cg_profile *one_function(cg_cost ticks, cg_cost csc)
{
	cg_profile *p = new_profile();
	self(p, 0, fn(p, "f", "/home/a/src/f.c"), ticks, csc);
	return p;
}

static void test_repeated_runs(void)
{
	/* csc: 7 in every base run, 8 in every new run (exact); ticks vary. */
	cg_profile *b[6], *n[6];
	for (int r = 0; r < 6; r++) {
		b[r] = one_function(100 + r, 7);
		n[r] = one_function(130 + r, 8);
	}
	cg_diff_options o = CG_DIFF_OPTIONS_INIT;
	o.more_runs[0] = (const cg_profile *const *)b + 1;
	o.more_runs[1] = (const cg_profile *const *)n + 1;
	o.nmore_runs[0] = o.nmore_runs[1] = 5;
	cg_diff *d;
	check_int(cg_diff_new(&d, b[0], n[0], &o, NULL), ==, 0);
	check_int(cg_diff_run_count(d, 0), ==, 6);
	int64_t v;
	check_int(cg_diff_run_value(d, 0, CG_DIFF_SELF, 0, TICKS, 1, 3, &v), ==, 0);
	check_int(v, ==, 133);
	check_int(cg_diff_run_value(d, 0, CG_DIFF_SELF, 0, TICKS, 1, 6, &v), ==, CG_EUSAGE);
	cg_diff_value val;
	cg_diff_value_get(d, 0, CG_DIFF_SELF, 0, TICKS, &val);
	check_int(val.base, ==, 102);   /* median of 100..105: (102 + 103) / 2 rounded down */
	check_int(val.new_value, ==, 132);
	/* ticks: tested, complete separation, p = 1/924 <= 0.01/1 */
	check_int(check_rules(d, "self>5%", NULL, "ticks"), ==, 1);
	check(cg_diff_finding_at(d, 0)->p_value > 0);
	check_double(cg_diff_finding_at(d, 0)->p_value, 1.0 / 924);
	/* csc: the same in every run: exact, not tested */
	check_int(check_rules(d, "self>5%", NULL, "csc"), ==, 1);
	check_double(cg_diff_finding_at(d, 0)->p_value, -1);
	cg_diff_free(d);
	/* 3 runs a side cannot reach 0.01: usage error */
	o.nmore_runs[0] = o.nmore_runs[1] = 2;
	check_int(cg_diff_new(&d, b[0], n[0], &o, NULL), ==, 0);
	check_int(check_rules(d, "self>5%", NULL, "ticks"), ==, CG_EUSAGE);
	cg_diff_free(d);
	for (int r = 0; r < 6; r++) {
		cg_profile_free(b[r]);
		cg_profile_free(n[r]);
	}
}

static void test_fail_closed(void)
{
	cg_profile *b = one_function(100, 10), *n = one_function(100, 11);
	cg_diff *d;
	check_int(cg_diff_new(&d, b, n, NULL, NULL), ==, 0);
	check_int(check_rules(d, "self(g)>0", NULL, "csc"), ==, CG_EUSAGE);   /* matches nothing */
	check_int(check_rules(d, "self>10%", NULL, "csc"), ==, 0);            /* +10% exactly passes */
	check_int(check_rules(d, "self>9.9999999999%", NULL, "csc"), ==, CG_EUSAGE); /* 10 decimals */
	check_int(check_rules(d, "self>9.999999999%", NULL, "csc"), ==, 1);
	check_int(check_rules(d, "self>1", NULL, "csc"), ==, 0);
	check_int(check_rules(d, "self>nan", NULL, "csc"), ==, CG_EUSAGE);
	cg_diff_free(d);
	/* the same event in another unit */
	cg_profile *fast;
	if (cg_profile_new(&fast))
		abort();
	cg_profile_add_event(fast, "ticks", "CPU ticks", 0.001);
	cg_error err = CG_ERROR_INIT;
	check_int(cg_diff_new(&d, b, fast, NULL, &err), ==, CG_EMISMATCH);
	check(strstr(err.message, "not comparable") != NULL);
	cg_profile_free(fast);
	/* the source root is detected across checkouts */
	cg_profile *moved = new_profile();
	self(moved, 0, fn(moved, "f", "/ci/work/src/f.c"), 100, 11);
	check_int(cg_diff_new(&d, b, moved, NULL, NULL), ==, 0);
	check_int(cg_diff_function_count(d), ==, 1);
	cg_diff_function f;
	cg_diff_function_at(d, 0, &f);
	check_str(f.file, "src/f.c");
	cg_diff_free(d);
	cg_diff_options o = CG_DIFF_OPTIONS_INIT;
	o.absolute_paths = 1;
	check_int(cg_diff_new(&d, b, moved, &o, NULL), ==, 0);
	check_int(cg_diff_function_count(d), ==, 2);
	cg_diff_free(d);
	cg_profile_free(moved);
	cg_profile_free(b);
	cg_profile_free(n);
}

/* Functions of the new profile are matched by name whatever their order:
 * the same order (the matcher's first guess), rotated, with one function
 * added and one gone. */
static void test_match_in_any_order(void)
{
	enum { N = 40 };
	cg_profile *b = new_profile(), *n = new_profile();
	cg_fid bf[N], nf[N + 1];
	char name[32];
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof name, "f%d", i);
		bf[i] = fn(b, name, "m.c");
		self(b, 0, bf[i], 0, 10 * i + 1);
	}
	for (int i = 1; i < N; i++)
		cg_profile_add_arc(b, 0, bf[i - 1], bf[i], (uint64_t)i, NULL, NULL);
	/* new: f0..f9 in order, then f25..f39, "extra", f11..f24 (f10 gone) */
	int order[N], k = 0;
	for (int i = 0; i < 10; i++)
		order[k++] = i;
	for (int i = 25; i < N; i++)
		order[k++] = i;
	for (int i = 11; i < 25; i++)
		order[k++] = i;
	for (int j = 0; j < k; j++) {
		int i = order[j];
		snprintf(name, sizeof name, "f%d", i);
		nf[i] = fn(n, name, "m.c");
		self(n, 0, nf[i], 0, 10 * i + 1 + i % 3);
		if (j == 20)
			self(n, 0, fn(n, "extra", "m.c"), 0, 7);
	}
	/* the new profile's arcs listed backwards */
	for (int i = N - 1; i > 11; i--)
		cg_profile_add_arc(n, 0, nf[i - 1], nf[i], (uint64_t)i + 1, NULL, NULL);
	cg_diff *d;
	cg_diff_value v;
	check_int(cg_diff_new(&d, b, n, NULL, NULL), ==, 0);
	check_int(cg_diff_function_count(d), ==, N + 1);
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof name, "f%d", i);
		long item = cg_diff_find_function(d, name);
		check(item >= 0);
		cg_diff_value_get(d, 0, CG_DIFF_SELF, (size_t)item, CSC, &v);
		check_int(v.base, ==, 10 * i + 1);
		check_int(v.new_value, ==, i == 10 ? 0 : 10 * i + 1 + i % 3);
		if (i == 0)
			continue;
		long caller = cg_diff_find_function(d, (snprintf(name, sizeof name, "f%d", i - 1), name));
		long arc = cg_diff_find_arc(d, (size_t)caller, (size_t)item);
		check(arc >= 0);
		cg_diff_value_get(d, 0, CG_DIFF_ARC_CALLS, (size_t)arc, 0, &v);
		check_int(v.base, ==, i);
		check_int(v.new_value, ==, i > 11 ? i + 1 : 0);
	}
	cg_diff_value_get(d, 0, CG_DIFF_SELF, (size_t)cg_diff_find_function(d, "extra"), CSC, &v);
	check_int(v.base, ==, 0);
	check_int(v.new_value, ==, 7);
	cg_diff_free(d);
	cg_profile_free(b);
	cg_profile_free(n);
}

/* More findings than fit in one of the chunks they are kept in: every
 * one stays where cg_diff_finding_at points, across checks. */
static void test_many_findings(void)
{
	enum { N = 9000 };
	cg_profile *b = new_profile(), *n = new_profile();
	char name[32];
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof name, "g%d", i);
		self(b, 0, fn(b, name, "m.c"), 0, i + 1);
		self(n, 0, fn(n, name, "m.c"), 0, i + 2);
	}
	cg_diff *d;
	check_int(cg_diff_new(&d, b, n, NULL, NULL), ==, 0);
	for (int round = 0; round < 2; round++) {
		check_int(check_rules(d, "self>0", NULL, "csc"), ==, N);
		check_int(cg_diff_finding_count(d), ==, N);
		const cg_diff_finding *first = cg_diff_finding_at(d, 0);
		size_t bad = 0;
		for (size_t i = 0; i < N; i++) {
			const cg_diff_finding *f = cg_diff_finding_at(d, i);
			cg_diff_function fun;
			cg_diff_function_at(d, f->item, &fun);
			int at = (int)strtol(fun.name + 1, NULL, 10);
			bad += !f->flagged || f->value.base != at + 1 || f->value.new_value != at + 2 ||
			       f->item != i;
		}
		check_int(bad, ==, 0);
		check(cg_diff_finding_at(d, 0) == first);
		check(cg_diff_finding_at(d, N) == NULL);
	}
	cg_diff_free(d);
	cg_profile_free(b);
	cg_profile_free(n);
}

/* The two sides are summed in two threads: an error in either is
 * reported, the base's first when both have one. */
static void test_side_errors(void)
{
	cg_profile *ok = diamond(400, 40, 1);
	cg_profile *bad[2];
	for (int s = 0; s < 2; s++) {
		bad[s] = diamond(400, 40, 1);
		cg_fid m = 0, a = 1, c = 3;
		cg_profile_add_arc(bad[s], 0, m, c, INT64_MAX, NULL, NULL);
		cg_profile_add_arc(bad[s], 0, a, c, INT64_MAX, NULL, NULL);
		cg_profile_add_arc(bad[s], 0, 2, c, INT64_MAX, NULL, NULL);
	}
	cg_diff *d;
	cg_error err = CG_ERROR_INIT;
	check_int(cg_diff_new(&d, ok, bad[1], NULL, &err), ==, CG_EFORMAT);
	check(strstr(err.message, "new profile") != NULL);
	check(d == NULL);
	err = (cg_error)CG_ERROR_INIT;
	check_int(cg_diff_new(&d, bad[0], ok, NULL, &err), ==, CG_EFORMAT);
	check(strstr(err.message, "base profile") != NULL);
	err = (cg_error)CG_ERROR_INIT;
	check_int(cg_diff_new(&d, bad[0], bad[1], NULL, &err), ==, CG_EFORMAT);
	check(strstr(err.message, "base profile") != NULL);
	printf("# %s\n", err.message);
	cg_profile_free(ok);
	cg_profile_free(bad[0]);
	cg_profile_free(bad[1]);
}

int main(void)
{
	TEST(test_identical_profiles_pass(), "identical profiles give no finding above limits");
	TEST(test_propagated_inclusive(), "inclusive cost is propagated gprof-style from arcs");
	TEST(test_exact_event_any_change_counts(), "exact events: any change counts, thresholds apply");
	TEST(test_sampled_change_needs_to_beat_noise(), "sampled events: a change must beat Poisson noise");
	TEST(test_extra_call_flags_callee_and_arc(), "an extra call flags the callee and the arc");
	TEST(test_identity_options(), "identity: renamed executable, --map, --ignore-file");
	TEST(test_cycles_compare_as_one(), "cycles compare as one item with --cycles");
	TEST(test_parts_are_compared_per_part(), "parts are compared per part with --parts");
	TEST(test_bad_rules_are_usage_errors(), "malformed rules are usage errors with a message");
	TEST(test_no_common_event_is_a_mismatch(), "profiles without a common event do not compare");
	TEST(test_writers(), "table, TAP, XML and Callgrind writers");
	TEST(test_table_fits_the_width(), "table rows are cut to the line width");
	TEST(test_repeated_runs(), "repeated runs: medians, rank test for varying values, too few runs");
	TEST(test_fail_closed(), "rules matching nothing, exact limits, units, source roots");
	TEST(test_match_in_any_order(), "functions and arcs match by name in any order");
	TEST(test_many_findings(), "findings past one storage chunk stay in place");
	TEST(test_side_errors(), "an overflow on either side is an error, the base's first");
	return tap_done();
}
