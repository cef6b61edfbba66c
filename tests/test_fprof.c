/*
 * test_fprof.c — fprof unit tests (no arguments: TAP) and a small driver
 * for the shell tests until cgconvert wires the fprof formats in:
 *
 *   test_fprof trace FILE [ANALYSE-OPTIONS]      trace -> fprof:analyse text
 *   test_fprof analysis FILE [ANALYSE-OPTIONS]   analysis text -> analysis text
 *   test_fprof partial FILE                      trace, allow_partial, print warnings
 *   test_fprof folded FILE                       trace -> "pid;f;g self" lines
 *
 * Exit status: 0 ok, 3 bad input (message on stderr), 2 usage.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callgraph.h"
#include "fprof_profile.h"
#include "fprof_term.h"
#include "tap.h"

static void print_warning(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "warning: %s\n", msg);
}

static int fail(const char *file, const cg_error *err)
{
	fprintf(stderr, "test_fprof: %s\n", err->message[0] ? err->message : file);
	return 3;
}

/* Folded stacks from the call tree, to check it against the table. */
static void print_folded(const cg_profile *p)
{
	for (unsigned part = 0; part < cg_profile_part_count(p); part++) {
		size_t nn = cg_profile_node_count(p, part);
		for (cg_nid n = 1; n < nn; n++) {
			const cg_node *nd = cg_profile_node(p, part, n);
			if (nd->self[0] == 0)
				continue;
			const char *stack[4096];
			size_t depth = 0;
			for (cg_nid m = n; m != 0 && m != CG_NO_NODE && depth < 4096;
			     m = cg_profile_node(p, part, m)->parent)
				stack[depth++] = cg_profile_function(p, cg_profile_node(p, part, m)->func)->name;
			printf("%s", cg_profile_part_name(p, part));
			while (depth > 0)
				printf(";%s", stack[--depth]);
			printf(" %lld\n", (long long)nd->self[0]);
		}
	}
}

static int driver(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	cg_error err = CG_ERROR_INIT;
	cg_profile *p;
	if (cg_profile_new(&p))
		return 1;
	cg_fprof_read_options ro = CG_FPROF_READ_OPTIONS_INIT;
	ro.warn = print_warning;
	cg_fprof_analyse_options ao;
	int rc;
	if (cg_fprof_analyse_options_parse(&ao, argc > 3 ? argv[3] : NULL, &err)) {
		fprintf(stderr, "test_fprof: %s\n", err.message);
		return 2;
	}
	if (strcmp(argv[1], "trace") == 0 || strcmp(argv[1], "folded") == 0) {
		rc = cg_read_fprof_trace(p, argv[2], &ro, &err);
	} else if (strcmp(argv[1], "partial") == 0) {
		ro.allow_partial = 1;
		rc = cg_read_fprof_trace(p, argv[2], &ro, &err);
	} else if (strcmp(argv[1], "analysis") == 0) {
		rc = cg_read_fprof_analysis(p, argv[2], &err);
	} else {
		return 2;
	}
	if (rc) {
		cg_profile_free(p);
		return fail(argv[2], &err);
	}
	if (strcmp(argv[1], "folded") == 0)
		print_folded(p);
	else if (cg_write_fprof_analysis(p, stdout, &ao, &err)) {
		cg_profile_free(p);
		return fail(argv[2], &err);
	}
	cg_profile_free(p);
	return 0;
}

/* ---- unit tests ----------------------------------------------------------------------- */

/* Builds a trace in memory: records of term bytes. */
struct tb {
	unsigned char buf[8192];
	size_t len;
};

static void put(struct tb *t, const void *p, size_t n)
{
	memcpy(t->buf + t->len, p, n);
	t->len += n;
}

static void put8(struct tb *t, unsigned v)
{
	t->buf[t->len++] = (unsigned char)v;
}

static void put32(struct tb *t, unsigned long v)
{
	put8(t, (unsigned)(v >> 24) & 255);
	put8(t, (unsigned)(v >> 16) & 255);
	put8(t, (unsigned)(v >> 8) & 255);
	put8(t, (unsigned)v & 255);
}

static void atom(struct tb *t, const char *s)
{
	put8(t, 100);
	put8(t, 0);
	put8(t, (unsigned)strlen(s));
	put(t, s, strlen(s));
}

static void pid(struct tb *t, unsigned id)
{
	put8(t, 88);
	atom(t, "nonode@nohost");
	put32(t, id);
	put32(t, 0);
	put32(t, 0);
}

static void mfa(struct tb *t, const char *m, const char *f, unsigned a)
{
	put8(t, 104);
	put8(t, 3);
	atom(t, m);
	atom(t, f);
	put8(t, 97);
	put8(t, a);
}

static void ts(struct tb *t, unsigned us)
{
	put8(t, 104);
	put8(t, 3);
	put8(t, 97);
	put8(t, 1);
	put8(t, 97);
	put8(t, 0);
	put8(t, 98);
	put32(t, us);
}

/* Starts a record; returns the position of its size field. */
static size_t rec_begin(struct tb *t, unsigned arity, const char *kind)
{
	put8(t, 0);
	size_t at = t->len;
	put32(t, 0);
	put8(t, 131);
	put8(t, 104);
	put8(t, arity);
	atom(t, "trace_ts");
	pid(t, 42);
	atom(t, kind);
	return at;
}

static void rec_end(struct tb *t, size_t at)
{
	unsigned long n = t->len - at - 4;
	t->buf[at] = (unsigned char)(n >> 24);
	t->buf[at + 1] = (unsigned char)(n >> 16);
	t->buf[at + 2] = (unsigned char)(n >> 8);
	t->buf[at + 3] = (unsigned char)n;
}

static void call(struct tb *t, const char *f, const char *cpf, unsigned us)
{
	size_t at = rec_begin(t, 6, "call");
	mfa(t, "m", f, strcmp(f, "a") == 0);
	put8(t, 104);
	put8(t, 2);
	atom(t, "cp");
	mfa(t, "m", cpf, strcmp(cpf, "a") == 0);
	ts(t, us);
	rec_end(t, at);
}

static void simple(struct tb *t, const char *kind, const char *f, unsigned us)
{
	size_t at = rec_begin(t, 5, kind);
	if (f)
		mfa(t, "m", f, strcmp(f, "a") == 0);
	else
		put8(t, 106);
	ts(t, us);
	rec_end(t, at);
}

/* The spec's worked example (§B4.8), whose numbers fprof confirmed. */
static void synth(struct tb *t)
{
	t->len = 0;
	simple(t, "in", "top", 100);
	call(t, "a", "top", 110);
	call(t, "b", "a", 115);
	call(t, "c", "a", 120);
	simple(t, "return_to", "a", 130);
	call(t, "a", "a", 135);
	simple(t, "gc_minor_start", NULL, 140);
	simple(t, "gc_minor_end", NULL, 145);
	simple(t, "return_to", "a", 150);
	simple(t, "out", "a", 160);
	simple(t, "in", "a", 190);
	simple(t, "return_to", "top", 200);
	simple(t, "out", "top", 210);
}

static const cg_arc *arc_of(cg_profile *p, const char *caller, const char *callee)
{
	cg_fid c = CG_NO_FUNC, e = CG_NO_FUNC;
	for (cg_fid f = 0; f < cg_profile_function_count(p); f++) {
		if (strcmp(cg_profile_function(p, f)->name, caller) == 0)
			c = f;
		if (strcmp(cg_profile_function(p, f)->name, callee) == 0)
			e = f;
	}
	long i = cg_profile_find_arc(p, 0, c, e);
	return i < 0 ? NULL : cg_profile_arc(p, 0, (size_t)i);
}

static void test_synth_numbers(void)
{
	static struct tb t;
	synth(&t);
	cg_profile *p;
	cg_error err = CG_ERROR_INIT;
	check_int(cg_profile_new(&p), ==, 0);
	check_int(cg_read_fprof_trace_buffer(p, t.buf, t.len, "synth", NULL, &err), ==, 0);
	struct { const char *c, *f; unsigned long long cnt; long long acc; } want[] = {
		{ "undefined", "m:top/0", 0, 110 }, { "m:top/0", "m:a/1", 1, 90 },
		{ "m:a/1", "m:a/1", 1, 0 }, { "m:a/1", "m:b/0", 1, 15 }, { "m:b/0", "m:c/0", 1, 10 },
		{ "m:a/1", "suspend", 1, 30 }, { "m:top/0", "suspend", 1, 0 },
		{ "m:a/1", "garbage_collect", 1, 5 },
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		const cg_arc *a = arc_of(p, want[i].c, want[i].f);
		check(a != NULL);
		if (!a)
			continue;
		check_int(a->count, ==, want[i].cnt);
		check_int(a->inclusive[0], ==, want[i].acc);
	}
	check_int(cg_profile_arc_count(p, 0), ==, 8);
	check_str(cg_profile_part_name(p, 0), "<0.42.0>");
	check_str(cg_profile_meta(p, "fprof.first_ts"), "1000000000100");
	check_str(cg_profile_meta(p, "fprof.last_ts"), "1000000000210");
	cg_cost tot[1];
	cg_profile_part_totals(p, 0, tot);
	check_int(tot[0], ==, 80);
	cg_profile_free(p);
}

/* suspend_self: waiting time becomes suspend's self cost (tree too); the
 * process's self costs then add up to its traced wall time, and what
 * fprof:analyse prints does not change. */
static void test_suspend_self(void)
{
	static struct tb t;
	synth(&t);
	cg_profile *p;
	cg_error err = CG_ERROR_INIT;
	cg_fprof_read_options o = CG_FPROF_READ_OPTIONS_INIT;
	o.suspend_self = 1;
	check_int(cg_profile_new(&p), ==, 0);
	check_int(cg_read_fprof_trace_buffer(p, t.buf, t.len, "synth", &o, &err), ==, 0);
	cg_cost tot[1];
	cg_profile_part_totals(p, 0, tot);
	check_int(tot[0], ==, 110);   /* 80 own + 30 waiting = 210 - 100 */
	cg_cost tree = 0;
	for (cg_nid n = 1; n < cg_profile_node_count(p, 0); n++)
		tree += cg_profile_node(p, 0, n)->self[0];
	check_int(tree, ==, 110);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	check_int(cg_write_fprof_analysis(p, f, NULL, &err), ==, 0);
	fclose(f);
	check(text && strstr(text, "[{ totals,                                        7,    0.110,    0.080}].  %%%") != NULL);
	free(text);
	cg_profile_free(p);
}

static void test_truncation_reports_offset(void)
{
	static struct tb t;
	synth(&t);
	cg_profile *p;
	cg_error err = CG_ERROR_INIT;
	cg_profile_new(&p);
	check_int(cg_read_fprof_trace_buffer(p, t.buf, t.len - 3, "cut", NULL, &err), ==, CG_EFORMAT);
	check(strstr(err.message, "truncated record payload at byte offset") != NULL);
	check(strstr(err.message, "cut: ") == err.message);
	cg_profile_free(p);
	/* a bad tag */
	cg_profile_new(&p);
	t.buf[0] = 7;
	check_int(cg_read_fprof_trace_buffer(p, t.buf, t.len, "bad", NULL, &err), ==, CG_EFORMAT);
	check(strstr(err.message, "bad record tag 7 at byte offset 0") != NULL);
	cg_profile_free(p);
}

static void test_partial_keeps_data(void)
{
	static struct tb t;
	synth(&t);
	cg_profile *p;
	cg_error err = CG_ERROR_INIT;
	cg_fprof_read_options o = CG_FPROF_READ_OPTIONS_INIT;
	o.allow_partial = 1;
	cg_profile_new(&p);
	check_int(cg_read_fprof_trace_buffer(p, t.buf, t.len - 3, "cut", &o, &err), ==, 0);
	check(cg_profile_meta(p, "fprof.incomplete") != NULL);
	check(cg_profile_arc_count(p, 0) > 0);
	cg_profile_free(p);
}

static void test_unknown_kind_counted(void)
{
	static struct tb t;
	synth(&t);
	size_t at = rec_begin(&t, 5, "in_exiting");
	put8(&t, 106);
	ts(&t, 220);
	rec_end(&t, at);
	cg_profile *p;
	cg_error err = CG_ERROR_INIT;
	cg_profile_new(&p);
	check_int(cg_read_fprof_trace_buffer(p, t.buf, t.len, "u", NULL, &err), ==, 0);
	check_str(cg_profile_meta(p, "fprof.unknown_messages"), "1");
	cg_profile_free(p);
	cg_fprof_read_options o = CG_FPROF_READ_OPTIONS_INIT;
	o.strict = 1;
	cg_profile_new(&p);
	check_int(cg_read_fprof_trace_buffer(p, t.buf, t.len, "u", &o, &err), ==, CG_EFORMAT);
	cg_profile_free(p);
}

static void test_deep_mutual_recursion_linear(void)
{
	/* a(N) -> b(N-1) -> a(N-2) ... 60,000 deep, then all the returns */
	size_t n = 60000;
	size_t cap = n * 2 * 120 + 4096;
	struct big { unsigned char *buf; size_t len; } t = { malloc(cap), 0 };
	check(t.buf != NULL);
	if (!t.buf)
		return;
	static struct tb rec;
	unsigned us = 1;
	for (size_t i = 0; i < n; i++) {
		rec.len = 0;
		const char *f = i % 2 ? "b" : "a", *cp = i == 0 ? "top" : i % 2 ? "a" : "b";
		call(&rec, f, cp, us++);
		memcpy(t.buf + t.len, rec.buf, rec.len);
		t.len += rec.len;
	}
	for (size_t i = n - 1; i-- > 0;) {
		rec.len = 0;
		simple(&rec, "return_to", i % 2 ? "b" : "a", us++);
		memcpy(t.buf + t.len, rec.buf, rec.len);
		t.len += rec.len;
	}
	cg_profile *p;
	cg_error err = CG_ERROR_INIT;
	cg_profile_new(&p);
	check_int(cg_read_fprof_trace_buffer(p, t.buf, t.len, "deep", NULL, &err), ==, 0);
	/* the same from a file: big enough for the read-ahead thread */
	char path[] = "/tmp/test_fprof_XXXXXX";
	int fd = mkstemp(path);
	check(fd >= 0);
	if (fd >= 0) {
		FILE *f = fdopen(fd, "wb");
		check(f && fwrite(t.buf, 1, t.len, f) == t.len);
		if (f)
			fclose(f);
		cg_profile *q;
		cg_profile_new(&q);
		check_int(cg_read_fprof_trace(q, path, NULL, &err), ==, 0);
		check_int(cg_profile_arc_count(q, 0), ==, cg_profile_arc_count(p, 0));
		for (size_t i = 0; i < cg_profile_arc_count(q, 0); i++) {
			check_int(cg_profile_arc(q, 0, i)->count, ==, cg_profile_arc(p, 0, i)->count);
			check_int(cg_profile_arc(q, 0, i)->inclusive[0], ==, cg_profile_arc(p, 0, i)->inclusive[0]);
		}
		cg_profile_free(q);
		/* truncated file: the error names the offset where the last record starts */
		check_int(truncate(path, (off_t)t.len - 1), ==, 0);
		cg_profile_new(&q);
		check_int(cg_read_fprof_trace(q, path, NULL, &err), ==, CG_EFORMAT);
		check(strstr(err.message, "truncated record payload at byte offset") != NULL);
		cg_profile_free(q);
		unlink(path);
	}
	const cg_arc *a = arc_of(p, "m:top/0", "m:a/1");
	check(a != NULL);
	if (a)
		check_int(a->inclusive[0], ==, (long long)(us - 1) - 1);
	const cg_arc *ab = arc_of(p, "m:a/1", "m:b/0");
	check(ab != NULL);
	if (ab) {
		check_int(ab->count, ==, n / 2);
		check_int(ab->inclusive[0], ==, (long long)(us - 1) - 2);
	}
	cg_profile_free(p);
	free(t.buf);
}

/* The fast collapse relies on fprof's pair check being a plain "the newest
 * k+1 entries repeat at distance k" test; check that on random levels. */
static void test_collapse_is_a_square_test(void)
{
	uint32_t y[64];
	unsigned long seed = 12345;
	int mismatches = 0, collapses = 0;
	for (int round = 0; round < 50000; round++) {
		uint32_t len = 3 + (uint32_t)(seed % 40), alpha = 1 + (uint32_t)((seed >> 8) % 4);
		for (uint32_t i = 0; i < len; i++) {
			seed = seed * 6364136223846793005ul + 1442695040888963407ul;
			y[i] = (uint32_t)((seed >> 33) % alpha);
		}
		uint32_t want = cg_fp_collapse_reference(y, len), got = 0;
		for (uint32_t k = 1; 2 * k < len && !got; k++) {
			uint32_t i = 0;
			while (i <= k && y[i] == y[k + i])
				i++;
			if (i > k)
				got = k;
		}
		mismatches += want != got;
		collapses += want != 0;
	}
	check_int(mismatches, ==, 0);
	check(collapses > 250);
}

static void test_term_printing(void)
{
	fprof_arena a = { 0 };
	const char *src = "{fpdemo,'-run/0-lc$^1/1-1-',1,'Abc',a@b,'end',\"x\\\"y\",<<1,2>>,<<\"ab\">>,[1,2|3],#{a => 1},\xc3\xbc,1.5,-3}";
	const char *q = src, *why;
	fprof_term *t;
	check_int(cg_fprof_term_parse(&a, &q, src + strlen(src), &t, &why), ==, 0);
	fprof_buf b = { 0 };
	cg_fprof_term_write(&b, t);
	check_str(cg_fprof_buf_cstr(&b), src);
	cg_fprof_buf_release(&b);
	cg_fprof_arena_release(&a);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		int rc = driver(argc, argv);
		if (rc == 2)
			fprintf(stderr, "usage: test_fprof trace|analysis|partial|folded FILE [OPTIONS]\n");
		return rc;
	}
	TEST(test_synth_numbers(), "spec B4.8 worked example: fprof's CNT/ACC/OWN");
	TEST(test_suspend_self(), "suspend_self: waiting time as suspend's self cost");
	TEST(test_truncation_reports_offset(), "truncated and corrupt traces: error with byte offset");
	TEST(test_partial_keeps_data(), "allow_partial keeps the data and says why");
	TEST(test_unknown_kind_counted(), "unknown message kinds counted (strict: error)");
	TEST(test_deep_mutual_recursion_linear(), "60,000-deep mutual recursion, exact ACC");
	TEST(test_collapse_is_a_square_test(), "fprof's collapse check equals the square test");
	TEST(test_term_printing(), "Erlang term text round trip");
	return tap_done();
}
