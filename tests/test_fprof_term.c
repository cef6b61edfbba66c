/*
 * test_fprof_term.c — the fprof term layer on terms nested far deeper than
 * a C stack allows recursion for (tests/fprof-term-unit.t runs it with a
 * 1 MB stack): the ETF decoder and skipper, the text parser, the flat and
 * pretty printers and term order must all walk with heap stacks.  Also the
 * decoder's errors: what it cannot decode fails with the offset of the
 * term at fault.
 */
#include <stdlib.h>
#include <string.h>

#include "fprof_term.h"
#include "tap.h"

enum { DEEP = 200000 };

/* "[[[...[]...]]]" nested `depth` deep around `core`. */
static char *nested_text(size_t depth, const char *core)
{
	size_t n = strlen(core);
	char *s = malloc(2 * depth + n + 1);
	memset(s, '[', depth);
	memcpy(s + depth, core, n);
	memset(s + depth + n, ']', depth);
	s[2 * depth + n] = '\0';
	return s;
}

/* The same list as ETF (no version byte): LIST_EXT of one element and a
 * NIL tail, `depth` times, around SMALL_INTEGER_EXT `core`. */
static uint8_t *nested_etf(size_t depth, uint8_t core, size_t *len)
{
	uint8_t *b = malloc(6 * depth + 2), *p = b;
	for (size_t i = 0; i < depth; i++) {
		*p++ = 108;
		*p++ = 0; *p++ = 0; *p++ = 0; *p++ = 1;
	}
	*p++ = 97;
	*p++ = core;
	for (size_t i = 0; i < depth; i++)
		*p++ = 106;
	*len = (size_t)(p - b);
	return b;
}

static void test_deep_text(void)
{
	fprof_arena a = { 0 };
	char *src = nested_text(DEEP, "7"), *other = nested_text(DEEP, "8");
	const char *q = src, *why = NULL;
	fprof_term *t, *u;
	check_int(cg_fprof_term_parse(&a, &q, src + strlen(src), &t, &why), ==, 0);
	check(q == src + strlen(src));
	q = other;
	check_int(cg_fprof_term_parse(&a, &q, other + strlen(other), &u, &why), ==, 0);
	fprof_buf b = { 0 };
	cg_fprof_term_write(&b, t);
	check(!b.oom && strcmp(cg_fprof_buf_cstr(&b), src) == 0);
	/* a list of one element stays on its line in io_lib_pretty's layout */
	b.len = 0;
	cg_fprof_term_pretty(&b, t, 10);
	check(!b.oom && strcmp(cg_fprof_buf_cstr(&b), src) == 0);
	check_int(cg_fprof_term_compare(t, t), ==, 0);
	check_int(cg_fprof_term_compare(t, u), ==, -1);
	check_int(cg_fprof_term_compare(u, t), ==, 1);
	cg_fprof_buf_release(&b);
	free(src);
	free(other);
	cg_fprof_arena_release(&a);
}

static void test_deep_etf(void)
{
	fprof_arena a = { 0 };
	size_t len;
	uint8_t *etf = nested_etf(DEEP, 7, &len);
	const uint8_t *p = etf, *end = etf + len;
	const char *why = NULL;
	check_int(cg_fprof_etf_skip(&p, end, &why), ==, 0);
	check(p == end);
	p = etf;
	fprof_term *t;
	check_int(cg_fprof_etf_decode(&a, &p, end, &t, &why), ==, 0);
	check(p == end);
	char *want = nested_text(DEEP, "7");
	fprof_buf b = { 0 };
	cg_fprof_term_write(&b, t);
	check(!b.oom && strcmp(cg_fprof_buf_cstr(&b), want) == 0);
	cg_fprof_buf_release(&b);
	/* cut anywhere inside: an error, never a crash */
	p = etf;
	check_int(cg_fprof_etf_decode(&a, &p, end - 1, &t, &why), ==, CG_EFORMAT);
	free(want);
	free(etf);
	cg_fprof_arena_release(&a);
}

/* "{[{[...]}]}" (one-element tuples and lists, laid out on one line)
 * and "{t,#{k => [...]}}" (tagged tuples and maps: a new, further
 * indented line per level, so the layout itself is quadratic in the
 * depth: pretty-printed at a smaller depth). */
static char *tuple_text(int depth, const char *open, const char *core, const char *close)
{
	fprof_buf b = { 0 };
	for (int i = 0; i < depth; i++)
		cg_fprof_buf_adds(&b, open);
	cg_fprof_buf_adds(&b, core);
	for (int i = 0; i < depth; i++)
		cg_fprof_buf_adds(&b, close);
	return b.data;
}

static void deep_shape(const char *s, int pretty_is_flat)
{
	fprof_arena a = { 0 };
	const char *q = s, *why = NULL;
	fprof_term *t;
	check_int(cg_fprof_term_parse(&a, &q, s + strlen(s), &t, &why), ==, 0);
	fprof_buf b = { 0 };
	cg_fprof_term_write(&b, t);
	check(!b.oom && strcmp(cg_fprof_buf_cstr(&b), s) == 0);
	b.len = 0;
	cg_fprof_term_pretty(&b, t, 0);
	if (pretty_is_flat)
		check(!b.oom && strcmp(cg_fprof_buf_cstr(&b), s) == 0);
	else
		check(!b.oom && b.len > strlen(s) && strchr(cg_fprof_buf_cstr(&b), '\n'));
	check_int(cg_fprof_term_compare(t, t), ==, 0);
	cg_fprof_buf_release(&b);
	cg_fprof_arena_release(&a);
}

static void test_deep_tuples_and_maps(void)
{
	char *s = tuple_text(DEEP / 2, "{[", "leaf", "]}");
	deep_shape(s, 1);
	free(s);
	s = tuple_text(1000, "{t,#{k => [", "leaf", "]}}");
	deep_shape(s, 0);
	free(s);
}

/* What binary_to_term would refuse: an error with the offending term. */
static void test_undecodable(void)
{
	fprof_arena a = { 0 };
	/* {ok, <compressed>} */
	static const uint8_t compressed[] = { 104, 2, 119, 2, 'o', 'k', 80, 0, 0, 0, 9, 120, 156 };
	/* [1 | ...] claiming 2^32 - 1 elements */
	static const uint8_t huge[] = { 104, 1, 108, 255, 255, 255, 255, 97, 1, 106 };
	static const uint8_t huge_map[] = { 116, 255, 255, 255, 255, 106 };
	const uint8_t *p;
	const char *why;
	fprof_term *t;
	p = compressed;
	check_int(cg_fprof_etf_decode(&a, &p, compressed + sizeof compressed, &t, &why), ==, CG_EFORMAT);
	check_int(p - compressed, ==, 6);
	check(strstr(why, "compressed") != NULL);
	p = compressed;
	check_int(cg_fprof_etf_skip(&p, compressed + sizeof compressed, &why), ==, CG_EFORMAT);
	check_int(p - compressed, ==, 6);
	p = huge;
	check_int(cg_fprof_etf_decode(&a, &p, huge + sizeof huge, &t, &why), ==, CG_EFORMAT);
	check_int(p - huge, ==, 2);
	check(strstr(why, "elements") != NULL);
	p = huge;
	check_int(cg_fprof_etf_skip(&p, huge + sizeof huge, &why), ==, CG_EFORMAT);
	check_int(p - huge, ==, 2);
	p = huge_map;
	check_int(cg_fprof_etf_decode(&a, &p, huge_map + sizeof huge_map, &t, &why), ==, CG_EFORMAT);
	check_int(p - huge_map, ==, 0);
	cg_fprof_arena_release(&a);
}

/* Strings against lists of characters: Erlang order, a long string in
 * linear time (each character found by a cursor, not by index). */
static void test_string_order(void)
{
	fprof_arena a = { 0 };
	enum { N = 300000 };
	char *text = malloc(N + 3);
	text[0] = '"';
	memset(text + 1, 'x', N);
	text[N + 1] = '"';
	text[N + 2] = '\0';
	const char *q = text, *why;
	fprof_term *s;
	check_int(cg_fprof_term_parse(&a, &q, text + N + 2, &s, &why), ==, 0);
	check_int(s->kind, ==, FT_STRING);
	fprof_term *l = cg_fprof_arena_alloc(&a, sizeof *l);
	l->kind = FT_LIST;
	l->n = N;
	l->u.e = cg_fprof_arena_alloc(&a, (N + 1) * sizeof *l->u.e);
	for (size_t i = 0; i < N; i++) {
		l->u.e[i].kind = FT_INT;
		l->u.e[i].u.i = 'x';
	}
	l->u.e[N].kind = FT_NIL;
	check_int(cg_fprof_term_compare(s, l), ==, 0);
	l->u.e[N - 1].u.i = 'y';
	check_int(cg_fprof_term_compare(s, l), ==, -1);
	l->u.e[N].kind = FT_ATOM;   /* improper tail: [] > atom, so "xx" > [x,x|a] */
	l->u.e[N].u.s = "a";
	l->u.e[N].n = 1;
	l->u.e[N - 1].u.i = 'x';
	check_int(cg_fprof_term_compare(s, l), ==, 1);
	free(text);
	cg_fprof_arena_release(&a);
}

int main(void)
{
	TEST(test_deep_text(), "200,000-deep list text: parse, write, pretty, order");
	TEST(test_deep_etf(), "200,000-deep ETF list: skip and decode");
	TEST(test_deep_tuples_and_maps(), "deep tuples and maps: parse, write, pretty, order");
	TEST(test_undecodable(), "compressed terms and 2^32-element headers: error at the term");
	TEST(test_string_order(), "a 300,000-character string against a list: Erlang order");
	return tap_done();
}
