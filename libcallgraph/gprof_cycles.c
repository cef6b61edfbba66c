/*
 * gprof_cycles.c — gprof's depth-first numbering and cycle discovery.
 *
 * This is gprof's algorithm, not a textbook SCC: the numbering, the
 * choice of cycle head (the member through which the search first entered
 * the cycle), the order members are chained in and the cycle numbers (by
 * the head's address) all show in the report, so they must come out the
 * same.  The search is iterative: real call chains can be deeper than the
 * C stack.
 */
#include <stdlib.h>
#include "gprof_internal.h"

typedef struct dfs {
	cg_gprof_analysis *a;
	uint32_t *stack;      /* 1-based: stack[1..depth] */
	uint32_t *pos;        /* next child list position per depth */
	uint32_t depth;
	int counter;
} dfs;

/* The symbol `c` is busy (on the stack): glom everything above the
 * cycle's head on the stack into one chain. */
static int find_cycle(dfs *d, uint32_t c, cg_error *err)
{
	gp_sym *s = d->a->syms;
	uint32_t t;
	uint32_t h = GP_NONE;
	for (t = d->depth; t > 0; t--) {
		h = d->stack[t];
		if (c == h)
			break;
		if (s[c].head != c && s[c].head == h)
			break;
	}
	if (t == 0)
		return cg_error_set(err, CG_ERROR, "gprof: [find_cycle] couldn't find head of cycle");
	if (t == d->depth)
		return 0;             /* a function calling itself: not a cycle */

	uint32_t tail = h;
	while (s[tail].next != GP_NONE)
		tail = s[tail].next;
	if (s[h].head != h)
		h = s[h].head;
	for (uint32_t i = t + 1; i <= d->depth; i++) {
		uint32_t x = d->stack[i];
		if (s[x].head == x) {
			s[tail].next = x;
			s[x].head = h;
			for (tail = x; s[tail].next != GP_NONE; tail = s[tail].next)
				s[s[tail].next].head = h;
		} else if (s[x].head != h) {
			return cg_error_set(err, CG_ERROR, "gprof: [find_cycle] glommed, but not to head");
		}
	}
	return 0;
}

static void push(dfs *d, uint32_t p)
{
	d->depth++;
	d->stack[d->depth] = p;
	d->pos[d->depth] = 0;
	d->a->syms[p].top = -1;
}

static int visit(dfs *d, uint32_t root, cg_error *err)
{
	cg_gprof_analysis *a = d->a;
	gp_sym *s = a->syms;
	push(d, root);
	while (d->depth > 0) {
		uint32_t p = d->stack[d->depth];
		if (d->pos[d->depth] < s[p].nchildren) {
			uint32_t arc = a->child_lists[s[p].first_child + d->pos[d->depth]++];
			uint32_t c = a->arcs[arc].child;
			if (s[c].top > 0)
				continue;
			if (s[c].top == -1) {
				int rc = find_cycle(d, c, err);
				if (rc)
					return rc;
				continue;
			}
			push(d, c);
			continue;
		}
		/* Post-visit: a cycle gets its number when its head finishes. */
		if (s[p].head == p) {
			d->counter++;
			for (uint32_t m = p; m != GP_NONE; m = s[m].next)
				s[m].top = d->counter;
		}
		d->depth--;
	}
	return 0;
}

/* Number the cycles by the address of their head, create their pseudo
 * symbols and count calls into and within each cycle. */
static int link_cycles(cg_gprof_analysis *a, cg_error *err)
{
	uint32_t n = a->nsyms, ncyc = 0;
	for (uint32_t i = 0; i < n; i++)
		if (a->syms[i].head == i && a->syms[i].next != GP_NONE)
			ncyc++;
	a->ncycles = ncyc;
	if (!ncyc)
		return 0;
	gp_sym *ns = realloc(a->syms, ((size_t)n + ncyc) * sizeof *ns);
	if (!ns)
		return cg_error_set(err, CG_ENOMEM, "gprof: out of memory");
	a->syms = ns;
	gp_sym *s = a->syms;

	uint32_t num = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!(s[i].head == i && s[i].next != GP_NONE))
			continue;
		num++;
		uint32_t cy = n + num - 1;
		gp_sym *c = &s[cy];
		*c = (gp_sym){ 0 };
		c->fid = CG_NO_FUNC;
		c->print_flag = 1;
		c->cycle = num;
		c->head = cy;
		c->next = i;
		c->first_child = c->first_parent = 0;
		for (uint32_t m = i; m != GP_NONE; m = s[m].next) {
			s[m].cycle = num;
			s[m].head = cy;
		}
		for (uint32_t m = i; m != GP_NONE; m = s[m].next) {
			for (uint32_t k = 0; k < s[m].nparents; k++) {
				const gp_arc *arc = &a->arcs[a->parent_lists[s[m].first_parent + k]];
				if (arc->parent == m)
					continue;
				if (s[arc->parent].cycle == num)
					c->self_calls += arc->count;
				else
					c->ncalls += arc->count;
			}
		}
	}
	return 0;
}

int gp_find_cycles(cg_gprof_analysis *a, cg_error *err)
{
	uint32_t n = a->nsyms;
	for (uint32_t i = 0; i < n; i++) {
		a->syms[i].top = 0;
		a->syms[i].head = i;
		a->syms[i].next = GP_NONE;
		a->syms[i].cycle = 0;
	}
	dfs d = { a, NULL, NULL, 0, 0 };
	d.stack = malloc(((size_t)n + 1) * sizeof *d.stack);
	d.pos = malloc(((size_t)n + 1) * sizeof *d.pos);
	int rc = 0;
	if (!d.stack || !d.pos)
		rc = cg_error_set(err, CG_ENOMEM, "gprof: out of memory");
	for (uint32_t i = 0; i < n && !rc; i++)
		if (a->syms[i].top == 0)
			rc = visit(&d, i, err);
	free(d.stack);
	free(d.pos);
	if (!rc)
		rc = link_cycles(a, err);
	return rc;
}
