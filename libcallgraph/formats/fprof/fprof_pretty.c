/*
 * fprof_pretty.c — Erlang terms laid out the way `~tp` (io_lib_pretty,
 * line length 80, no depth limit) breaks them over lines, for fprof's
 * `spawned_as` and `initial_calls` rows.
 *
 * io_lib_pretty first measures the term ("print_length"), then lays it
 * out (pp) with a tag indentation chosen by a dry run (cind): -1 when
 * every tagged tuple fits after its tag, else 4.  A "leaf" is anything
 * printed as one unbreakable string.
 *
 * Each of the three passes walks the term with an explicit stack of work
 * items on the heap instead of recursion, and each visits a node once, so
 * a term nested 9,000 deep lays out in linear time with a small C stack.
 * Measuring is bottom-up (a container's flat length is its elements'
 * plus its brackets and separators), never by printing a subtree again.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fprof_term_int.h"

struct pnode {
	int kind;            /* PN_* */
	int len;             /* characters when written flat (saturated) */
	const fprof_term *t;
	struct pnode *e;     /* elements */
	uint32_t n;
	struct pnode *tail;  /* improper list tail */
	int tlen;            /* tagged tuple: tag length */
};

enum { PN_LEAF, PN_LIST, PN_TUPLE, PN_TAGGED, PN_BIN, PN_MAP, PN_PAIR };
enum { LL = 80 };
/* Lengths saturate here: far beyond any line, and sums of a few stay in int. */
enum { LEN_MAX = 1 << 28 };

static int sat_add(int a, long long b)
{
	long long s = (long long)a + b;
	return s > LEN_MAX ? LEN_MAX : (int)s;
}

/* ---- measuring: the pnode tree ------------------------------------------------- */

static int flat_len(const fprof_term *t)
{
	fprof_buf b = { 0 };
	cg_fprof_term_write(&b, t);
	size_t n = fprof_utf8_chars(cg_fprof_buf_cstr(&b), b.len);
	cg_fprof_buf_release(&b);
	return n > LEN_MAX ? LEN_MAX : (int)n;
}

/* Sets up x for term t: its kind, and for containers the element nodes
 * (still to be measured).  Leaves are measured here. */
static int pn_init(fprof_arena *a, const fprof_term *t, struct pnode *x)
{
	memset(x, 0, sizeof *x);
	x->t = t;
	x->kind = PN_LEAF;
	if (t->kind == FT_BINARY && !cg_fprof_binary_is_text(t)) {
		x->kind = PN_BIN;
	} else if (t->kind == FT_MAP && t->n > 0) {
		x->kind = PN_MAP;
		x->n = t->n;
		x->e = cg_fprof_arena_alloc(a, t->n * sizeof *x->e);
		struct pnode *kv = cg_fprof_arena_alloc(a, 2 * (size_t)t->n * sizeof *kv);
		if (!x->e || !kv)
			return CG_ENOMEM;
		for (uint32_t i = 0; i < t->n; i++) {
			x->e[i].kind = PN_PAIR;
			x->e[i].n = 2;
			x->e[i].e = &kv[2 * (size_t)i];
		}
		return 0;
	} else if ((t->kind == FT_LIST && !cg_fprof_list_is_string(t)) ||
		   (t->kind == FT_TUPLE && t->n > 0)) {
		x->n = t->n;
		x->e = cg_fprof_arena_alloc(a, t->n * sizeof *x->e);
		if (!x->e)
			return CG_ENOMEM;
		if (t->kind == FT_LIST) {
			x->kind = PN_LIST;
			if (t->u.e[t->n].kind != FT_NIL) {
				x->tail = cg_fprof_arena_alloc(a, sizeof *x->tail);
				if (!x->tail)
					return CG_ENOMEM;
			}
		} else {
			x->kind = t->n > 1 && t->u.e[0].kind == FT_ATOM ? PN_TAGGED : PN_TUPLE;
		}
		return 0;
	}
	x->len = flat_len(t);
	return 0;
}

/* Child i of a container node (maps: key, value, key, ...), with its term. */
static struct pnode *pn_child(const struct pnode *x, uint64_t i, const fprof_term **t)
{
	*t = &x->t->u.e[i];
	if (x->kind == PN_MAP)
		return &x->e[i / 2].e[i % 2];
	return i < x->n ? &x->e[i] : x->tail;
}

static uint64_t pn_children(const struct pnode *x)
{
	switch (x->kind) {
	case PN_MAP: return 2 * (uint64_t)x->n;
	case PN_LIST: return x->n + (x->tail != NULL);
	case PN_TUPLE: case PN_TAGGED: return x->n;
	default: return 0;
	}
}

/* A container's flat length from its measured elements (what
 * cg_fprof_term_write prints: brackets, commas, " => ", '|'). */
static void pn_measure(struct pnode *x)
{
	long long sum = 0;
	for (uint32_t i = 0; i < x->n; i++) {
		struct pnode *c = &x->e[i];
		if (c->kind == PN_PAIR)
			c->len = sat_add(sat_add(c->e[0].len, 4), c->e[1].len);
		sum += c->len;
	}
	sum += x->n - 1;   /* commas */
	if (x->kind == PN_MAP)
		sum += 3;      /* #{ } */
	else
		sum += 2;
	if (x->tail)
		sum += 1 + (long long)x->tail->len;
	x->len = sat_add(0, sum);
	if (x->kind == PN_TAGGED)
		x->tlen = x->e[0].len;
}

struct build_frame {
	struct pnode *x;
	uint64_t next;
};

static int pn_build(fprof_arena *a, const fprof_term *t, struct pnode *root)
{
	struct build_frame *stack = NULL;
	size_t depth = 0, cap = 0;
	struct pnode *x = root;
	int rc = 0;
	while (x) {
		if ((rc = pn_init(a, t, x)))
			break;
		if (pn_children(x) > 0) {
			if ((rc = fprof_stack_reserve((void **)&stack, depth, &cap, sizeof *stack)))
				break;
			stack[depth++] = (struct build_frame){ x, 0 };
		}
		x = NULL;
		while (depth > 0 && !x) {
			struct build_frame *f = &stack[depth - 1];
			if (f->next < pn_children(f->x)) {
				x = pn_child(f->x, f->next++, &t);
			} else {
				pn_measure(f->x);
				depth--;
			}
		}
	}
	free(stack);
	return rc;
}

/* io_lib_pretty's is_list(element(1, E)): printed as one string; a map
 * pair counts when both key and value do. */
static int leafish(const struct pnode *x)
{
	if (x->kind == PN_PAIR)
		return x->e[0].kind == PN_LEAF && x->e[1].kind == PN_LEAF;
	return x->kind == PN_LEAF;
}

static void pn_write(fprof_buf *b, const struct pnode *x)
{
	if (x->kind == PN_PAIR) {
		cg_fprof_term_write(b, x->e[0].t);
		cg_fprof_buf_adds(b, " => ");
		cg_fprof_term_write(b, x->e[1].t);
	} else {
		cg_fprof_term_write(b, x->t);
	}
}

static int map_value_indent(int tind)
{
	return tind > 0 ? tind : 4;
}

/* x written flat from column col fits, given what follows (ld) and the
 * width so far (w) against the whole term's (m). */
static int fits(const struct pnode *x, int col, int m, int ld, int w)
{
	return x->len < LL - col - ld && x->len + w + ld <= m;
}

/* The width an element takes on its line (io_lib_pretty's pp_element
 * result): its length when written flat, else the line length. */
static int element_width(const struct pnode *x, int col, int m, int ld, int w)
{
	if (x->kind == PN_PAIR)
		return fits(x, col, m, ld, w) && leafish(x) ? x->len : LL;
	return fits(x, col, m, ld, w) && x->kind == PN_LEAF ? x->len : LL;
}

/* ---- cind: the dry run ------------------------------------------------------------
 *
 * It only answers whether a layout with tag indentation `ind` works
 * (io_lib_pretty's no_good otherwise).  Every check it makes of an
 * element depends on the element's length alone, never on how the element
 * itself turned out, so the checks are independent: they go on a work
 * list in any order, and the first that fails decides. */

struct ccheck {
	const struct pnode *x;
	int col, ld, w;
};

struct cind {
	struct ccheck *work;
	size_t n, cap;
	int m, ind;
	int failed;
};

static void cind_push(struct cind *c, const struct pnode *x, int col, int ld, int w)
{
	if (fprof_stack_reserve((void **)&c->work, c->n, &c->cap, sizeof *c->work)) {
		c->failed = -1;   /* out of memory: no_good, the other layout is still valid */
		return;
	}
	c->work[c->n++] = (struct ccheck){ x, col, ld, w };
}

/* cind_element: queues the checks of x's layout, returns its width. */
static int cind_element(struct cind *c, const struct pnode *x, int col, int ld, int w)
{
	int we = element_width(x, col, c->m, ld, w);
	if (x->kind == PN_PAIR) {
		if (!fits(x, col, c->m, ld, w)) {
			cind_push(c, &x->e[0], col, ld, w);
			cind_push(c, &x->e[1], col + map_value_indent(c->ind), ld, 0);
		}
	} else if (we == LL) {
		cind_push(c, x, col, ld, w);
	}
	return we;
}

static void cind_tail(struct cind *c, const struct pnode *e, uint32_t from, uint32_t n,
		      const struct pnode *tail, int col0, int col, int ld, int w)
{
	for (uint32_t i = from; i < n; i++) {
		const struct pnode *x = &e[i];
		int ld1 = i + 1 < n || tail ? 0 : ld + 1;
		int elen = 1 + x->len;
		if (leafish(x) && ((ld1 == 0 && elen + 1 < LL - col && w + elen + 1 <= c->m) ||
				   (ld1 > 0 && elen < LL - col - ld1 && w + elen + ld1 <= c->m))) {
			col += elen;
			w += elen;
		} else {
			int we = cind_element(c, x, col0, ld1, 0);
			col = col0 + we;
			w = we;
		}
	}
	if (tail && !(tail->len + 1 < LL - col - (ld + 1) && tail->len + 1 + w + (ld + 1) <= c->m &&
		      tail->kind == PN_LEAF))
		cind_push(c, tail, col, ld + 1, 0);
}

static void cind_list(struct cind *c, const struct pnode *e, uint32_t n, const struct pnode *tail,
		      int col0, int ld, int w)
{
	if (n == 0)
		return;
	int ld0 = n > 1 || tail ? 0 : ld + 1;
	int we = cind_element(c, &e[0], col0, ld0, w);
	cind_tail(c, e, 1, n, tail, col0, col0 + we, ld, w + we);
}

/* One check: x laid out from column col. */
static void cind_one(struct cind *c, const struct pnode *x, int col, int ld, int w)
{
	if (fits(x, col, c->m, ld, w))
		return;
	switch (x->kind) {
	case PN_LIST: cind_list(c, x->e, x->n, x->tail, col + 1, ld, w + 1); break;
	case PN_TUPLE: cind_list(c, x->e, x->n, NULL, col + 1, ld, w + 1); break;
	case PN_MAP: cind_list(c, x->e, x->n, NULL, col + 2, ld, w + 2); break;
	case PN_TAGGED: {
		int tagind = x->tlen + 2, tcol = col + tagind;
		w += 1;
		if (c->ind > 0 && tagind > c->ind) {
			int col1 = col + c->ind;
			if (c->m + col1 <= LL || col1 <= LL / 2)
				cind_tail(c, x->e, 1, x->n, NULL, col1, tcol, ld, w + x->tlen);
			else
				c->failed = -1;
		} else if (c->m + tcol < LL || tcol < LL / 2) {
			cind_list(c, x->e + 1, x->n - 1, NULL, tcol, ld, w + x->tlen + 1);
		} else {
			c->failed = -1;
		}
		break;
	}
	default: break;
	}
}

/* 0 when the layout with tag indentation ind works, else -1. */
static int cind(const struct pnode *root, int col, int m, int ind)
{
	struct cind c = { .m = m, .ind = ind };
	cind_push(&c, root, col, 0, 0);
	while (c.n > 0 && !c.failed) {
		struct ccheck k = c.work[--c.n];
		cind_one(&c, k.x, k.col, k.ld, k.w);
	}
	free(c.work);
	return c.failed;
}

/* ---- pp: the layout -----------------------------------------------------------------
 *
 * Output must come out in order, so pp keeps a stack of what is still to
 * do (LIFO, like the calls of the recursive original): lay out a node,
 * lay out an element, continue a sequence after an element, or write
 * fixed text (a closing bracket, " =>" and a new line).  Where a
 * sequence continues after an element depends only on that element's
 * width, known before it is laid out, so a continuation is complete when
 * pushed. */

enum { PP_NODE, PP_ELEMENT, PP_TAIL, PP_TEXT };

struct ppjob {
	int what;                  /* PP_* */
	const struct pnode *x;     /* PP_NODE, PP_ELEMENT */
	const struct pnode *e;     /* PP_TAIL: the elements */
	const struct pnode *tail;  /* PP_TAIL: an improper tail */
	uint32_t from, n;          /* PP_TAIL: the next element, the count */
	int col0, col, tind, ind, ld, w;
	char sep;                  /* PP_TAIL: '|' before a list tail */
	const char *text;          /* PP_TEXT, then `ind` spaces */
};

struct pp {
	fprof_buf *b;
	struct ppjob *jobs;
	size_t n, cap;
	int m;
};

static void pp_push(struct pp *s, struct ppjob j)
{
	if (fprof_stack_reserve((void **)&s->jobs, s->n, &s->cap, sizeof *s->jobs)) {
		s->b->oom = 1;   /* the caller sees the buffer failed */
		return;
	}
	s->jobs[s->n++] = j;
}

static void add_indent(fprof_buf *b, int n)
{
	for (int i = 0; i < n; i++)
		cg_fprof_buf_addc(b, ' ');
}

/* pp_list: the first element, then the rest (pushed in reverse). */
static void pp_list(struct pp *s, const struct pnode *e, uint32_t n, const struct pnode *tail,
		    int col0, int tind, int ind, int ld, char sep, int w)
{
	if (n == 0)
		return;
	int ld0 = n > 1 || tail ? 0 : ld + 1;
	int we = element_width(&e[0], col0, s->m, ld0, w);
	pp_push(s, (struct ppjob){ .what = PP_TAIL, .e = e, .tail = tail, .from = 1, .n = n,
				   .col0 = col0, .col = col0 + we, .tind = tind, .ind = ind, .ld = ld,
				   .sep = sep, .w = w + we });
	pp_push(s, (struct ppjob){ .what = PP_ELEMENT, .x = &e[0], .col = col0, .tind = tind,
				   .ind = ind, .ld = ld0, .w = w });
}

/* io_lib_pretty's pp_binary: numbers wrapped at the line width. */
static void pp_binary(fprof_buf *b, const struct pnode *x, int col, int m, int ind, int ld, int w)
{
	const fprof_term *t = x->t;
	int lim = LL - col < m - 4 - w ? LL - col : m - 4 - w;
	int n0 = lim - ld > 8 ? lim - ld : 8, n = n0;
	cg_fprof_buf_adds(b, "<<");
	for (uint32_t i = 0; i < t->n; i++) {
		char item[32];
		unsigned v = (unsigned char)t->u.s[i];
		int last = i + 1 == t->n;
		if (last && t->bits != 8)
			snprintf(item, sizeof item, "%u:%u", v >> (8 - t->bits), (unsigned)t->bits);
		else
			snprintf(item, sizeof item, "%u", v);
		int len = (int)strlen(item);
		if (!last) {
			len += 1;
			if (n - len < 0) {
				cg_fprof_buf_addc(b, '\n');
				add_indent(b, ind);
				n = n0 - len;
			} else {
				n -= len;
			}
			cg_fprof_buf_adds(b, item);
			cg_fprof_buf_addc(b, ',');
		} else {
			if (len > n) {
				cg_fprof_buf_addc(b, '\n');
				add_indent(b, ind);
			}
			cg_fprof_buf_adds(b, item);
		}
	}
	cg_fprof_buf_adds(b, ">>");
}

static void pp_node(struct pp *s, const struct pnode *x, int col, int tind, int ind, int ld, int w)
{
	fprof_buf *b = s->b;
	if (fits(x, col, s->m, ld, w) || x->kind == PN_LEAF) {
		cg_fprof_term_write(b, x->t);
		return;
	}
	switch (x->kind) {
	case PN_LIST:
		cg_fprof_buf_addc(b, '[');
		pp_push(s, (struct ppjob){ .what = PP_TEXT, .text = "]" });
		pp_list(s, x->e, x->n, x->tail, col + 1, tind, ind + 1, ld, '|', w + 1);
		break;
	case PN_TUPLE:
		cg_fprof_buf_addc(b, '{');
		pp_push(s, (struct ppjob){ .what = PP_TEXT, .text = "}" });
		pp_list(s, x->e, x->n, NULL, col + 1, tind, ind + 1, ld, ',', w + 1);
		break;
	case PN_TAGGED: {
		int tagind = x->tlen + 2, tcol = col + tagind;
		cg_fprof_buf_addc(b, '{');
		cg_fprof_term_write(b, x->e[0].t);
		w += 1;
		pp_push(s, (struct ppjob){ .what = PP_TEXT, .text = "}" });
		if (tind > 0 && tagind > tind) {
			pp_push(s, (struct ppjob){ .what = PP_TAIL, .e = x->e, .from = 1, .n = x->n,
						   .col0 = col + tind, .col = tcol, .tind = tind,
						   .ind = ind + tind, .ld = ld, .sep = ',', .w = w + x->tlen });
		} else {
			cg_fprof_buf_addc(b, ',');
			pp_list(s, x->e + 1, x->n - 1, NULL, tcol, tind, ind + tagind, ld, ',',
				w + x->tlen + 1);
		}
		break;
	}
	case PN_BIN:
		pp_binary(b, x, col + 2, s->m, ind + 2, ld, w);
		break;
	case PN_MAP:
		cg_fprof_buf_adds(b, "#{");
		pp_push(s, (struct ppjob){ .what = PP_TEXT, .text = "}" });
		pp_list(s, x->e, x->n, NULL, col + 2, tind, ind + 2, ld, ',', w + 1);
		break;
	}
}

static void pp_element(struct pp *s, const struct pnode *x, int col, int tind, int ind, int ld, int w)
{
	if (x->kind == PN_PAIR) {
		if (fits(x, col, s->m, ld, w)) {
			pn_write(s->b, x);
			return;
		}
		int i = map_value_indent(tind);
		/* key, " =>" and a new line, value: pushed in reverse */
		pp_push(s, (struct ppjob){ .what = PP_NODE, .x = &x->e[1], .col = col + i, .tind = tind,
					   .ind = ind + i, .ld = ld, .w = 0 });
		pp_push(s, (struct ppjob){ .what = PP_TEXT, .text = " =>\n", .ind = ind + i });
		pp_push(s, (struct ppjob){ .what = PP_NODE, .x = &x->e[0], .col = col, .tind = tind,
					   .ind = ind, .ld = ld, .w = w });
		return;
	}
	if (fits(x, col, s->m, ld, w) && x->kind == PN_LEAF) {
		cg_fprof_term_write(s->b, x->t);
		return;
	}
	pp_node(s, x, col, tind, ind, ld, w);
}

/* pp_tail: elements from j->from on, each after a comma, on this line
 * while they fit, else on a new one; then an improper tail. */
static void pp_tail(struct pp *s, const struct ppjob *j)
{
	fprof_buf *b = s->b;
	int col = j->col, w = j->w;
	for (uint32_t i = j->from; i < j->n; i++) {
		const struct pnode *x = &j->e[i];
		int ld1 = i + 1 < j->n || j->tail ? 0 : j->ld + 1;
		int elen = 1 + x->len;
		if (leafish(x) && ((ld1 == 0 && elen + 1 < LL - col && w + elen + 1 <= s->m) ||
				   (ld1 > 0 && elen < LL - col - ld1 && w + elen + ld1 <= s->m))) {
			cg_fprof_buf_addc(b, ',');
			pn_write(b, x);
			col += elen;
			w += elen;
			continue;
		}
		cg_fprof_buf_adds(b, ",\n");
		add_indent(b, j->ind);
		int we = element_width(x, j->col0, s->m, ld1, 0);
		struct ppjob next = *j;
		next.from = i + 1;
		next.col = j->col0 + we;
		next.w = we;
		pp_push(s, next);
		pp_push(s, (struct ppjob){ .what = PP_ELEMENT, .x = x, .col = j->col0, .tind = j->tind,
					   .ind = j->ind, .ld = ld1, .w = 0 });
		return;
	}
	const struct pnode *tail = j->tail;
	if (!tail)
		return;
	cg_fprof_buf_addc(b, j->sep);
	if (tail->len + 1 < LL - col - (j->ld + 1) && tail->len + 1 + w + (j->ld + 1) <= s->m &&
	    tail->kind == PN_LEAF) {
		cg_fprof_term_write(b, tail->t);
	} else {
		cg_fprof_buf_addc(b, '\n');
		add_indent(b, j->ind);
		pp_push(s, (struct ppjob){ .what = PP_NODE, .x = tail, .col = j->col0, .tind = j->tind,
					   .ind = j->ind, .ld = j->ld + 1, .w = 0 });
	}
}

static void pp(fprof_buf *b, const struct pnode *root, int col, int m, int tind, int ind)
{
	struct pp s = { .b = b, .m = m };
	pp_push(&s, (struct ppjob){ .what = PP_NODE, .x = root, .col = col, .tind = tind, .ind = ind });
	while (s.n > 0 && !b->oom) {
		struct ppjob j = s.jobs[--s.n];
		switch (j.what) {
		case PP_NODE: pp_node(&s, j.x, j.col, j.tind, j.ind, j.ld, j.w); break;
		case PP_ELEMENT: pp_element(&s, j.x, j.col, j.tind, j.ind, j.ld, j.w); break;
		case PP_TAIL: pp_tail(&s, &j); break;
		case PP_TEXT:
			cg_fprof_buf_adds(b, j.text);
			add_indent(b, j.ind);
			break;
		}
	}
	free(s.jobs);
}

void cg_fprof_term_pretty(fprof_buf *b, const fprof_term *t, int col0)
{
	int col = col0 + 1;   /* io_lib_pretty counts columns from 1 */
	fprof_arena a = { 0 };
	struct pnode root;
	if (pn_build(&a, t, &root)) {
		cg_fprof_term_write(b, t);   /* out of memory: flat is still correct Erlang */
		cg_fprof_arena_release(&a);
		return;
	}
	if (root.len < LL - col) {
		cg_fprof_term_write(b, t);
	} else {
		int m = root.len;
		int tind = cind(&root, col, m, -1) == 0 ? -1 : cind(&root, col, m, 4) == 0 ? 4 : 1;
		pp(b, &root, col, m, tind, col - 1);
	}
	cg_fprof_arena_release(&a);
}
