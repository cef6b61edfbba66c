/*
 * fprof_parse.c — Erlang term text (what fprof prints: atoms, integers,
 * floats, strings, tuples, lists, maps, binaries) parsed back into
 * fprof_term trees, and the term fprof prints for a function name.
 *
 * Open tuples, lists and maps live on an explicit stack, each collecting
 * its elements in a growable vector, so nesting costs heap, not C stack,
 * and time stays linear in the text.
 */
#include <stdlib.h>
#include <string.h>

#include "fprof_term_int.h"

static void skip_space(const char **pp, const char *end)
{
	const char *p = *pp;
	while (p < end) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			p++;
		} else if (*p == '%') {
			while (p < end && *p != '\n')
				p++;
		} else {
			break;
		}
	}
	*pp = p;
}

/* Reads a quoted atom or string body up to `quote`, handling escapes. */
static int parse_quoted(fprof_arena *a, const char **pp, const char *end, char quote,
			const char **s, size_t *len, const char **why)
{
	const char *p = *pp + 1;
	fprof_buf b = { 0 };
	while (p < end && *p != quote) {
		if (*p != '\\') {
			cg_fprof_buf_addc(&b, *p++);
			continue;
		}
		if (++p >= end)
			break;
		char e = *p++;
		uint32_t c;
		switch (e) {
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'v': c = '\v'; break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'e': c = 27; break;
		case 'd': c = 127; break;
		case 's': c = ' '; break;
		case 'x':
			if (p < end && *p == '{') {
				char *q;
				c = (uint32_t)strtoul(p + 1, &q, 16);
				p = q < end && *q == '}' ? q + 1 : q;
			} else {
				c = 0;
				for (int k = 0; k < 2 && p < end && strchr("0123456789abcdefABCDEF", *p) && *p; k++, p++)
					c = c * 16 + (uint32_t)(*p <= '9' ? *p - '0' : (*p | 32) - 'a' + 10);
			}
			break;
		default:
			if (e >= '0' && e <= '7') {
				c = (uint32_t)(e - '0');
				for (int k = 0; k < 2 && p < end && *p >= '0' && *p <= '7'; k++, p++)
					c = c * 8 + (uint32_t)(*p - '0');
			} else {
				c = (unsigned char)e;
			}
		}
		char tmp[4];
		if (c > 0x10FFFF)
			c = '?';
		cg_fprof_buf_add(&b, tmp, (size_t)fprof_utf8_put(tmp, c));
	}
	if (p >= end) {
		cg_fprof_buf_release(&b);
		*why = "unterminated quoted text";
		return CG_EFORMAT;
	}
	*s = cg_fprof_arena_strdup(a, b.data ? b.data : "", b.len);
	*len = b.len;
	int oom = b.oom;
	cg_fprof_buf_release(&b);
	if (!*s || oom)
		return CG_ENOMEM;
	*pp = p + 1;
	return 0;
}

/* A term without elements (anything but a tuple, list or map) at *pp,
 * which is not white space, into *t. */
static int parse_scalar(fprof_arena *a, const char **pp, const char *end, fprof_term *t,
			const char **why)
{
	const char *p = *pp;
	const char *s;
	size_t len;
	int rc;
	char c = *p;
	if (c == '"') {
		if ((rc = parse_quoted(a, &p, end, '"', &s, &len, why)))
			return rc;
		t->kind = len ? FT_STRING : FT_NIL;
		t->u.s = s;
		t->n = (uint32_t)len;
	} else if (c == '\'') {
		if ((rc = parse_quoted(a, &p, end, '\'', &s, &len, why)))
			return rc;
		t->kind = FT_ATOM;
		t->u.s = s;
		t->n = (uint32_t)len;
	} else if ((c >= '0' && c <= '9') || c == '-') {
		const char *q = p + (c == '-');
		while (q < end && *q >= '0' && *q <= '9')
			q++;
		int isfloat = q + 1 < end && *q == '.' && q[1] >= '0' && q[1] <= '9';
		if (isfloat) {
			char tmp[64];
			const char *r = q + 1;
			while (r < end && ((*r >= '0' && *r <= '9') || *r == 'e' || *r == 'E' ||
					   ((*r == '-' || *r == '+') && (r[-1] == 'e' || r[-1] == 'E'))))
				r++;
			size_t l = (size_t)(r - p) < sizeof tmp - 1 ? (size_t)(r - p) : sizeof tmp - 1;
			memcpy(tmp, p, l);
			tmp[l] = '\0';
			t->kind = FT_FLOAT;
			t->u.f = strtod(tmp, NULL);
			p = r;
		} else {
			if (q == p + (c == '-')) {
				*why = "number expected";
				return CG_EFORMAT;
			}
			size_t l = (size_t)(q - p);
			if (l <= 18) {
				int64_t v = 0;
				for (const char *r = p + (c == '-'); r < q; r++)
					v = v * 10 + (*r - '0');
				t->kind = FT_INT;
				t->u.i = c == '-' ? -v : v;
			} else {
				t->kind = FT_BIG;
				t->u.s = cg_fprof_arena_strdup(a, p, l);
				t->n = (uint32_t)l;
				if (!t->u.s)
					return CG_ENOMEM;
			}
			p = q;
		}
	} else if (c == '<' && p + 1 < end && p[1] == '<') {
		/* binary: <<"text">> or <<1,2,3>> or with a last N:Bits */
		p += 2;
		fprof_buf b = { 0 };
		int bits = 8;
		skip_space(&p, end);
		while (p < end && *p != '>') {
			if (*p == '"') {
				if ((rc = parse_quoted(a, &p, end, '"', &s, &len, why))) {
					cg_fprof_buf_release(&b);
					return rc;
				}
				/* string bytes are Latin-1 characters */
				for (const char *r = s, *e2 = s + len; r < e2;)
					cg_fprof_buf_addc(&b, (char)fprof_utf8_next(&r, e2));
			} else {
				char *q;
				long v = strtol(p, &q, 10);
				if (q == p) {
					cg_fprof_buf_release(&b);
					*why = "bad binary";
					return CG_EFORMAT;
				}
				p = q;
				if (p < end && *p == ':') {
					bits = (int)strtol(p + 1, &q, 10);
					p = q;
					if (bits < 1 || bits > 8)
						bits = 8;
					v <<= 8 - bits;
				}
				cg_fprof_buf_addc(&b, (char)v);
			}
			skip_space(&p, end);
			if (p < end && *p == ',')
				p++;
			skip_space(&p, end);
		}
		if (end - p < 2 || p[1] != '>') {
			cg_fprof_buf_release(&b);
			*why = "unterminated binary";
			return CG_EFORMAT;
		}
		p += 2;
		t->kind = FT_BINARY;
		t->bits = (uint8_t)bits;
		t->n = (uint32_t)b.len;
		t->u.s = cg_fprof_arena_strdup(a, b.data ? b.data : "", b.len);
		cg_fprof_buf_release(&b);
		if (!t->u.s)
			return CG_ENOMEM;
	} else if ((c >= 'a' && c <= 'z') || (unsigned char)c >= 0xC0) {
		const char *q = p;
		while (q < end) {
			const char *r = q;
			uint32_t ch = fprof_utf8_next(&r, end);
			if (!fprof_is_name_l1(ch))
				break;
			q = r;
		}
		if (q == p) {
			*why = "unexpected character";
			return CG_EFORMAT;
		}
		t->kind = FT_ATOM;
		t->u.s = cg_fprof_arena_strdup(a, p, (size_t)(q - p));
		t->n = (uint32_t)(q - p);
		if (!t->u.s)
			return CG_ENOMEM;
		p = q;
	} else {
		*why = "unexpected character";
		return CG_EFORMAT;
	}
	*pp = p;
	return 0;
}

/* An open tuple, list or map and the elements read so far. */
struct parse_frame {
	char kind;           /* '{', '[' or '#' (a map) */
	char state;          /* what the next term is: P_ITEM, P_TAIL, P_KEY or P_VALUE */
	fprof_term *items;   /* malloc'd; maps: key, value, key, ... */
	size_t n, cap;
	fprof_term tail;     /* lists: after '|' */
};

enum { P_ITEM, P_TAIL, P_KEY, P_VALUE };

static void release_frames(struct parse_frame *stack, size_t depth)
{
	for (size_t i = 0; i < depth; i++)
		free(stack[i].items);
	free(stack);
}

/* The finished container of frame f, its elements moved to the arena. */
static int close_frame(fprof_arena *a, struct parse_frame *f, fprof_term *out)
{
	fprof_term *e = cg_fprof_arena_alloc(a, (f->n + 1) * sizeof *e);
	if (!e)
		return CG_ENOMEM;
	if (f->n)
		memcpy(e, f->items, f->n * sizeof *e);
	*out = (fprof_term){ .kind = FT_NIL };
	if (f->kind == '{') {
		out->kind = FT_TUPLE;
		out->n = (uint32_t)f->n;
		out->u.e = e;
	} else if (f->kind == '#') {
		out->kind = FT_MAP;
		out->n = (uint32_t)(f->n / 2);
		out->u.e = e;
	} else if (f->n > 0) {
		out->kind = FT_LIST;
		out->n = (uint32_t)f->n;
		out->u.e = e;
		e[f->n] = f->state == P_TAIL ? f->tail : (fprof_term){ .kind = FT_NIL };
	}
	return 0;
}

int cg_fprof_term_parse(fprof_arena *a, const char **pp, const char *end, fprof_term **out,
			const char **why)
{
	const char *p = *pp;
	struct parse_frame *stack = NULL;
	size_t depth = 0, cap = 0;
	fprof_term v;   /* the term just completed */
	int rc = 0;
	for (;;) {
		/* read the start of a term: a scalar completes it, a bracket
		 * opens a frame (and an empty one completes at once) */
		skip_space(&p, end);
		if (p >= end) {
			*why = "term expected";
			rc = CG_EFORMAT;
			break;
		}
		char c = *p;
		int opens = c == '{' || c == '[' || (c == '#' && p + 1 < end && p[1] == '{');
		if (!opens) {
			v = (fprof_term){ .kind = FT_NIL };
			if ((rc = parse_scalar(a, &p, end, &v, why)))
				break;
		} else {
			if ((rc = fprof_stack_reserve((void **)&stack, depth, &cap, sizeof *stack)))
				break;
			struct parse_frame *f = &stack[depth++];
			*f = (struct parse_frame){ .kind = c, .state = c == '#' ? P_KEY : P_ITEM };
			p += c == '#' ? 2 : 1;
			skip_space(&p, end);
			if (c == '#' && p >= end) {
				*why = "unterminated map";
				rc = CG_EFORMAT;
				break;
			}
			if (p >= end || *p != (c == '[' ? ']' : '}'))
				continue;   /* its first element */
			p++;
			rc = close_frame(a, f, &v);
			free(f->items);
			depth--;
			if (rc)
				break;
		}
		/* v is complete: hand it to the open frames, closing those it
		 * completes, until one wants another term */
		int want_more = 0;
		while (depth > 0 && !want_more && !rc) {
			struct parse_frame *f = &stack[depth - 1];
			if (f->state == P_TAIL) {
				f->tail = v;
			} else {
				if ((rc = fprof_stack_reserve((void **)&f->items, f->n, &f->cap, sizeof v)))
					break;
				f->items[f->n++] = v;
			}
			skip_space(&p, end);
			if (f->state == P_KEY) {
				if (end - p < 2 || p[0] != '=' || p[1] != '>') {
					*why = "expected '=>' in map";
					rc = CG_EFORMAT;
					break;
				}
				p += 2;
				f->state = P_VALUE;
				want_more = 1;
				continue;
			}
			if (f->state == P_VALUE) {
				if (p < end && *p == ',')
					p++;
				skip_space(&p, end);
				if (p >= end) {
					*why = "unterminated map";
					rc = CG_EFORMAT;
					break;
				}
				if (*p != '}') {
					f->state = P_KEY;
					want_more = 1;
					continue;
				}
			} else if (f->state == P_ITEM && p < end && *p == ',') {
				p++;
				want_more = 1;
				continue;
			} else if (f->state == P_ITEM && p < end && *p == '|' && f->kind == '[') {
				p++;
				f->state = P_TAIL;
				want_more = 1;
				continue;
			} else if (p >= end || *p != (f->kind == '[' ? ']' : '}')) {
				*why = "expected ',' or closing bracket";
				rc = CG_EFORMAT;
				break;
			}
			p++;   /* the closing bracket */
			rc = close_frame(a, f, &v);
			free(f->items);
			depth--;
		}
		if (rc || !want_more)
			break;
	}
	release_frames(stack, depth);
	if (rc)
		return rc;
	fprof_term *t = fprof_new_term(a, FT_NIL);
	if (!t)
		return CG_ENOMEM;
	*t = v;
	*out = t;
	*pp = p;
	return 0;
}

/* ---- function names ---------------------------------------------------------------- */

/* Reads one atom of an "M:F/A" name, plain or quoted. */
static int name_atom(fprof_arena *a, const char **pp, const char *end, fprof_term *t)
{
	const char *p = *pp, *why;
	const char *s;
	size_t len;
	if (p < end && *p == '\'') {
		if (parse_quoted(a, &p, end, '\'', &s, &len, &why))
			return -1;
	} else {
		const char *q = p;
		while (q < end) {
			const char *r = q;
			uint32_t c = fprof_utf8_next(&r, end);
			if (!fprof_is_name_l1(c))
				break;
			q = r;
		}
		if (q == p)
			return -1;
		s = p;
		len = (size_t)(q - p);
		p = q;
	}
	t->kind = FT_ATOM;
	t->u.s = s;
	t->n = (uint32_t)len;
	*pp = p;
	return 0;
}

int cg_fprof_name_term(fprof_arena *a, const char *name, fprof_term **out)
{
	size_t n = strlen(name);
	const char *p = name, *end = name + n;
	fprof_term *t = fprof_new_term(a, FT_TUPLE);
	fprof_term *e = cg_fprof_arena_alloc(a, 3 * sizeof *e);
	if (!t || !e)
		return CG_ENOMEM;
	if (name_atom(a, &p, end, &e[0]) == 0 && p < end && *p == ':' && (p++, 1) &&
	    name_atom(a, &p, end, &e[1]) == 0 && p < end && *p == '/' && p + 1 < end) {
		p++;
		int64_t ar = 0;
		const char *q = p;
		while (q < end && *q >= '0' && *q <= '9' && ar < 100000)
			ar = ar * 10 + (*q++ - '0');
		if (q == end && q > p) {
			e[2].kind = FT_INT;
			e[2].u.i = ar;
			t->n = 3;
			t->u.e = e;
			*out = t;
			return 0;
		}
	}
	t->kind = FT_ATOM;
	t->u.s = name;
	t->n = (uint32_t)n;
	*out = t;
	return 0;
}

