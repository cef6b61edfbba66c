/*
 * collect.c — the call tree and the -finstrument-functions hooks of
 * libcgcollect.
 *
 * Hot path (enter): push a shadow frame, test direct recursion, test the
 * parent's 1-entry child cache; everything else is a tail call to a cold
 * function.  Exit: pop one frame.  Recursion through other functions is
 * folded once, when a context is first created (SWI-Prolog's rule: the
 * same function with the same parent higher up becomes a link to that
 * ancestor), so the ancestor walk is never paid per call.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "collect_internal.h"

#define ARENA_CHUNK (1u << 20)
#define LIST_SCAN_MAX 8          /* fan-out above which a parent gets a table */
#define NOPROFILE_MAX 64

/* Threads that have no state yet point at this frame: its fn never matches
 * and its stack pointer is above every real one. */
struct cgc_frame cgc_sentinel[2] = {
	{ NULL, 0, UINTPTR_MAX, 0 }, { NULL, 0, UINTPTR_MAX, 0 }
};

_Thread_local struct cgc_tls cgc_tls __attribute__((tls_model("initial-exec"))) = {
	NULL, &cgc_sentinel[1], &cgc_sentinel[1], NULL
};

/* C functions made transparent; read when a context is created. */
static uintptr_t g_noprofile[NOPROFILE_MAX];
static unsigned g_noprofile_count;

void __cyg_profile_func_enter(void *this_fn, void *call_site) CGC_TEXT CGC_PUBLIC;
void __cyg_profile_func_exit(void *this_fn, void *call_site) CGC_TEXT CGC_PUBLIC;

static inline uintptr_t CGC_TEXT machine_sp(void)
{
	uintptr_t sp;
#if defined(__x86_64__)
	__asm__ volatile ("mov %%rsp, %0" : "=r"(sp));
#elif defined(__aarch64__)
	__asm__ volatile ("mov %0, sp" : "=r"(sp));
#else
	sp = (uintptr_t)__builtin_frame_address(0);
#endif
	return sp;
}
/* ---- allocation -------------------------------------------------------- */

void *CGC_TEXT cgc_map_zeroed(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void *CGC_TEXT arena_alloc(struct cgc_thread *th, size_t size)
{
	size = (size + 15) & ~(size_t)15;
	if (g_memory_limit && th->arena_used + size > g_memory_limit)
		return NULL;
	th->arena_used += size;
	if ((size_t)(th->arena_end - th->arena) < size) {
		size_t chunk = size > ARENA_CHUNK ? size : ARENA_CHUNK;
		char *p = cgc_map_zeroed(chunk);
		if (!p)
			return NULL;
		th->arena = p;
		th->arena_end = p + chunk;
	}
	void *r = th->arena;
	th->arena += size;
	return r;
}
/* ---- the tree ------------------------------------------------------------ */

static inline size_t CGC_TEXT slot_of(uintptr_t fn, uint32_t cap)
{
	return (size_t)(((uint64_t)fn * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

static int CGC_TEXT table_insert(struct cgc_thread *th, struct cgc_node *parent,
				 struct cgc_node *child)
{
	if (parent->table && parent->nchildren * 2 <= parent->table_cap) {
		size_t i = slot_of(child->fn, parent->table_cap);
		while (parent->table[i])
			i = (i + 1) & (parent->table_cap - 1);
		parent->table[i] = child;
		return 0;
	}
	/* Grow: rebuild from the child list (the old table stays in the arena). */
	uint32_t cap = parent->table_cap ? parent->table_cap * 2 : 32;
	struct cgc_node **t = arena_alloc(th, cap * sizeof *t);
	if (!t)
		return -1;
	for (struct cgc_node *c = parent->first_child; c; c = c->next_sibling) {
		size_t i = slot_of(c->fn, cap);
		while (t[i])
			i = (i + 1) & (cap - 1);
		t[i] = c;
	}
	parent->table = t;
	parent->table_cap = cap;
	return 0;
}

int CGC_TEXT cgc_add_noprofile(uintptr_t addr)
{
	int rc = -1;
	pthread_mutex_lock(&g_lock);
	if (g_noprofile_count < NOPROFILE_MAX) {
		g_noprofile[g_noprofile_count++] = addr;
		rc = 0;
	}
	pthread_mutex_unlock(&g_lock);
	return rc;
}

static int CGC_TEXT is_noprofile(uintptr_t fn, int api)
{
	if (api)
		return ((struct cgc_func *)fn)->noprofile;
	for (unsigned i = 0; i < g_noprofile_count; i++)
		if (g_noprofile[i] == fn)
			return 1;
	return 0;
}

static struct cgc_node *CGC_COLD new_child(struct cgc_thread *th, struct cgc_node *parent,
					   uintptr_t fn, int api)
{
	struct cgc_node *n = arena_alloc(th, sizeof *n);
	if (!n)
		return NULL;
	n->fn = fn;
	n->parent = parent;
	n->target = n;
	n->kind = api ? CGC_NODE_API : 0;
	if (is_noprofile(fn, api)) {
		n->target = parent;
		n->kind |= CGC_NODE_HIDDEN;
	} else {
		for (struct cgc_node *a = parent->parent; a && a->parent; a = a->parent) {
			if (a->fn == fn && a->parent->fn == parent->fn) {
				n->target = a;
				n->kind |= CGC_NODE_LINK;
				break;
			}
		}
	}
	n->next_sibling = parent->first_child;
	parent->nchildren++;
	__atomic_store_n(&parent->first_child, n, __ATOMIC_RELEASE);
	if ((parent->table || parent->nchildren > LIST_SCAN_MAX) &&
	    table_insert(th, parent, n) != 0)
		return NULL;
	return n;
}

static struct cgc_node *CGC_TEXT find_child(struct cgc_node *parent, uintptr_t fn)
{
	if (parent->table) {
		size_t i = slot_of(fn, parent->table_cap);
		struct cgc_node *c;
		while ((c = parent->table[i]) != NULL) {
			if (c->fn == fn)
				return c;
			i = (i + 1) & (parent->table_cap - 1);
		}
		return NULL;
	}
	for (struct cgc_node *c = parent->first_child; c; c = c->next_sibling)
		if (c->fn == fn)
			return c;
	return NULL;
}

/* Moves from `cur` into the context of fn; returns the new current node or
 * NULL when the thread just ran out of memory. */
struct cgc_node *CGC_TEXT cgc_descend(struct cgc_node *cur, uintptr_t fn, int api)
{
	if (fn == cur->fn) {
		cur->recursive++;
		return cur;
	}
	struct cgc_node *n = cur->hot;
	if (!n || n->fn != fn) {
		n = find_child(cur, fn);
		if (!n) {
			n = new_child(cgc_tls.th, cur, fn, api);
			if (!n) {
				cgc_stop_thread(cgc_tls.th, CGC_OOM);
				return NULL;
			}
		}
		cur->hot = n;
	}
	n->calls++;
	return n->target;
}

void CGC_TEXT cgc_zero_tree(struct cgc_node *root)
{
	struct cgc_node *n = root;
	while (n) {
		n->calls = n->redos = n->recursive = 0;
		n->ticks = 0;
		if (n->first_child) {
			n = n->first_child;
			continue;
		}
		while (n && n != root && !n->next_sibling)
			n = n->parent;
		n = (n && n != root) ? n->next_sibling : NULL;
	}
}

/* ---- the -finstrument-functions hooks ------------------------------------ */

/* Pops the frames a longjmp abandoned: those whose stack is gone (entered
 * deeper than we are now), and those entered at our very stack depth from
 * another call site (a sibling call that never returned) or of the same
 * function (the same call made again).  A frame at the same depth, from
 * the same call site, of another function is the physical function around
 * an inlined callee: it is alive. */
static int CGC_TEXT resync(uintptr_t now, uintptr_t site, uintptr_t fn)
{
	struct cgc_frame *sp = cgc_tls.sp;
	int popped = 0;
	while (sp[-1].sp < now ||
	       (sp[-1].sp == now && (sp[-1].site != site || sp[-1].fn == fn))) {
		sp--;
		cgc_tls.cur = sp->saved;
		popped = 1;
	}
	if (popped) {
		cgc_tls.sp = sp;
		cgc_tls.th->resyncs++;
	}
	return popped;
}

static void CGC_TEXT push_and_descend(uintptr_t fn, uintptr_t now, uintptr_t site)
{
	struct cgc_frame *sp = cgc_tls.sp;
	if (sp == cgc_tls.end) {
		cgc_stop_thread(cgc_tls.th, CGC_OVERFLOW);
		return;
	}
	struct cgc_node *cur = cgc_tls.cur;
	sp->saved = cur;
	sp->fn = fn;
	sp->sp = now;
	sp->site = site;
	cgc_tls.sp = sp + 1;
	if (g_enabled) {
		struct cgc_node *n = cgc_descend(cur, fn, 0);
		if (n)
			cgc_tls.cur = n;
	}
}

/* The hot path pushed the frame but found no cached child: a new context,
 * or a sibling left behind by longjmp at the same depth (checked only
 * here, where it costs nothing extra on the common path). */
static void CGC_COLD enter_miss(struct cgc_node *cur, uintptr_t fn, uintptr_t now,
				uintptr_t site)
{
	struct cgc_frame *below = cgc_tls.sp - 2;
	if (CGC_UNLIKELY(below->sp == now && below->site != site)) {
		cgc_tls.sp--;
		resync(now, site, fn);
		push_and_descend(fn, now, site);
		return;
	}
	struct cgc_node *n = cgc_descend(cur, fn, 0);
	if (n)
		cgc_tls.cur = n;
}

/* Not started, stopped, stack full, or a longjmp left frames behind. */
static void CGC_COLD enter_slow(uintptr_t fn, uintptr_t now, uintptr_t site)
{
	if (!cgc_tls.cur) {
		if (cgc_tls.th || !cgc_thread_init())
			return;
	}
	resync(now, site, fn);
	push_and_descend(fn, now, site);
}

/* A call of the current function at the depth of the current frame is not
 * recursion (that would be deeper): the frame was left by longjmp. */
static void CGC_COLD enter_again(uintptr_t fn, uintptr_t now, uintptr_t site)
{
	cgc_tls.sp--;
	resync(now, site, fn);
	push_and_descend(fn, now, site);
}

void CGC_TEXT __cyg_profile_func_enter(void *this_fn, void *call_site)
{
	uintptr_t fn = (uintptr_t)this_fn;
	uintptr_t now = machine_sp();
	struct cgc_node *cur = cgc_tls.cur;
	struct cgc_frame *sp = cgc_tls.sp;
	if (CGC_UNLIKELY(!cur || sp == cgc_tls.end || sp[-1].sp < now)) {
		enter_slow(fn, now, (uintptr_t)call_site);
		return;
	}
	sp->saved = cur;
	sp->fn = fn;
	sp->sp = now;
	sp->site = (uintptr_t)call_site;
	cgc_tls.sp = sp + 1;
	if (CGC_UNLIKELY(!g_enabled))
		return;
	if (fn == cur->fn) {
		if (CGC_UNLIKELY(sp[-1].sp == now)) {
			enter_again(fn, now, (uintptr_t)call_site);
			return;
		}
		cur->recursive++;
		return;
	}
	struct cgc_node *n = cur->hot;
	if (CGC_LIKELY(n && n->fn == fn)) {
		n->calls++;
		cgc_tls.cur = n->target;
		return;
	}
	enter_miss(cur, fn, now, (uintptr_t)call_site);
}

/* The exit does not match the newest frame: frames above were abandoned by
 * longjmp.  Pop down to the frame of fn; an exit we never saw enter (the
 * frame was pushed before the thread started) is ignored. */
static void CGC_COLD exit_resync(uintptr_t fn)
{
	struct cgc_thread *th = cgc_tls.th;
	if (!th || !cgc_tls.cur)
		return;
	for (struct cgc_frame *f = cgc_tls.sp - 1; f > th->stack; f--) {
		if (f->fn == fn) {
			cgc_tls.sp = f;
			cgc_tls.cur = f->saved;
			th->resyncs++;
			return;
		}
	}
}

void CGC_TEXT __cyg_profile_func_exit(void *this_fn, void *call_site)
{
	(void)call_site;
	struct cgc_frame *f = cgc_tls.sp - 1;
	if (CGC_UNLIKELY(f->fn != (uintptr_t)this_fn)) {
		exit_resync((uintptr_t)this_fn);
		return;
	}
	cgc_tls.sp = f;
	cgc_tls.cur = f->saved;
}
