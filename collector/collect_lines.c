/*
 * collect_lines.c — where in a context the ticks landed: the SIGPROF
 * handler records the interrupted instruction address per (context,
 * address) in a per-thread table, so the dump can split a node's self
 * ticks by address and a reader by source line (docs/cgtree.md, `at`).
 *
 * The table is a side table: the node struct, which the enter hook walks,
 * does not grow.  It is mapped once per thread before its timer starts
 * (cgc_lines_init) and never grows, so the handler never allocates: a
 * tick whose (node, address) finds no free slot within a few probes is
 * still counted on its node, only without an address ("unplaced", written
 * in the thread's `endthread` record).
 *
 * Publication: only the owning thread's handler writes a slot (address
 * first, then the node with a release store, then the count), so a dump
 * running in another thread sees either an empty slot or a complete key.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "collect_internal.h"

#define PROBES 16  /* the handler's bound on work per tick */

unsigned g_lines_cap = 1u << 14;  /* slots per thread (CGCOLLECT_LINES); 0 = off */

static inline size_t CGC_TEXT slot_of(const struct cgc_node *n, uintptr_t pc, size_t cap)
{
	uint64_t h = ((uint64_t)(uintptr_t)n ^ ((uint64_t)pc * 0x9E3779B97F4A7C15ull)) *
		     0xBF58476D1CE4E5B9ull;
	return (size_t)(h >> 32) & (cap - 1);
}

void CGC_TEXT cgc_lines_init(struct cgc_thread *th)
{
	if (g_mode == CGC_MODE_CALLS || g_hz == 0 || g_lines_cap == 0 || th->pcs)
		return;
	struct cgc_pc_slot *t = cgc_map_zeroed((size_t)g_lines_cap * sizeof *t);
	if (!t)
		return;  /* every tick is then unplaced: still counted */
	th->pcs_cap = g_lines_cap;
	__atomic_store_n(&th->pcs, t, __ATOMIC_RELEASE);
}

void CGC_TEXT cgc_lines_tick(struct cgc_thread *th, struct cgc_node *n, uintptr_t pc,
			     uint64_t ticks)
{
	struct cgc_pc_slot *t = th->pcs;
	if (!t || !pc) {
		th->unplaced += ticks;
		return;
	}
	size_t cap = th->pcs_cap, i = slot_of(n, pc, cap);
	for (int k = 0; k < PROBES; k++, i = (i + 1) & (cap - 1)) {
		struct cgc_pc_slot *s = &t[i];
		struct cgc_node *owner = __atomic_load_n(&s->node, __ATOMIC_RELAXED);
		if (owner == n && s->pc == pc) {
			s->ticks += ticks;
			return;
		}
		if (!owner) {
			s->pc = pc;
			__atomic_store_n(&s->node, n, __ATOMIC_RELEASE);
			s->ticks += ticks;
			return;
		}
	}
	th->unplaced += ticks;
}

/* After a reset or in a forked child: counts go, keys stay (the nodes
 * they name live on). */
void CGC_TEXT cgc_lines_zero(struct cgc_thread *th)
{
	for (size_t i = 0; th->pcs && i < th->pcs_cap; i++)
		th->pcs[i].ticks = 0;
	th->unplaced = 0;
}

/* ---- the dump's view --------------------------------------------------- */

static int CGC_TEXT before(const struct cgc_pc_slot *a, const struct cgc_pc_slot *b)
{
	if (a->node != b->node)
		return (uintptr_t)a->node < (uintptr_t)b->node;
	return a->pc < b->pc;
}

static void CGC_TEXT sift(struct cgc_pc_slot *v, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= n)
			return;
		if (child + 1 < n && before(&v[child], &v[child + 1]))
			child++;
		if (!before(&v[root], &v[child]))
			return;
		struct cgc_pc_slot tmp = v[root];
		v[root] = v[child];
		v[child] = tmp;
		root = child;
	}
}

/* Heapsort: qsort may allocate, and this runs in signal handlers. */
static void CGC_TEXT sort_slots(struct cgc_pc_slot *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift(v, i, n);
	for (size_t end = n; end > 1; end--) {
		struct cgc_pc_slot tmp = v[0];
		v[0] = v[end - 1];
		v[end - 1] = tmp;
		sift(v, 0, end - 1);
	}
}

int CGC_TEXT cgc_lines_snapshot(struct cgc_thread *th, struct cgc_lines_view *view)
{
	memset(view, 0, sizeof *view);
	struct cgc_pc_slot *t = __atomic_load_n(&th->pcs, __ATOMIC_ACQUIRE);
	if (!t)
		return 0;
	size_t cap = th->pcs_cap, n = 0;
	view->bytes = cap * sizeof *view->v;
	view->v = cgc_map_zeroed(view->bytes);
	if (!view->v)
		return -1;
	for (size_t i = 0; i < cap; i++) {
		struct cgc_node *owner = __atomic_load_n(&t[i].node, __ATOMIC_ACQUIRE);
		uint64_t ticks = __atomic_load_n(&t[i].ticks, __ATOMIC_RELAXED);
		if (!owner || !ticks)
			continue;
		view->v[n].node = owner;
		view->v[n].pc = t[i].pc;
		view->v[n].ticks = ticks;
		n++;
	}
	view->n = n;
	sort_slots(view->v, n);
	return 0;
}

size_t CGC_TEXT cgc_lines_find(const struct cgc_lines_view *view, const struct cgc_node *n,
			       size_t *count)
{
	size_t lo = 0, hi = view->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((uintptr_t)view->v[mid].node < (uintptr_t)n)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < view->n && view->v[end].node == n)
		end++;
	*count = end - lo;
	return lo;
}

void CGC_TEXT cgc_lines_release(struct cgc_lines_view *view)
{
	if (view->v)
		munmap(view->v, view->bytes);
	view->v = NULL;
}
