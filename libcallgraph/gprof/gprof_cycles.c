/*
 * gprof_cycles.c — gprof's depth-first numbering and cycle discovery.
 *
 * This is gprof's algorithm, not a textbook SCC: the numbering, the
 * choice of cycle head (the member through which the search first entered
 * the cycle), the order members are chained in and the cycle numbers (by
 * the head's address) all show in the report, so they must come out the
 * same.  The search is iterative (real call chains can be deeper than the
 * C stack) and near-linear (see struct dfs).
 */
#include <stdlib.h>
#include "gprof_internal.h"

/* Search state.  gprof keeps, for every symbol, its cycle head up to date
 * by walking chains whenever cycles merge, and scans the search stack on
 * every call into a busy symbol; both are quadratic on large cycles.  The
 * same decisions come from a union-find over heads (`head` is the parent
 * link during the search, resolved by find_head), each symbol's position
 * on the stack, the tail of every chain, and the stack positions of the
 * symbols not yet glommed into any cycle. */
typedef struct dfs {
	cg_gprof_analysis *a;
	uint32_t *stack;      /* 1-based: stack[1..depth] */
	uint32_t *pos;        /* next child list position per depth */
	uint32_t *on_stack;   /* symbol -> stack position, 0 when not on it */
	uint32_t *tail;       /* chain head -> last member of its chain */
	uint32_t *free_pos;   /* stack positions of unglommed symbols, ascending */
	uint32_t nfree;
	uint32_t depth;
	int counter;
} dfs;

static uint32_t find_head(gp_sym *s, uint32_t x)
{
	while (s[x].head != x) {
		s[x].head = s[s[x].head].head;
		x = s[x].head;
	}
	return x;
}

/* The symbol `c` is busy: glom everything above the cycle's head on the
 * stack into the head's chain, in stack order (gprof's find_cycle). */
static int find_cycle(dfs *d, uint32_t c, cg_error *err)
{
	gp_sym *s = d->a->syms;
	uint32_t hc = find_head(s, c);
	/* gprof scans down from the top for c itself or c's head */
	uint32_t t = d->on_stack[c];
	if (hc != c && d->on_stack[hc] > t)
		t = d->on_stack[hc];
	if (t == 0)
		return cg_error_set(err, CG_ERROR, "gprof: [find_cycle] couldn't find head of cycle");
	if (t == d->depth)
		return 0;             /* a function calling itself: not a cycle */

	uint32_t h = find_head(s, d->stack[t]);
	uint32_t tail = d->tail[h];
	uint32_t k = d->nfree;
	while (k > 0 && d->free_pos[k - 1] > t)
		k--;
	for (uint32_t i = k; i < d->nfree; i++) {
		uint32_t x = d->stack[d->free_pos[i]];
		s[tail].next = x;
		s[x].head = h;
		tail = d->tail[x];
	}
	d->nfree = k;
	d->tail[h] = tail;
	return 0;
}

static void push(dfs *d, uint32_t p)
{
	d->depth++;
	d->stack[d->depth] = p;
	d->pos[d->depth] = 0;
	d->on_stack[p] = d->depth;
	d->free_pos[d->nfree++] = d->depth;
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
		if (find_head(s, p) == p) {
			d->counter++;
			for (uint32_t m = p; m != GP_NONE; m = s[m].next)
				s[m].top = d->counter;
		}
		if (d->nfree > 0 && d->free_pos[d->nfree - 1] == d->depth)
			d->nfree--;
		d->on_stack[p] = 0;
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

int cg_gp_find_cycles(cg_gprof_analysis *a, cg_error *err)
{
	uint32_t n = a->nsyms;
	for (uint32_t i = 0; i < n; i++) {
		a->syms[i].top = 0;
		a->syms[i].head = i;
		a->syms[i].next = GP_NONE;
		a->syms[i].cycle = 0;
	}
	dfs d = { 0 };
	d.a = a;
	size_t words = (size_t)n + 1;
	d.stack = malloc(words * sizeof *d.stack);
	d.pos = malloc(words * sizeof *d.pos);
	d.on_stack = calloc(words, sizeof *d.on_stack);
	d.tail = malloc(words * sizeof *d.tail);
	d.free_pos = malloc(words * sizeof *d.free_pos);
	int rc = 0;
	if (!d.stack || !d.pos || !d.on_stack || !d.tail || !d.free_pos)
		rc = cg_error_set(err, CG_ENOMEM, "gprof: out of memory");
	for (uint32_t i = 0; i < n && !rc; i++)
		d.tail[i] = i;
	for (uint32_t i = 0; i < n && !rc; i++)
		if (a->syms[i].top == 0)
			rc = visit(&d, i, err);
	free(d.stack);
	free(d.pos);
	free(d.on_stack);
	free(d.tail);
	free(d.free_pos);
	/* From here on every symbol names its head directly, as in gprof. */
	for (uint32_t i = 0; i < n && !rc; i++)
		a->syms[i].head = find_head(a->syms, i);
	if (!rc)
		rc = link_cycles(a, err);
	return rc;
}
