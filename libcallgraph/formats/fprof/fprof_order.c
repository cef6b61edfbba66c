/*
 * fprof_order.c — Erlang's standard order of terms (number < atom <
 * reference < fun < port < pid < tuple < map < nil < list < binary),
 * compared with an explicit stack so any nesting is fine, and in time
 * linear in the terms (strings are walked with a cursor, not indexed).
 */
#include <stdlib.h>
#include <string.h>

#include "fprof_term_int.h"

enum { RANK_NUMBER = 0, RANK_ATOM = 1, RANK_TUPLE = 6, RANK_MAP = 7, RANK_NIL = 8, RANK_LIST = 9,
       RANK_BINARY = 10, RANK_OTHER = 11 };

static int kind_rank(const fprof_term *t)
{
	/* parsified pids etc. are strings, i.e. lists */
	switch (t->kind) {
	case FT_INT: case FT_BIG: case FT_FLOAT: return RANK_NUMBER;
	case FT_ATOM: return RANK_ATOM;
	case FT_TUPLE: return RANK_TUPLE;
	case FT_MAP: return RANK_MAP;
	case FT_NIL: return RANK_NIL;
	case FT_LIST: case FT_STRING: return RANK_LIST;
	case FT_BINARY: return RANK_BINARY;
	}
	return RANK_OTHER;
}

static int cmp_bytes(const char *a, size_t an, const char *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);
	if (c)
		return c < 0 ? -1 : 1;
	return an < bn ? -1 : an > bn;
}

static double num_value(const fprof_term *t)
{
	return t->kind == FT_INT ? (double)t->u.i : t->kind == FT_FLOAT ? t->u.f : strtod(t->u.s, NULL);
}

/* Compares what can be compared without looking at elements; *walk set
 * when the order depends on the elements (same-size tuples or maps,
 * lists). */
static int compare_shallow(const fprof_term *a, const fprof_term *b, int *walk)
{
	int ra = kind_rank(a), rb = kind_rank(b);
	*walk = 0;
	if (ra != rb)
		return ra < rb ? -1 : 1;
	switch (ra) {
	case RANK_NUMBER: {
		if (a->kind == FT_INT && b->kind == FT_INT)
			return a->u.i < b->u.i ? -1 : a->u.i > b->u.i;
		double x = num_value(a), y = num_value(b);
		return x < y ? -1 : x > y;
	}
	case RANK_ATOM:
	case RANK_BINARY:
		return cmp_bytes(a->u.s, a->n, b->u.s, b->n);
	case RANK_TUPLE:
	case RANK_MAP:
		if (a->n != b->n)
			return a->n < b->n ? -1 : 1;
		*walk = 1;
		return 0;
	case RANK_LIST:
		*walk = 1;
		return 0;
	}
	return 0;
}

/* A pair of tuples, maps or lists whose elements are being compared. */
struct order_frame {
	const fprof_term *a, *b;
	uint64_t next;          /* tuples and maps: the next slot; lists: elements taken */
	const char *sa, *sb;    /* FT_STRING sides: the next character */
};

/* The next element of one side of a list frame: 1 and *elem set, or 0 at
 * its end with *elem its tail (nil for a string).  A string's characters
 * go to *scratch. */
static int list_next(const fprof_term *t, uint64_t i, const char **cursor, fprof_term *scratch,
		     const fprof_term **elem)
{
	static const fprof_term nil = { .kind = FT_NIL };
	if (t->kind == FT_STRING) {
		const char *end = t->u.s + t->n;
		if (*cursor >= end) {
			*elem = &nil;
			return 0;
		}
		*scratch = (fprof_term){ .kind = FT_INT };
		scratch->u.i = fprof_utf8_next(cursor, end);
		*elem = scratch;
		return 1;
	}
	*elem = &t->u.e[i < t->n ? i : t->n];
	return i < t->n;
}

int cg_fprof_term_compare(const fprof_term *a, const fprof_term *b)
{
	struct order_frame *stack = NULL;
	size_t depth = 0, cap = 0;
	fprof_term xa, xb;   /* characters of strings being compared */
	int result = 0;
	for (;;) {
		int walk;
		result = compare_shallow(a, b, &walk);
		if (result)
			break;
		if (walk) {
			if (fprof_stack_reserve((void **)&stack, depth, &cap, sizeof *stack)) {
				/* out of memory: fall back to the shallow answer */
				break;
			}
			stack[depth++] = (struct order_frame){ a, b, 0,
				a->kind == FT_STRING ? a->u.s : NULL, b->kind == FT_STRING ? b->u.s : NULL };
		}
		/* the next pair: from the innermost open frame */
		a = NULL;
		while (depth > 0 && !a) {
			struct order_frame *f = &stack[depth - 1];
			if (f->a->kind == FT_TUPLE || f->a->kind == FT_MAP) {
				uint64_t count = f->a->kind == FT_MAP ? 2 * (uint64_t)f->a->n : f->a->n;
				if (f->next < count) {
					a = &f->a->u.e[f->next];
					b = &f->b->u.e[f->next];
					f->next++;
				} else {
					depth--;
				}
				continue;
			}
			const fprof_term *ea, *eb;
			int ha = list_next(f->a, f->next, &f->sa, &xa, &ea);
			int hb = list_next(f->b, f->next, &f->sb, &xb, &eb);
			f->next++;
			a = ea;
			b = eb;
			if (!ha || !hb)
				/* a list ended: its tail against the other's element
				 * (or tail) decides for the whole list */
				depth--;
		}
		if (!a)
			break;
	}
	free(stack);
	return result;
}
