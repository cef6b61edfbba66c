/*
 * test_cgtree.c — unit tests of the cgtree reader on handwritten files
 * (no symbols needed), and, with `--dump FILE...`, a dump of what the
 * reader makes of real collector output (used by tests/collector-*.t):
 *
 *   part NAME
 *   func NAME calls=C self=S incl=I [transparent]
 *   arc CALLER -> CALLEE count=N incl=I
 *
 * and with `--gprof EXACT FILE` the gprof call graph (brief) of it, with
 * the tree's exact arc costs (EXACT 1) or gprof's proportional guess (0).
 *
 * costs of event 0; lines within a part sorted by the caller (sort(1)).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "tap.h"

static const char *const header =
	"# cgtree 1\n"
	"creator test 1\n"
	"pid 42\n"
	"time calls\n"
	"hz 0\n"
	"event csc 0 call-sequence%20count\n";

static int read_text(cg_profile **p, const char *body, cg_error *err)
{
	char buf[8192];
	snprintf(buf, sizeof buf, "%s%s", header, body);
	if (cg_profile_new(p))
		return CG_ENOMEM;
	return cg_read_cgtree_buffer(*p, "t.cgtree", buf, strlen(buf), CG_CGTREE_NO_SYMBOLS, err);
}

static cg_fid fid_of(cg_profile *p, const char *name)
{
	for (cg_fid f = 0; f < cg_profile_function_count(p); f++)
		if (strcmp(cg_profile_function(p, f)->name, name) == 0)
			return f;
	return CG_NO_FUNC;
}

static const cg_arc *arc_of(cg_profile *p, unsigned part, const char *a, const char *b)
{
	long i = cg_profile_find_arc(p, part, fid_of(p, a), fid_of(p, b));
	return i < 0 ? NULL : cg_profile_arc(p, part, (size_t)i);
}

/* main -> easy -> work -> step (1), main -> hard -> work -> step (999). */
static const char *const easy_hard =
	"func 0 name main - 0\n"
	"func 1 name easy f.c 3\n"
	"func 2 name work f.c 7\n"
	"func 3 name step f.c 9\n"
	"func 4 name hard f.c 5\n"
	"thread 0 42\n"
	"node 1 0 0 1 0 0 1\n"
	"node 2 1 1 1 0 0 1\n"
	"node 3 2 2 1 0 0 1\n"
	"node 4 3 3 1 0 0 1\n"
	"node 5 1 4 1 0 0 1\n"
	"node 6 5 2 1 0 0 1\n"
	"node 7 6 3 999 0 0 999\n"
	"endthread 0 nodes 7 samples 0 overhead 0 lost 0 resyncs 0 status ok\n"
	"end\n";

static void test_easy_hard(void)
{
	cg_profile *p;
	cg_error err = CG_ERROR_INIT;
	check_int(read_text(&p, easy_hard, &err), ==, 0);
	const cg_arc *e = arc_of(p, 0, "easy", "work"), *h = arc_of(p, 0, "hard", "work");
	check(e && h);
	if (e && h) {
		check_int(e->count, ==, 1);
		check_int(h->count, ==, 1);
		check_int(e->inclusive[0], ==, 2);
		check_int(h->inclusive[0], ==, 1000);
	}
	check_int(cg_profile_calls(p, 0, fid_of(p, "step")), ==, 1000);
	check_int(cg_profile_self(p, 0, fid_of(p, "work"))[0], ==, 2);
	check_int(cg_profile_function(p, fid_of(p, "easy"))->line, ==, 3);
	check_str(cg_profile_function(p, fid_of(p, "easy"))->file, "f.c");
	check_str(cg_profile_meta(p, "time"), "calls");
	check_str(cg_profile_part_name(p, 0), "pid 42 thread 0");
	cg_profile_free(p);
}

/* is_even/is_odd folded by a link; the link carries calls, no cost. */
static void test_link(void)
{
	cg_profile *p;
	cg_error err = CG_ERROR_INIT;
	check_int(read_text(&p,
			    "func 0 name main - 0\nfunc 1 name even - 0\nfunc 2 name odd - 0\n"
			    "thread 0 1\n"
			    "node 1 0 0 1 0 0 1\nnode 2 1 1 1 0 0 1\nnode 3 2 2 1 0 0 2\n"
			    "node 4 3 1 2 0 0 2\nlink 5 4 2 1 3\n"
			    "endthread 0 nodes 5\nend\n", &err), ==, 0);
	check_int(cg_profile_node_count(p, 0), ==, 6);
	const cg_node *l = cg_profile_node(p, 0, 5);
	check_int(l->recursion_target, ==, 3);
	check_int(l->calls, ==, 1);
	const cg_arc *a = arc_of(p, 0, "main", "even");
	check(a != NULL);
	if (a)
		check_int(a->inclusive[0], ==, 5);
	check_int(cg_profile_calls(p, 0, fid_of(p, "odd")), ==, 2);
	check_int(cg_profile_calls(p, 0, fid_of(p, "even")), ==, 3);
	cg_profile_free(p);
}

static void test_threads_and_noprofile(void)
{
	cg_profile *p;
	cg_error err = CG_ERROR_INIT;
	check_int(read_text(&p,
			    "noprofile wrap\n"
			    "object 0 0x1000 /nonexistent/prog\n"
			    "thread 0 1\nfunc 0 addr 0 0x1139\nfunc 1 name wrap - 0\n"
			    "node 1 0 0 1 0 0 1\nnode 2 1 1 1 0 0 1\nendthread 0\n"
			    "thread 1 2\nnode 1 0 0 4 1 2 7\nendthread 1 status oom\n"
			    "end\n", &err), ==, 0);
	check_int(cg_profile_part_count(p), ==, 2);
	check_str(cg_profile_part_name(p, 1), "pid 42 thread 1");
	check_str(cg_profile_function(p, 0)->name, "0x1139@prog");
	check(cg_profile_function(p, fid_of(p, "wrap"))->flags & CG_FN_TRANSPARENT);
	const cg_node *n = cg_profile_node(p, 1, 1);
	check_int(n->calls, ==, 4);
	check_int(n->redos, ==, 1);
	check_int(n->recursive, ==, 2);
	check_int(n->self[0], ==, 7);
	const cg_run_info *run = cg_profile_run_info(p);
	check(run != NULL);
	check_int(run->threads, ==, 2);
	check_int(run->threads_cut, ==, 1);
	check(run->flags & CG_RUN_OOM);
	check(cg_run_info_suspect(run, 0.5));
	check(cg_profile_meta(p, "status") == NULL);   /* typed, not a string */
	cg_profile_free(p);
}

/* Each malformed input fails with CG_EFORMAT and names the line. */
static void test_errors(void)
{
	static const struct {
		const char *body, *msg;
	} cases[] = {
		{ "thread 0 1\nnode 1 0 0 1 0 0 1\n", ":8: node uses an undefined function" },
		{ "func 0 name m - 0\nthread 0 1\nnode 1 0 0 1 0 0 1\nendthread 0\n",
		  "truncated: no 'end' line" },
		{ "func 0 name m - 0\nthread 0 1\nnode 2 0 0 1 0 0 1\n", ":9: node ids must count up" },
		{ "func 0 name m - 0\nthread 0 1\nnode 1 0 0 1 0 0\n", ":9: 'node' needs 7 fields" },
		{ "func 0 name m - 0\nthread 0 1\nnode 1 0 0 x 0 0 1\n", ":9: bad number 'x'" },
		{ "func 0 name m - 0\nthread 0 1\nnode 1 0 0 99999999999999999999 0 0 1\n",
		  "out of range" },
		{ "func 0 name m - 0\nfunc 1 name n - 0\nthread 0 1\nnode 1 0 0 1 0 0 1\n"
		  "node 2 1 1 1 0 0 1\nnode 3 0 0 1 0 0 1\nnode 4 2 1 1 0 0 1\n",
		  ":13: parent is not an open ancestor" },
		{ "func 0 name m - 0\nfunc 1 name n - 0\nthread 0 1\nnode 1 0 0 1 0 0 1\n"
		  "link 2 1 1 1 1\n", ":11: link target is not an ancestor of the same function" },
		{ "func 0 name m%zz - 0\n", ":7: bad %-escape" },
		{ "func 0 addr 3 0x10\n", ":7: function in an undefined object" },
		{ "thread 0 1\nevent x 0 y\n", ":8: 'event' after the first thread" },
		{ "func 0 name m - 0\nthread 0 1\nnode  1 0 0 1 0 0 1\n", "empty field" },
		{ "end\nend\n", ":8: data after 'end'" },
		{ "end", "last line has no newline" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cg_profile *p;
		cg_error err = CG_ERROR_INIT;
		int rc = read_text(&p, cases[i].body, &err);
		check_int(rc, ==, CG_EFORMAT);
		if (!strstr(err.message, cases[i].msg))
			printf("# case %zu: message \"%s\", wanted \"%s\"\n", i, err.message,
			       cases[i].msg);
		check(strstr(err.message, cases[i].msg) != NULL);
		check(strncmp(err.message, "t.cgtree:", 9) == 0);
		cg_profile_free(p);
		/* the streaming reader (files, pipes) says the same */
		char buf[8192];
		snprintf(buf, sizeof buf, "%s%s", header, cases[i].body);
		FILE *in = fmemopen(buf, strlen(buf), "r");
		check(in != NULL);
		check_int(cg_profile_new(&p), ==, 0);
		cg_error serr = CG_ERROR_INIT;
		check_int(cg_read_cgtree_stream(p, in, "t.cgtree", &serr), ==, CG_EFORMAT);
		if (!strstr(serr.message, cases[i].msg))
			printf("# case %zu (stream): message \"%s\", wanted \"%s\"\n", i,
			       serr.message, cases[i].msg);
		check(strstr(serr.message, cases[i].msg) != NULL);
		fclose(in);
		cg_profile_free(p);
	}
	cg_profile *p;
	cg_error err = CG_ERROR_INIT;
	check_int(cg_profile_new(&p), ==, 0);
	check_int(cg_read_cgtree_buffer(p, "x", "# cgtree 2\nend\n", 15, 0, &err), ==, CG_EFORMAT);
	check(strstr(err.message, "x:1: unsupported cgtree version '2'") != NULL);
	check_int(cg_read_cgtree(p, "/nonexistent/cgtree.out", &err), ==, CG_EIO);
	cg_profile_free(p);
}

static int dump(const char *path)
{
	cg_profile *p;
	cg_error err = CG_ERROR_INIT;
	if (cg_profile_new(&p))
		return 3;
	if (cg_read_cgtree(p, path, &err)) {
		fprintf(stderr, "%s\n", err.message);
		cg_profile_free(p);
		return 3;
	}
	for (unsigned part = 0; part < cg_profile_part_count(p); part++) {
		printf("part %s\n", cg_profile_part_name(p, part));
		for (cg_fid f = 0; f < cg_profile_function_count(p); f++) {
			const cg_function *fn = cg_profile_function(p, f);
			uint64_t calls = cg_profile_calls(p, part, f);
			const cg_cost *incl = cg_profile_inclusive(p, part, f);
			if (calls == UINT64_MAX)
				continue;
			printf("func %s calls=%llu self=%lld incl=%lld%s\n", fn->name,
			       (unsigned long long)calls, (long long)cg_profile_self(p, part, f)[0],
			       incl ? (long long)incl[0] : -1LL,
			       fn->flags & CG_FN_TRANSPARENT ? " transparent" : "");
		}
		for (size_t i = 0; i < cg_profile_arc_count(p, part); i++) {
			const cg_arc *a = cg_profile_arc(p, part, i);
			printf("arc %s -> %s count=%llu incl=%lld\n",
			       cg_profile_function(p, a->caller)->name,
			       cg_profile_function(p, a->callee)->name, (unsigned long long)a->count,
			       a->inclusive ? (long long)a->inclusive[0] : -1LL);
		}
	}
	cg_profile_free(p);
	return 0;
}

static int gprof_graph(int exact, const char *path)
{
	cg_profile *p;
	cg_error err = CG_ERROR_INIT;
	if (cg_profile_new(&p))
		return 3;
	cg_gprof_options g = CG_GPROF_OPTIONS_INIT;
	g.brief = 1;
	g.use_exact_inclusive = exact;
	int rc = cg_read_cgtree(p, path, &err);
	if (!rc)
		rc = cg_gprof_report(p, 0, CG_GPROF_GRAPH, &g, stdout, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.message);
	cg_profile_free(p);
	return rc ? 3 : 0;
}

/* Sum of f's self positions in part 0 (event 0), their count, and the
 * cost at address addr. */
static cg_cost position_sum(cg_profile *p, cg_fid f, size_t *count, uint64_t addr,
			    cg_cost *at_addr)
{
	size_t cursor = 0;
	cg_position pos;
	const cg_cost *c;
	cg_cost sum = 0;
	*count = 0;
	*at_addr = 0;
	while (cg_profile_next_self_position(p, 0, f, &cursor, &pos, &c)) {
		sum += c[0];
		(*count)++;
		if (pos.addr == addr)
			*at_addr += c[0];
	}
	return sum;
}

/* `at` records: addresses in the function's object become positions (no
 * lines without symbols), others and the rest stay at the function's own
 * line; the node costs are what they are without `at`. */
static void test_at_positions(void)
{
	static const char *const body =
		"object 0 0x0 /nonexistent/prog\n"
		"object 1 0x0 /nonexistent/libc.so.6\n"
		"thread 0 1\n"
		"func 0 addr 0 0x100\n"
		"node 1 0 0 1 0 0 10\n"
		"at 1 0 0x104 6\n"
		"at 1 0 0x108 3\n"
		"at 1 1 0x9000 1\n"
		"endthread 0 nodes 1 unplaced 2 status ok\n"
		"end\n";
	cg_profile *p;
	cg_error err = CG_ERROR_INIT;
	check_int(read_text(&p, body, &err), ==, 0);
	cg_fid f = fid_of(p, "0x100@prog");
	check(f != CG_NO_FUNC);
	size_t n = 0;
	cg_cost at104 = 0;
	check_int(cg_profile_self(p, 0, f)[0], ==, 10);
	check_int(position_sum(p, f, &n, 0x104, &at104), ==, 10);
	check_int(n, ==, 3);  /* 0x104, 0x108, the rest (libc's tick) */
	check_int(at104, ==, 6);
	check(cg_profile_position_kinds(p) & CG_POS_INSTR);
	check_str(cg_profile_meta(p, "unplaced"), "2");
	cg_profile_free(p);

	/* the same file without its `at` records: the same self costs */
	check_int(read_text(&p, "object 0 0x0 /nonexistent/prog\nthread 0 1\nfunc 0 addr 0 0x100\n"
			    "node 1 0 0 1 0 0 10\nendthread 0 nodes 1\nend\n", &err), ==, 0);
	check_int(cg_profile_self(p, 0, fid_of(p, "0x100@prog"))[0], ==, 10);
	check(!cg_profile_has_positions(p, 0));
	cg_profile_free(p);

	static const struct {
		const char *body, *message;
	} bad[] = {
		{ "node 1 0 0 1 0 0 4\nat 1 0 0x12 3\nat 1 0 0x13 2\n", ":12: 'at' costs exceed" },
		{ "node 1 0 0 1 0 0 4\nnode 2 1 0 1 0 0 4\nat 1 0 0x12 1\n", ":12: 'at' does not follow" },
		{ "node 1 0 0 1 0 0 4\nat 1 3 0x12 1\n", ":11: 'at' address in an undefined" },
		{ "node 1 0 0 1 0 0 4\nat 1 0 0x12\n", ":11: 'at' needs 4 fields" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char text[512];
		snprintf(text, sizeof text, "object 0 0x0 /x\nthread 0 1\nfunc 0 addr 0 0x10\n%s"
			 "endthread 0 nodes 9\nend\n", bad[i].body);
		cg_error e = CG_ERROR_INIT;
		check_int(read_text(&p, text, &e), ==, CG_EFORMAT);
		check(strstr(e.message, bad[i].message) != NULL);
		if (!strstr(e.message, bad[i].message))
			printf("# got: %s\n", e.message);
		cg_profile_free(p);
	}
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "--gprof") == 0)
		return gprof_graph(strcmp(argv[2], "1") == 0, argv[3]);
	if (argc > 2 && strcmp(argv[1], "--dump") == 0) {
		for (int i = 2; i < argc; i++)
			if (dump(argv[i]))
				return 3;
		return 0;
	}
	TEST(test_easy_hard(), "easy/hard: the tree charges work's cost to hard only");
	TEST(test_link(), "mutual recursion link: calls counted, cost at the ancestor");
	TEST(test_threads_and_noprofile(), "threads become parts; noprofile marks transparent");
	TEST(test_errors(), "malformed input fails with the line and what is wrong");
	TEST(test_at_positions(), "'at' records: per-address self costs adding up to the node's");
	return tap_done();
}
