/*
 * collect.c — the call tree, the -finstrument-functions hooks, the
 * interpreter API, threads, timers and fork handling of libcgcollect.
 *
 * Hot path (enter): push a shadow frame, test direct recursion, test the
 * parent's 1-entry child cache; everything else is a tail call to a cold
 * function.  Exit: pop one frame.  Recursion through other functions is
 * folded once, when a context is first created (SWI-Prolog's rule: the
 * same function with the same parent higher up becomes a link to that
 * ancestor), so the ancestor walk is never paid per call.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "collect_internal.h"

#define ARENA_CHUNK (1u << 20)
#define STACK_FRAMES (1u << 20)  /* reserved, not committed (MAP_NORESERVE) */
#define LIST_SCAN_MAX 8          /* fan-out above which a parent gets a table */
#define NOPROFILE_MAX 64

struct cgc_thread *g_threads;
pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
int g_mode = CGC_MODE_CPU;
unsigned g_hz = 1000;
volatile int g_enabled = 1;
int g_forked;
size_t g_memory_limit;
char g_output[4096];
char *g_noprofile_names;
struct cgc_func *g_funcs;

/* Threads that have no state yet point at this frame: its fn never matches
 * and its stack pointer is above every real one. */
static struct cgc_frame g_sentinel[2] = {
	{ NULL, 0, UINTPTR_MAX, 0 }, { NULL, 0, UINTPTR_MAX, 0 }
};

static _Thread_local struct cgc_tls tls __attribute__((tls_model("initial-exec"))) = {
	NULL, &g_sentinel[1], &g_sentinel[1], NULL
};

static int g_initialised;
static unsigned g_thread_count;
static pthread_key_t g_key;
static uintptr_t g_noprofile[NOPROFILE_MAX];
static unsigned g_noprofile_count;

extern char __start_cgc_text[], __stop_cgc_text[];

#define CGC_PUBLIC __attribute__((visibility("default")))
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

static void *CGC_TEXT map_zeroed(size_t size)
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
		char *p = map_zeroed(chunk);
		if (!p)
			return NULL;
		th->arena = p;
		th->arena_end = p + chunk;
	}
	void *r = th->arena;
	th->arena += size;
	return r;
}

/* Stops collecting in this thread for good: the file will say why.  Exits
 * and ticks are ignored from now on. */
static void CGC_COLD stop_thread(struct cgc_thread *th, int status)
{
	th->status = status;
	tls.cur = NULL;
	tls.sp = &g_sentinel[1];
	tls.end = &g_sentinel[1];
}

/* ---- timers ------------------------------------------------------------ */

static void CGC_TEXT on_tick(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	struct cgc_thread *th = tls.th;
	if (!th || si->si_code != SI_TIMER)
		return;
	uint64_t n = 1 + (si->si_overrun > 0 ? (uint64_t)si->si_overrun : 0);
	th->samples += n;
	uintptr_t pc = 0;
#if defined(__x86_64__)
	pc = (uintptr_t)((ucontext_t *)ucv)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	pc = (uintptr_t)((ucontext_t *)ucv)->uc_mcontext.pc;
#else
	(void)ucv;
#endif
	struct cgc_node *cur = tls.cur;
	if (pc >= (uintptr_t)__start_cgc_text && pc < (uintptr_t)__stop_cgc_text)
		th->overhead += n;
	else if (cur && g_enabled)
		cur->ticks += n;
	else
		th->lost += n;
}

static void CGC_TEXT start_timer(struct cgc_thread *th)
{
	if (g_mode == CGC_MODE_CALLS || g_hz == 0)
		return;
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGPROF;
	ev._sigev_un._tid = th->tid;
	clockid_t clock = g_mode == CGC_MODE_WALL ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID;
	if (timer_create(clock, &ev, &th->timer) != 0)
		return;
	struct itimerspec its;
	memset(&its, 0, sizeof its);
	long ns = 1000000000L / (long)g_hz;
	its.it_interval.tv_sec = ns / 1000000000L;
	its.it_interval.tv_nsec = ns % 1000000000L;
	its.it_value = its.it_interval;
	if (timer_settime(th->timer, 0, &its, NULL) != 0) {
		timer_delete(th->timer);
		return;
	}
	th->has_timer = 1;
}

static void CGC_TEXT stop_timer(struct cgc_thread *th)
{
	if (th->has_timer) {
		th->has_timer = 0;
		timer_delete(th->timer);
	}
}

/* The thread is ending: its record stays in the registry for the dump. */
static void CGC_TEXT thread_gone(void *arg)
{
	struct cgc_thread *th = arg;
	stop_timer(th);
	stop_thread(th, th->status);  /* tls.th stays set: no second record */
}

/* ---- configuration, once per process ------------------------------------ */

static void CGC_TEXT parse_noprofile(const char *list)
{
	char name[512];
	while (list && *list) {
		const char *comma = strchr(list, ',');
		size_t len = comma ? (size_t)(comma - list) : strlen(list);
		if (len > 0 && len < sizeof name) {
			memcpy(name, list, len);
			name[len] = '\0';
			cgc_noprofile_name(name);
		}
		list = comma ? comma + 1 : NULL;
	}
}

static void CGC_TEXT after_fork_child(void);
static void CGC_TEXT write_at_exit(void);

static void CGC_TEXT global_init(void)
{
	const char *s = getenv("CGCOLLECT_TIME");
	if (s && strcmp(s, "wall") == 0)
		g_mode = CGC_MODE_WALL;
	else if (s && strcmp(s, "calls") == 0)
		g_mode = CGC_MODE_CALLS;
	s = getenv("CGCOLLECT_HZ");
	if (s && *s) {
		char *end;
		unsigned long hz = strtoul(s, &end, 10);
		if (*end == '\0' && hz <= 100000)
			g_hz = (unsigned)hz;
	}
	s = getenv("CGCOLLECT_OUTPUT");
	if (!s || !*s)
		s = "cgtree.out";
	size_t len = strlen(s);
	if (len >= sizeof g_output)
		len = sizeof g_output - 1;
	memcpy(g_output, s, len);
	g_output[len] = '\0';
	/* A cap on each thread's tree, so a runaway profile cannot exhaust the
	 * program's memory (and so running out can be tested). */
	s = getenv("CGCOLLECT_MEMORY");
	if (s && *s) {
		char *end;
		unsigned long long v = strtoull(s, &end, 10);
		if (*end == 'k' || *end == 'K')
			v <<= 10, end++;
		else if (*end == 'm' || *end == 'M')
			v <<= 20, end++;
		if (*end == '\0')
			g_memory_limit = (size_t)v;
	}
	s = getenv("CGCOLLECT_DISABLE");
	if (s && *s && strcmp(s, "0") != 0)
		g_enabled = 0;
	pthread_key_create(&g_key, thread_gone);
	if (g_mode != CGC_MODE_CALLS && g_hz) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_tick;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGPROF, &sa, NULL);
	}
	pthread_atfork(NULL, NULL, after_fork_child);
	atexit(write_at_exit);
}

/* Called with no lock held; the lock orders registration, the once-only
 * global setup and dumps. */
static struct cgc_thread *CGC_COLD thread_init(void)
{
	int first = 0;
	pthread_mutex_lock(&g_lock);
	if (!g_initialised) {
		g_initialised = first = 1;
		global_init();
	}
	pthread_mutex_unlock(&g_lock);
	const char *np = getenv("CGCOLLECT_NOPROFILE");
	if (first && np && *np) {
		g_noprofile_names = strdup(np);
		parse_noprofile(np);
	}
	struct cgc_thread *th = map_zeroed(sizeof *th);
	if (!th)
		return NULL;
	th->stack_frames = STACK_FRAMES;
	th->stack = map_zeroed(STACK_FRAMES * sizeof(struct cgc_frame));
	if (!th->stack) {
		munmap(th, sizeof *th);
		return NULL;
	}
	th->stack[0] = g_sentinel[0];
	th->root.target = &th->root;
	th->tid = gettid();
	pthread_mutex_lock(&g_lock);
	th->index = g_thread_count++;
	th->next = g_threads;
	g_threads = th;
	pthread_mutex_unlock(&g_lock);
	pthread_setspecific(g_key, th);
	tls.th = th;
	tls.sp = th->stack + 1;
	tls.end = th->stack + STACK_FRAMES;
	tls.cur = &th->root;
	start_timer(th);
	return th;
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
static struct cgc_node *CGC_TEXT descend(struct cgc_node *cur, uintptr_t fn, int api)
{
	if (fn == cur->fn) {
		cur->recursive++;
		return cur;
	}
	struct cgc_node *n = cur->hot;
	if (!n || n->fn != fn) {
		n = find_child(cur, fn);
		if (!n) {
			n = new_child(tls.th, cur, fn, api);
			if (!n) {
				stop_thread(tls.th, CGC_OOM);
				return NULL;
			}
		}
		cur->hot = n;
	}
	n->calls++;
	return n->target;
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
	struct cgc_frame *sp = tls.sp;
	int popped = 0;
	while (sp[-1].sp < now ||
	       (sp[-1].sp == now && (sp[-1].site != site || sp[-1].fn == fn))) {
		sp--;
		tls.cur = sp->saved;
		popped = 1;
	}
	if (popped) {
		tls.sp = sp;
		tls.th->resyncs++;
	}
	return popped;
}

static void CGC_TEXT push_and_descend(uintptr_t fn, uintptr_t now, uintptr_t site)
{
	struct cgc_frame *sp = tls.sp;
	if (sp == tls.end) {
		stop_thread(tls.th, CGC_OVERFLOW);
		return;
	}
	struct cgc_node *cur = tls.cur;
	sp->saved = cur;
	sp->fn = fn;
	sp->sp = now;
	sp->site = site;
	tls.sp = sp + 1;
	if (g_enabled) {
		struct cgc_node *n = descend(cur, fn, 0);
		if (n)
			tls.cur = n;
	}
}

/* The hot path pushed the frame but found no cached child: a new context,
 * or a sibling left behind by longjmp at the same depth (checked only
 * here, where it costs nothing extra on the common path). */
static void CGC_COLD enter_miss(struct cgc_node *cur, uintptr_t fn, uintptr_t now,
				uintptr_t site)
{
	struct cgc_frame *below = tls.sp - 2;
	if (CGC_UNLIKELY(below->sp == now && below->site != site)) {
		tls.sp--;
		resync(now, site, fn);
		push_and_descend(fn, now, site);
		return;
	}
	struct cgc_node *n = descend(cur, fn, 0);
	if (n)
		tls.cur = n;
}

/* Not started, stopped, stack full, or a longjmp left frames behind. */
static void CGC_COLD enter_slow(uintptr_t fn, uintptr_t now, uintptr_t site)
{
	if (!tls.cur) {
		if (tls.th || !thread_init())
			return;
	}
	resync(now, site, fn);
	push_and_descend(fn, now, site);
}

/* A call of the current function at the depth of the current frame is not
 * recursion (that would be deeper): the frame was left by longjmp. */
static void CGC_COLD enter_again(uintptr_t fn, uintptr_t now, uintptr_t site)
{
	tls.sp--;
	resync(now, site, fn);
	push_and_descend(fn, now, site);
}

void CGC_TEXT __cyg_profile_func_enter(void *this_fn, void *call_site)
{
	uintptr_t fn = (uintptr_t)this_fn;
	uintptr_t now = machine_sp();
	struct cgc_node *cur = tls.cur;
	struct cgc_frame *sp = tls.sp;
	if (CGC_UNLIKELY(!cur || sp == tls.end || sp[-1].sp < now)) {
		enter_slow(fn, now, (uintptr_t)call_site);
		return;
	}
	sp->saved = cur;
	sp->fn = fn;
	sp->sp = now;
	sp->site = (uintptr_t)call_site;
	tls.sp = sp + 1;
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
		tls.cur = n->target;
		return;
	}
	enter_miss(cur, fn, now, (uintptr_t)call_site);
}

/* The exit does not match the newest frame: frames above were abandoned by
 * longjmp.  Pop down to the frame of fn; an exit we never saw enter (the
 * frame was pushed before the thread started) is ignored. */
static void CGC_COLD exit_resync(uintptr_t fn)
{
	struct cgc_thread *th = tls.th;
	if (!th || !tls.cur)
		return;
	for (struct cgc_frame *f = tls.sp - 1; f > th->stack; f--) {
		if (f->fn == fn) {
			tls.sp = f;
			tls.cur = f->saved;
			th->resyncs++;
			return;
		}
	}
}

void CGC_TEXT __cyg_profile_func_exit(void *this_fn, void *call_site)
{
	(void)call_site;
	struct cgc_frame *f = tls.sp - 1;
	if (CGC_UNLIKELY(f->fn != (uintptr_t)this_fn)) {
		exit_resync((uintptr_t)this_fn);
		return;
	}
	tls.sp = f;
	tls.cur = f->saved;
}

/* ---- the interpreter API --------------------------------------------------- */

static struct cgc_node *CGC_TEXT current_or_start(void)
{
	if (!tls.cur && !tls.th)
		thread_init();
	return tls.cur;
}

CGC_PUBLIC cgc_func *CGC_TEXT
cgc_register(const char *name, const char *file, unsigned line)
{
	struct cgc_func *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->name = strdup(name ? name : "?");
	f->file = file ? strdup(file) : NULL;
	f->line = line;
	if (!f->name || (file && !f->file)) {
		free(f->name);
		free(f->file);
		free(f);
		return NULL;
	}
	pthread_mutex_lock(&g_lock);
	f->next = g_funcs;
	g_funcs = f;
	pthread_mutex_unlock(&g_lock);
	return f;
}

CGC_PUBLIC void CGC_TEXT cgc_noprofile(cgc_func *f)
{
	if (f)
		f->noprofile = 1;
}

CGC_PUBLIC int CGC_TEXT cgc_noprofile_name(const char *name)
{
	uintptr_t a = cgc_elf_lookup(name);
	if (!a)
		return -1;
	pthread_mutex_lock(&g_lock);
	if (g_noprofile_count < NOPROFILE_MAX)
		g_noprofile[g_noprofile_count++] = a;
	pthread_mutex_unlock(&g_lock);
	return 0;
}

CGC_PUBLIC cgc_node *CGC_TEXT cgc_call(cgc_func *f)
{
	struct cgc_node *cur = current_or_start();
	if (!cur || !f || !g_enabled)
		return cur;
	struct cgc_node *n = descend(cur, (uintptr_t)f, 1);
	if (n)
		tls.cur = n;
	return n;
}

CGC_PUBLIC void CGC_TEXT cgc_exit(cgc_node *resume)
{
	if (tls.cur && resume)
		tls.cur = resume;
}

CGC_PUBLIC void CGC_TEXT cgc_redo(cgc_node *node)
{
	if (!tls.cur || !node)
		return;
	if (g_enabled)
		node->redos++;
	tls.cur = node;
}

CGC_PUBLIC cgc_node *CGC_TEXT cgc_current(void)
{
	return current_or_start();
}

static void CGC_TEXT zero_tree(struct cgc_node *root)
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

CGC_PUBLIC void CGC_TEXT cgc_reset(void)
{
	pthread_mutex_lock(&g_lock);
	for (struct cgc_thread *th = g_threads; th; th = th->next) {
		zero_tree(&th->root);
		th->samples = th->overhead = th->lost = th->resyncs = 0;
	}
	pthread_mutex_unlock(&g_lock);
}

CGC_PUBLIC void CGC_TEXT cgc_disable(void)
{
	g_enabled = 0;
}

CGC_PUBLIC void CGC_TEXT cgc_enable(void)
{
	g_enabled = 1;
}

CGC_PUBLIC int CGC_TEXT cgc_enabled(void)
{
	return g_enabled;
}

CGC_PUBLIC int CGC_TEXT cgc_dump(const char *path)
{
	if (!g_initialised) {
		errno = ENOENT;
		return -1;
	}
	return cgc_write_profile(path);
}

/* ---- process life ----------------------------------------------------------- */

/* The child keeps the forking thread's tree (its contexts are the child's
 * too) with every counter zeroed, so its file holds only its own work. */
static void CGC_TEXT after_fork_child(void)
{
	pthread_mutex_init(&g_lock, NULL);
	g_forked = 1;
	for (struct cgc_thread *th = g_threads; th; th = th->next) {
		if (th == tls.th)
			continue;
		th->gone = 1;
		th->has_timer = 0;  /* timers are not inherited */
	}
	struct cgc_thread *me = tls.th;
	if (me) {
		zero_tree(&me->root);
		me->samples = me->overhead = me->lost = me->resyncs = 0;
		me->tid = gettid();
		me->has_timer = 0;
		start_timer(me);
	}
}

static void CGC_TEXT write_at_exit(void)
{
	if (tls.th)
		stop_timer(tls.th);
	cgc_write_profile(NULL);
}
