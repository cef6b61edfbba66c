/*
 * collect.c — the call tree and the -finstrument-functions hooks of
 * libcgcollect.
 *
 * Hot path (enter): read the current context from the newest shadow frame,
 * test direct recursion, test its 1-entry child cache, push a frame holding
 * the new context; everything else is a tail call to a cold function.
 * Exit: pop one frame (the context below it is current again).  Recursion through other functions is
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

/* The bottom frame of a shadow stack: its fn never matches and its stack
 * pointer is above every real one; stack[0] is a copy with the root. */
struct cgc_frame cgc_sentinel[2] = {
	{ NULL, 0, UINTPTR_MAX, 0 }, { NULL, 0, UINTPTR_MAX, 0 }
};

/* Where a thread that is not followed points: no context, and a stack
 * pointer below every real one, so every enter takes the slow path. */
struct cgc_frame cgc_idle[2];

struct cgc_node cgc_no_child;

_Thread_local struct cgc_tls cgc_tls __attribute__((tls_model("initial-exec"))) = {
	&cgc_idle[1], &cgc_idle[1], NULL
};

/* C functions made transparent; read when a context is created. */
static uintptr_t g_noprofile[NOPROFILE_MAX];
static unsigned g_noprofile_count;

/* Each hook starts a cache line, so the enter hook's common paths (about
 * 100 bytes) take two lines of the instruction cache, not three. */
void __cyg_profile_func_enter(void *this_fn, void *call_site) CGC_TEXT CGC_PUBLIC __attribute__((aligned(64)));
void __cyg_profile_func_exit(void *this_fn, void *call_site) CGC_TEXT CGC_PUBLIC __attribute__((aligned(64)));

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

struct cgc_frame *CGC_TEXT cgc_map_stack(size_t frames)
{
	size_t size = frames * sizeof(struct cgc_frame);
	if (size > CGC_STACK_SPAN)
		return NULL;
	/* Reserve enough to find the boundary, then give back both sides. */
	size_t span = size + CGC_STACK_SPAN;
	char *p = cgc_map_zeroed(span);
	if (!p)
		return NULL;
	uintptr_t end = ((uintptr_t)p + size + CGC_STACK_SPAN - 1) & ~(CGC_STACK_SPAN - 1);
	char *base = (char *)(end - size);
	if (base > p)
		munmap(p, (size_t)(base - p));
	if ((char *)end < p + span)
		munmap((char *)end, (size_t)(p + span - (char *)end));
	return (struct cgc_frame *)base;
}

/* align: a power of two, at least 16 (chunks are page-aligned). */
static void *CGC_TEXT arena_alloc(struct cgc_thread *th, size_t size, size_t align)
{
	size = (size + 15) & ~(size_t)15;
	size_t pad = (size_t)-(uintptr_t)th->arena & (align - 1);
	if ((size_t)(th->arena_end - th->arena) >= pad + size)
		size += pad;
	else
		pad = 0;  /* a fresh chunk is aligned */
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
	void *r = th->arena + pad;
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
	struct cgc_node **t = arena_alloc(th, cap * sizeof *t, 16);
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
	struct cgc_node *n = arena_alloc(th, sizeof *n, 64);
	if (!n)
		return NULL;
	n->fn = fn;
	n->hot = &cgc_no_child;
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
	if (n->fn != fn) {
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
 * an inlined callee: it is alive.  The bottom frame (stack pointer
 * UINTPTR_MAX) is never popped. */
static void CGC_TEXT resync(uintptr_t now, uintptr_t site, uintptr_t fn)
{
	struct cgc_frame *sp = cgc_tls.sp;
	int popped = 0;
	while (sp[-1].sp < now ||
	       (sp[-1].sp == now && (sp[-1].site != site || sp[-1].fn == fn))) {
		sp--;
		popped = 1;
	}
	if (popped) {
		cgc_tls.sp = sp;
		cgc_tls.th->resyncs++;
	}
}

/* Publishes a filled frame: the SIGPROF handler reads sp[-1].node, so the
 * frame is written before the stack pointer moves over it. */
static inline void CGC_TEXT push_frame(struct cgc_frame *sp)
{
	__atomic_signal_fence(__ATOMIC_RELEASE);
	cgc_tls.sp = sp + 1;
}

static void CGC_TEXT push_and_descend(uintptr_t fn, uintptr_t now, uintptr_t site)
{
	struct cgc_frame *sp = cgc_tls.sp;
	if (sp == cgc_tls.end) {
		cgc_stop_thread(cgc_tls.th, CGC_OVERFLOW);
		return;
	}
	struct cgc_node *cur = sp[-1].node;
	sp->fn = fn;
	sp->sp = now;
	sp->site = site;
	if (g_enabled) {
		cur = cgc_descend(cur, fn, 0);
		if (!cur)
			return;  /* out of memory: the thread is stopped */
	}
	sp->node = cur;
	push_frame(sp);
}

/* The hot path found no cached child (the frame at sp is not pushed yet):
 * a new context, or a sibling left behind by longjmp at the same depth
 * (checked only here, where it costs nothing extra on the common path). */
static void CGC_COLD enter_miss(struct cgc_frame *sp, struct cgc_node *cur, uintptr_t fn,
				uintptr_t now, uintptr_t site)
{
	if (CGC_UNLIKELY(sp[-1].sp == now && sp[-1].site != site)) {
		resync(now, site, fn);
		push_and_descend(fn, now, site);
		return;
	}
	struct cgc_node *n = cgc_descend(cur, fn, 0);
	if (!n)
		return;  /* out of memory: the thread is stopped */
	sp->node = n;
	push_frame(sp);
}

/* Not started, stopped, stack full, or a longjmp left frames behind. */
static void CGC_COLD enter_slow(uintptr_t fn, uintptr_t now, uintptr_t site)
{
	if (!cgc_current_node()) {
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
	resync(now, site, fn);
	push_and_descend(fn, now, site);
}

void CGC_TEXT __cyg_profile_func_enter(void *this_fn, void *call_site)
{
	uintptr_t fn = (uintptr_t)this_fn;
	uintptr_t now = machine_sp();
	struct cgc_frame *sp = cgc_tls.sp;
	/* Not started or stopped: the idle frame's stack pointer is 0. */
	if (CGC_UNLIKELY(cgc_stack_full(sp) || sp[-1].sp < now)) {
		enter_slow(fn, now, (uintptr_t)call_site);
		return;
	}
	struct cgc_node *cur = sp[-1].node;
	sp->fn = fn;
	sp->sp = now;
	sp->site = (uintptr_t)call_site;
	if (CGC_UNLIKELY(!g_enabled)) {
		sp->node = cur;
		push_frame(sp);
		return;
	}
	if (fn == cur->fn) {
		if (CGC_UNLIKELY(sp[-1].sp == now)) {
			enter_again(fn, now, (uintptr_t)call_site);
			return;
		}
		cur->recursive++;
		sp->node = cur;
		push_frame(sp);
		return;
	}
	struct cgc_node *n = cur->hot;
	if (CGC_LIKELY(n->fn == fn)) {
		n->calls++;
		sp->node = n->target;
		push_frame(sp);
		return;
	}
	enter_miss(sp, cur, fn, now, (uintptr_t)call_site);
}

/* The exit does not match the newest frame: frames above were abandoned by
 * longjmp.  Pop down to the frame of fn, stopping at the bottom frame; an
 * exit we never saw enter (the frame was pushed before the thread started)
 * is ignored. */
static void CGC_COLD exit_resync(uintptr_t fn)
{
	struct cgc_thread *th = cgc_tls.th;
	if (!th || !cgc_current_node())
		return;
	for (struct cgc_frame *f = cgc_tls.sp - 1; f->sp != UINTPTR_MAX; f--) {
		if (f->fn == fn) {
			cgc_tls.sp = f;
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
}
