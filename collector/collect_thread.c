/*
 * collect_thread.c — the process side of libcgcollect: configuration from
 * the environment, per-thread records and shadow stacks, the per-thread
 * timers and their SIGPROF handler, fork and exit.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "collect_internal.h"

#define STACK_FRAMES (1u << 20)  /* reserved, not committed (MAP_NORESERVE) */

struct cgc_thread *g_threads;
pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
int g_mode = CGC_MODE_CPU;
unsigned g_hz = 1000;
volatile int g_enabled = 1;
int g_forked;
int g_initialised;
size_t g_memory_limit;
char g_output[4096];
char *g_noprofile_names;
char g_report[4096];
int g_output_fixed;  /* g_output is a final path: no %p, no .PID */
extern unsigned g_interval;
/* Defined only in the preload (collect_preload.c): looks up the real
 * functions it wraps.  Called before we install anything. */
void cgc_preload_init(void) __attribute__((weak));

static unsigned g_thread_count;
static pthread_key_t g_key;

extern char __start_cgc_text[], __stop_cgc_text[];

/* Stops collecting in this thread for good: the file will say why.  Exits
 * and ticks are ignored from now on. */
void CGC_COLD cgc_stop_thread(struct cgc_thread *th, int status)
{
	th->status = status;
	cgc_tls.sp = &cgc_idle[1];
	cgc_tls.end = &cgc_idle[1];
}

/* ---- timers ------------------------------------------------------------ */

/* The sigev_value our timers carry: a SIGPROF with another value (the
 * program's setitimer, kill, raise, its own timers) is the program's. */
static const char g_tick_tag[1];

/* Charges n ticks, taken at pc, to this thread's current context (or to
 * the collector's overhead when pc is in its code).  SIGPROF is blocked:
 * we run in its handler, or a wrapper that holds it. */
static inline __attribute__((always_inline)) void CGC_TEXT
charge(struct cgc_thread *th, uintptr_t pc, uint64_t n)
{
	th->samples += n;
	struct cgc_node *cur = cgc_current_node();
	if (pc >= (uintptr_t)__start_cgc_text && pc < (uintptr_t)__stop_cgc_text) {
		th->overhead += n;
	} else if (cur && g_enabled) {
		cur->ticks += n;
		/* After the node's count: a dump in another thread that sees
		 * the address's count sees the node's too (the dump clamps
		 * them anyway; this keeps them exact). */
		__atomic_thread_fence(__ATOMIC_RELEASE);
		if (cur != &th->root)  /* the root's ticks are reported lost */
			cgc_lines_tick(th, cur, pc, n);
	} else {
		th->lost += n;
	}
}

static inline int CGC_TEXT is_our_tick(const siginfo_t *si)
{
	return si->si_code == SI_TIMER && si->si_value.sival_ptr == g_tick_tag;
}

static inline uint64_t CGC_TEXT tick_count(const siginfo_t *si)
{
	return 1 + (si->si_overrun > 0 ? (uint64_t)si->si_overrun : 0);
}

static void CGC_TEXT on_tick(int sig, siginfo_t *si, void *ucv)
{
	if (__builtin_expect(!is_our_tick(si), 0)) {
		cgc_signal_forward(sig, si, ucv);
		return;
	}
	struct cgc_thread *th = cgc_tls.th;
	if (!th)
		return;
	uintptr_t pc = 0;
#if defined(__x86_64__)
	pc = (uintptr_t)((ucontext_t *)ucv)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	pc = (uintptr_t)((ucontext_t *)ucv)->uc_mcontext.pc;
#elif defined(__i386__)
	pc = (uintptr_t)((ucontext_t *)ucv)->uc_mcontext.gregs[REG_EIP];
#elif defined(__riscv)
	pc = (uintptr_t)((ucontext_t *)ucv)->uc_mcontext.__gregs[REG_PC];
#else
	/* Unknown machine: no address, so every tick is unplaced (still
	 * counted on its context). */
	(void)ucv;
#endif
	charge(th, pc, tick_count(si));
}

int CGC_TEXT cgc_tick_taken(const siginfo_t *si, uintptr_t site)
{
	if (!is_our_tick(si))
		return 0;
	struct cgc_thread *th = cgc_tls.th;
	if (th)
		charge(th, site, tick_count(si));
	return 1;
}

static void CGC_TEXT start_timer(struct cgc_thread *th)
{
	if (g_mode == CGC_MODE_CALLS || g_hz == 0)
		return;
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGPROF;
	ev.sigev_value.sival_ptr = (void *)g_tick_tag;
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
	cgc_altstack_free(th);
	cgc_stop_thread(th, th->status);  /* cgc_tls.th stays set: no second record */
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
static void CGC_TEXT write_at_exit(int status, void *arg);

static void CGC_TEXT copy_env(char *dst, size_t size, const char *s)
{
	size_t len = s ? strlen(s) : 0;
	if (len >= size)
		len = 0;  /* too long to be ours: ignore rather than truncate */
	memcpy(dst, s ? s : "", len);
	dst[len] = '\0';
}

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
	g_output_fixed = 0;
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
	copy_env(g_report, sizeof g_report, getenv("CGCOLLECT_REPORT"));
	/* An instrumented image exec'd us: "PID:WROTE:PATH".  Same pid: we are
	 * its successor, so we must not overwrite its file: PATH.exec when it
	 * wrote PATH, else PATH itself (a forked child's FILE.PID). */
	s = getenv("CGCOLLECT_EXEC_FROM");
	if (s && *s) {
		char *end;
		unsigned long pid = strtoul(s, &end, 10);
		if (*end == ':' && (pid_t)pid == getpid() && (end[1] == '0' || end[1] == '1') &&
		    end[2] == ':' && strlen(end + 3) + 6 < sizeof g_output) {
			size_t plen = strlen(end + 3);
			memcpy(g_output, end + 3, plen + 1);
			if (end[1] == '1')
				memcpy(g_output + plen, ".exec", 6);
			g_output_fixed = 1;
		}
	}
	s = getenv("CGCOLLECT_INTERVAL");
	if (s && *s) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);
		if (*end == '\0' && v <= 86400 * 365)
			g_interval = (unsigned)v;
	}
	/* Slots of each thread's address table (a power of two; 0: no
	 * addresses, the ticks stay per context only). */
	s = getenv("CGCOLLECT_LINES");
	if (s && *s) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);
		if (*end == '\0' && v <= (1ul << 24))
			g_lines_cap = v ? 1u << (63 - __builtin_clzll(v)) : 0;
	}
	s = getenv("CGCOLLECT_NO_TMPFILE");  /* test knob: the fallback path */
	g_no_tmpfile = s && *s && strcmp(s, "0") != 0;
	s = getenv("CGCOLLECT_DISABLE");
	if (s && *s && strcmp(s, "0") != 0)
		g_enabled = 0;
	pthread_key_create(&g_key, thread_gone);
	pthread_atfork(NULL, NULL, after_fork_child);
	/* on_exit, not atexit: the handler gets the exit status for the
	 * file's `ended exit` record. */
	on_exit(write_at_exit, NULL);
	if (cgc_preload_init)
		cgc_preload_init();
	cgc_objects_refresh();
	/* Installs on_tick for SIGPROF when sampling (before any timer). */
	cgc_signals_install(g_mode != CGC_MODE_CALLS && g_hz ? on_tick : NULL);
	cgc_snapshots_start();
}

/* Called with no lock held; the lock orders registration, the once-only
 * global setup and dumps. */
struct cgc_thread *CGC_COLD cgc_thread_init(void)
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
	struct cgc_thread *th = cgc_map_zeroed(sizeof *th);
	if (!th)
		return NULL;
	th->stack_frames = STACK_FRAMES;
	th->stack = cgc_map_stack(STACK_FRAMES);
	if (!th->stack) {
		munmap(th, sizeof *th);
		return NULL;
	}
	th->stack[0] = cgc_sentinel[0];
	th->stack[0].node = &th->root;
	th->root.target = &th->root;
	th->root.hot = &cgc_no_child;
	th->tid = gettid();
	pthread_mutex_lock(&g_lock);
	th->index = g_thread_count++;
	th->next = g_threads;
	g_threads = th;
	pthread_mutex_unlock(&g_lock);
	pthread_setspecific(g_key, th);
	cgc_tls.th = th;
	cgc_tls.sp = th->stack + 1;
	cgc_tls.end = th->stack + STACK_FRAMES;
	cgc_altstack_init(th);
	cgc_lines_init(th);
	start_timer(th);
	return th;
}
/* ---- process life ----------------------------------------------------------- */

/* The child keeps the forking thread's tree (its contexts are the child's
 * too) with every counter zeroed, so its file holds only its own work. */
static void CGC_TEXT after_fork_child(void)
{
	pthread_mutex_init(&g_lock, NULL);
	g_forked = 1;
	for (struct cgc_thread *th = g_threads; th; th = th->next) {
		if (th == cgc_tls.th)
			continue;
		th->gone = 1;
		th->has_timer = 0;  /* timers are not inherited */
	}
	struct cgc_thread *me = cgc_tls.th;
	if (me) {
		cgc_zero_tree(&me->root);
		me->samples = me->overhead = me->lost = me->resyncs = 0;
		cgc_lines_zero(me);
		me->tid = gettid();
		me->has_timer = 0;
		start_timer(me);
	}
}

static void CGC_TEXT write_at_exit(int status, void *arg)
{
	(void)arg;
	if (cgc_tls.th)
		stop_timer(cgc_tls.th);
	struct cgc_ending e = { CGC_END_EXIT, status, NULL };
	cgc_final_dump(&e);
}
