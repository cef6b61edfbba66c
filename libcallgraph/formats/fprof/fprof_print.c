/*
 * fprof_print.c — Erlang terms printed the way `io_lib:format("~tp")`
 * writes them when they fit on one line (the flat form; fprof_pretty.c
 * breaks lines).  The walk keeps its position in an explicit stack, so
 * terms of any depth print in time linear in their size.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fprof_term_int.h"

static int is_reserved(const char *s, size_t len)
{
	static const char *const words[] = {
		"after", "and", "andalso", "band", "begin", "bnot", "bor", "bsl", "bsr", "bxor",
		"case", "catch", "cond", "div", "end", "fun", "if", "let", "not", "of", "or",
		"orelse", "receive", "rem", "try", "when", "xor"
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i]) == len && memcmp(words[i], s, len) == 0)
			return 1;
	return 0;
}

static int printable_unicode(uint32_t c)
{
	return (c >= 0x20 && c <= 0x7E) || (c >= 0xA0 && c < 0xD800) ||
	       (c > 0xDFFF && c < 0xFFFE) || (c > 0xFFFF && c <= 0x10FFFF);
}

/* Escapes one character inside a quoted atom or string. */
static void write_char_escaped(fprof_buf *b, uint32_t c, char quote)
{
	char tmp[16];
	switch (c) {
	case '\n': cg_fprof_buf_adds(b, "\\n"); return;
	case '\r': cg_fprof_buf_adds(b, "\\r"); return;
	case '\t': cg_fprof_buf_adds(b, "\\t"); return;
	case '\v': cg_fprof_buf_adds(b, "\\v"); return;
	case '\b': cg_fprof_buf_adds(b, "\\b"); return;
	case '\f': cg_fprof_buf_adds(b, "\\f"); return;
	case 27: cg_fprof_buf_adds(b, "\\e"); return;
	case 127: cg_fprof_buf_adds(b, "\\d"); return;
	case '\\': cg_fprof_buf_adds(b, "\\\\"); return;
	default: break;
	}
	if (c == (uint32_t)quote) {
		cg_fprof_buf_addc(b, '\\');
		cg_fprof_buf_addc(b, quote);
		return;
	}
	if (c < 0x20) {
		snprintf(tmp, sizeof tmp, "\\%o", c);
		cg_fprof_buf_adds(b, tmp);
		return;
	}
	if (!printable_unicode(c) && c >= 0x80 && c < 0xA0) {
		snprintf(tmp, sizeof tmp, "\\x{%X}", c);
		cg_fprof_buf_adds(b, tmp);
		return;
	}
	/* re-encode */
	if (c < 0x80) {
		cg_fprof_buf_addc(b, (char)c);
	} else if (c < 0x800) {
		cg_fprof_buf_addc(b, (char)(0xC0 | c >> 6));
		cg_fprof_buf_addc(b, (char)(0x80 | (c & 0x3F)));
	} else if (c < 0x10000) {
		cg_fprof_buf_addc(b, (char)(0xE0 | c >> 12));
		cg_fprof_buf_addc(b, (char)(0x80 | (c >> 6 & 0x3F)));
		cg_fprof_buf_addc(b, (char)(0x80 | (c & 0x3F)));
	} else {
		cg_fprof_buf_addc(b, (char)(0xF0 | c >> 18));
		cg_fprof_buf_addc(b, (char)(0x80 | (c >> 12 & 0x3F)));
		cg_fprof_buf_addc(b, (char)(0x80 | (c >> 6 & 0x3F)));
		cg_fprof_buf_addc(b, (char)(0x80 | (c & 0x3F)));
	}
}

void cg_fprof_atom_write(fprof_buf *b, const char *s, size_t len)
{
	const char *p = s, *end = s + len;
	int plain = len > 0 && !is_reserved(s, len);
	int first = 1;
	while (plain && p < end) {
		uint32_t c = fprof_utf8_next(&p, end);
		plain = first ? fprof_is_lower_l1(c) : fprof_is_name_l1(c);
		first = 0;
	}
	if (plain) {
		cg_fprof_buf_add(b, s, len);
		return;
	}
	cg_fprof_buf_addc(b, '\'');
	for (p = s; p < end;)
		write_char_escaped(b, fprof_utf8_next(&p, end), '\'');
	cg_fprof_buf_addc(b, '\'');
}

/* Erlang's io_lib:printable_list on a Latin-1 device. */
int cg_fprof_list_is_string(const fprof_term *t)
{
	if (t->kind != FT_LIST || t->u.e[t->n].kind != FT_NIL)
		return 0;
	for (uint32_t i = 0; i < t->n; i++) {
		const fprof_term *e = &t->u.e[i];
		if (e->kind != FT_INT || e->u.i < 0 || e->u.i > 0x10FFFF ||
		    !fprof_printable_char((uint32_t)e->u.i))
			return 0;
	}
	return 1;
}

int cg_fprof_binary_is_text(const fprof_term *t)
{
	if (t->bits != 8 || t->n == 0)
		return 0;
	for (uint32_t i = 0; i < t->n; i++)
		if (!fprof_printable_char((unsigned char)t->u.s[i]))
			return 0;
	return 1;
}

static void write_string_text(fprof_buf *b, const char *s, size_t len)
{
	cg_fprof_buf_addc(b, '"');
	for (const char *p = s, *end = s + len; p < end;)
		write_char_escaped(b, fprof_utf8_next(&p, end), '"');
	cg_fprof_buf_addc(b, '"');
}

/* Erlang's shortest round-trip float text (io_lib_format ~p). */
static void write_float(fprof_buf *b, double f)
{
	char tmp[64];
	if (!isfinite(f)) {
		cg_fprof_buf_adds(b, "0.0");
		return;
	}
	int prec;
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof tmp, "%.*e", prec - 1, f);
		if (strtod(tmp, NULL) == f)
			break;
	}
	/* tmp = d.ddde[+-]XX: digits and exponent */
	char digits[32];
	size_t nd = 0;
	const char *q = tmp;
	int neg = 0;
	if (*q == '-') {
		neg = 1;
		q++;
	}
	for (; *q && *q != 'e'; q++)
		if (*q >= '0' && *q <= '9')
			digits[nd++] = *q;
	int exp = (int)strtol(q + 1, NULL, 10);
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	if (neg)
		cg_fprof_buf_addc(b, '-');
	if (exp >= -4 && exp < 21) {
		if (exp >= 0) {
			for (int i = 0; i <= exp; i++)
				cg_fprof_buf_addc(b, (size_t)i < nd ? digits[i] : '0');
			cg_fprof_buf_addc(b, '.');
			if ((size_t)exp + 1 < nd)
				cg_fprof_buf_add(b, digits + exp + 1, nd - (size_t)exp - 1);
			else
				cg_fprof_buf_addc(b, '0');
		} else {
			cg_fprof_buf_adds(b, "0.");
			for (int i = -1; i > exp; i--)
				cg_fprof_buf_addc(b, '0');
			cg_fprof_buf_add(b, digits, nd);
		}
	} else {
		cg_fprof_buf_addc(b, digits[0]);
		cg_fprof_buf_addc(b, '.');
		if (nd > 1)
			cg_fprof_buf_add(b, digits + 1, nd - 1);
		else
			cg_fprof_buf_addc(b, '0');
		cg_fprof_buf_addf(b, "e%d", exp);
	}
}

static void write_binary(fprof_buf *b, const fprof_term *t)
{
	int printable = cg_fprof_binary_is_text(t);
	cg_fprof_buf_adds(b, "<<");
	if (printable) {
		cg_fprof_buf_addc(b, '"');
		for (uint32_t i = 0; i < t->n; i++)
			write_char_escaped(b, (unsigned char)t->u.s[i], '"');
		cg_fprof_buf_addc(b, '"');
	} else {
		for (uint32_t i = 0; i < t->n; i++) {
			unsigned v = (unsigned char)t->u.s[i];
			if (i)
				cg_fprof_buf_addc(b, ',');
			if (i + 1 == t->n && t->bits != 8)
				cg_fprof_buf_addf(b, "%u:%u", v >> (8 - t->bits), (unsigned)t->bits);
			else
				cg_fprof_buf_addf(b, "%u", v);
		}
	}
	cg_fprof_buf_adds(b, ">>");
}

static void write_list_string(fprof_buf *b, const fprof_term *t)
{
	cg_fprof_buf_addc(b, '"');
	for (uint32_t i = 0; i < t->n; i++)
		write_char_escaped(b, (uint32_t)t->u.e[i].u.i, '"');
	cg_fprof_buf_addc(b, '"');
}

/* A term with no elements to walk. */
static void leaf_write(fprof_buf *b, const fprof_term *t)
{
	switch (t->kind) {
	case FT_ATOM: cg_fprof_atom_write(b, t->u.s, t->n); break;
	case FT_INT: cg_fprof_buf_addf(b, "%lld", (long long)t->u.i); break;
	case FT_BIG: cg_fprof_buf_add(b, t->u.s, t->n); break;
	case FT_FLOAT: write_float(b, t->u.f); break;
	case FT_STRING: {
		int latin1 = 1;
		for (const char *q = t->u.s, *e = t->u.s + t->n; q < e && latin1;)
			latin1 = fprof_utf8_next(&q, e) <= 0xFF;
		if (latin1) {
			write_string_text(b, t->u.s, t->n);
			break;
		}
		cg_fprof_buf_addc(b, '[');
		for (const char *q = t->u.s, *e = t->u.s + t->n; q < e;) {
			if (q != t->u.s)
				cg_fprof_buf_addc(b, ',');
			cg_fprof_buf_addf(b, "%u", fprof_utf8_next(&q, e));
		}
		cg_fprof_buf_addc(b, ']');
		break;
	}
	case FT_NIL: cg_fprof_buf_adds(b, "[]"); break;
	case FT_BINARY: write_binary(b, t); break;
	case FT_LIST: write_list_string(b, t); break;
	default: break;
	}
}

/* A term whose elements the walk visits (else leaf_write prints it). */
static int has_elements(const fprof_term *t)
{
	return t->kind == FT_TUPLE || t->kind == FT_MAP ||
	       (t->kind == FT_LIST && !cg_fprof_list_is_string(t));
}

/* A tuple, list or map being written: t, and the next slot to visit. */
struct write_frame {
	const fprof_term *t;
	uint32_t next;
};

void cg_fprof_term_write(fprof_buf *b, const fprof_term *t)
{
	struct write_frame *stack = NULL;
	size_t depth = 0, cap = 0;
	const fprof_term *cur = t;
	while (cur) {
		if (!has_elements(cur)) {
			leaf_write(b, cur);
		} else {
			if (fprof_stack_reserve((void **)&stack, depth, &cap, sizeof *stack)) {
				b->oom = 1;
				break;
			}
			stack[depth++] = (struct write_frame){ cur, 0 };
			cg_fprof_buf_adds(b, cur->kind == FT_TUPLE ? "{" : cur->kind == FT_MAP ? "#{" : "[");
		}
		/* the next term to write: the next element of the innermost
		 * open container, closing those that are done */
		cur = NULL;
		while (depth > 0 && !cur) {
			struct write_frame *f = &stack[depth - 1];
			const fprof_term *c = f->t;
			uint32_t i = f->next;
			if (c->kind == FT_TUPLE && i < c->n) {
				if (i)
					cg_fprof_buf_addc(b, ',');
				cur = &c->u.e[i];
			} else if (c->kind == FT_MAP && i < 2 * (uint64_t)c->n) {
				cg_fprof_buf_adds(b, i == 0 ? "" : i % 2 ? " => " : ",");
				cur = &c->u.e[i];
			} else if (c->kind == FT_LIST && i < c->n) {
				if (i)
					cg_fprof_buf_addc(b, ',');
				cur = &c->u.e[i];
			} else if (c->kind == FT_LIST && i == c->n && c->u.e[c->n].kind != FT_NIL) {
				cg_fprof_buf_addc(b, '|');
				cur = &c->u.e[i];
			} else {
				cg_fprof_buf_addc(b, c->kind == FT_LIST ? ']' : '}');
				depth--;
				continue;
			}
			f->next = i + 1;
		}
	}
	free(stack);
}
