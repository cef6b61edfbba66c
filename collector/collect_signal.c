/*
 * collect_signal.c — a profile for every way a run can end.
 *
 *   exit / return from main   on_exit() handler (it receives the status)
 *   _exit, _Exit, exec*        interposed by the preload (collect_preload.c)
 *   termination signals        our handler writes the file, then the
 *                              program's own disposition runs
 *   fatal signals              the same, on an alternate stack (a stack
 *                              overflow leaves no room on the normal one)
 *   SIGKILL, or never ending   CGCOLLECT_INTERVAL: periodic snapshots
 *
 * The program keeps its signal handling: when it installs a handler for one
 * of these signals (the preload interposes sigaction and signal), ours
 * stays installed and calls theirs, and writes nothing, since the program
 * decided what the signal means; an ignored signal stays ignored (nohup).
 * Only when the disposition is the default (death) do we write the file,
 * then restore the default and re-raise, so the exit status and core file
 * are what they would have been without us.
 *
 * SIGPROF, while we sample (cpu and wall modes), is chained the same way:
 * our timers tag their signals (sigev_value), the tick handler keeps those
 * and passes every other SIGPROF (setitimer, kill, raise, the program's own
 * timers) to cgc_signal_forward, which runs the program's recorded
 * disposition.
 * The program's handler is recorded, never installed, so it cannot take
 * our ticks.  Its sa_mask is installed on our handler (it then applies to
 * our ticks too, for the few instructions they take); SA_RESTART is always
 * on (our ticks must not interrupt the program's calls) and SA_NODEFER is
 * not honoured (our handler must not nest).
 *
 * Everything reachable from a handler is async-signal-safe.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "collect_internal.h"

int (*cgc_real_sigaction)(int, const struct sigaction *, struct sigaction *);

int CGC_TEXT cgc_sys_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	/* In the preload `sigaction` is our own wrapper; the real one was
	 * looked up before any handler was installed. */
	if (cgc_real_sigaction)
		return cgc_real_sigaction(sig, act, old);
	return sigaction(sig, act, old);
}

/* The signals we write a profile for when their disposition is the default.
 * All of them kill the process by default. */
static const int g_term_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM,
				   SIGUSR1, SIGUSR2 };
static const int g_fatal_sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };

/* What the program believes each signal's action is; meaningful where
 * g_ours[sig] says our handler is the one installed. */
static struct sigaction g_prog[NSIG];
static volatile unsigned char g_ours[NSIG];
static volatile int g_installed;
static volatile sig_atomic_t g_in_fatal;
static void (*g_tick)(int, siginfo_t *, void *);
volatile int cgc_sigprof_chained;

/* 1: termination, 2: fatal, 3: SIGPROF while we sample; 0: not ours. */
static int CGC_TEXT managed(int sig)
{
	if (sig == SIGPROF)
		return g_tick ? 3 : 0;
	for (size_t i = 0; i < sizeof g_term_sigs / sizeof g_term_sigs[0]; i++)
		if (g_term_sigs[i] == sig)
			return 1;
	for (size_t i = 0; i < sizeof g_fatal_sigs / sizeof g_fatal_sigs[0]; i++)
		if (g_fatal_sigs[i] == sig)
			return 2;
	return 0;
}


/* Installs our handler for sig with the program's mask and flags, so the
 * program's handler runs under the conditions it asked for. */
static int CGC_TEXT install_ours(int sig, const struct sigaction *prog)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_mask = prog->sa_mask;
	if (sig == SIGPROF && g_tick) {
		sa.sa_sigaction = g_tick;
		sa.sa_flags = SA_SIGINFO | SA_RESTART | (prog->sa_flags & SA_ONSTACK);
		return cgc_sys_sigaction(sig, &sa, NULL);
	}
	sa.sa_sigaction = cgc_signal_forward;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | (prog->sa_flags & (SA_RESTART | SA_NODEFER));
	if (prog->sa_handler == SIG_DFL)
		sa.sa_flags |= SA_RESTART;
	return cgc_sys_sigaction(sig, &sa, NULL);
}

void CGC_TEXT cgc_signals_install(void (*tick)(int, siginfo_t *, void *))
{
	g_tick = tick;
	for (int sig = 1; sig < NSIG; sig++) {
		if (!managed(sig))
			continue;
		struct sigaction cur;
		if (cgc_sys_sigaction(sig, NULL, &cur) != 0)
			continue;
		if (sig == SIGPROF) {
			/* Whatever it was, even SIG_IGN, is the program's;
			 * the timers need our handler. */
			g_prog[sig] = cur;
			if (install_ours(sig, &cur) == 0)
				g_ours[sig] = 1;
			cgc_sigprof_chained = g_ours[sig];
			continue;
		}
		/* Ignored stays ignored (nohup, a parent's SIG_IGN across exec). */
		if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_IGN)
			continue;
		g_prog[sig] = cur;
		if (install_ours(sig, &cur) == 0)
			g_ours[sig] = 1;
	}
	g_installed = 1;
}

/* The program's sigaction, as seen through the preload. */
int CGC_TEXT cgc_program_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!g_installed || sig <= 0 || sig >= NSIG || !managed(sig))
		return cgc_sys_sigaction(sig, act, old);
	struct sigaction prev;
	if (g_ours[sig]) {
		prev = g_prog[sig];
	} else if (cgc_sys_sigaction(sig, NULL, &prev) != 0) {
		return -1;
	}
	if (act) {
		/* Recorded, not installed, for SIGPROF: our ticks need our
		 * handler, which then ignores the program's SIGPROFs. */
		int ignore = !(act->sa_flags & SA_SIGINFO) && act->sa_handler == SIG_IGN &&
			     managed(sig) != 3;
		if (ignore) {
			if (cgc_sys_sigaction(sig, act, NULL) != 0)
				return -1;
			g_ours[sig] = 0;
		} else {
			g_prog[sig] = *act;
			if (install_ours(sig, act) != 0)
				return -1;
			g_ours[sig] = 1;
		}
	}
	if (old)
		*old = prev;
	return 0;
}

/* Dies of sig as the default action would: restore the default, and
 * re-raise unless returning re-executes a faulting instruction (which
 * then faults again, giving the same core as without us). */
static void CGC_TEXT die_by_default(int sig, const siginfo_t *si)
{
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	cgc_sys_sigaction(sig, &dfl, NULL);
	g_ours[sig] = 0;
	if (sig == SIGPROF)
		cgc_sigprof_chained = 0;
	int fault = managed(sig) == 2 && sig != SIGABRT && si && si->si_code > 0 &&
		    si->si_code != SI_KERNEL;
	if (!fault) {
		/* Blocked while we run: delivered when the handler returns,
		 * with the interrupted context's registers. */
		raise(sig);
	}
}

void CGC_TEXT cgc_signal_forward(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	struct sigaction prog = g_prog[sig];
	int has_handler = (prog.sa_flags & SA_SIGINFO) ? prog.sa_sigaction != NULL
						      : (prog.sa_handler != SIG_DFL &&
							 prog.sa_handler != SIG_IGN);
	if (has_handler) {
		if (prog.sa_flags & SA_RESETHAND) {
			memset(&g_prog[sig], 0, sizeof g_prog[sig]);
			g_prog[sig].sa_handler = SIG_DFL;
		}
		if (prog.sa_flags & SA_SIGINFO)
			prog.sa_sigaction(sig, si, uc);
		else
			prog.sa_handler(sig);
		errno = saved_errno;
		return;
	}
	if (!(prog.sa_flags & SA_SIGINFO) && prog.sa_handler == SIG_IGN) {
		errno = saved_errno;
		return;
	}
	int fatal = managed(sig) == 2;
	if (fatal && g_in_fatal) {
		/* A fault while writing after a fault: just die. */
		die_by_default(sig, si);
		return;
	}
	if (fatal)
		g_in_fatal = 1;
	if (cgc_dump_busy_here()) {
		/* We interrupted our own write: it cannot be finished from
		 * here, so leave no half-written temporary behind. */
		cgc_file_cleanup_on_signal();
	} else if (g_initialised) {
		struct cgc_ending e = { CGC_END_SIGNAL, sig, NULL };
		cgc_write_profile(NULL, &e, 1);
	}
	die_by_default(sig, si);
	errno = saved_errno;
}

/* ---- alternate signal stacks ------------------------------------------ */

#define ALTSTACK_SIZE (256u << 10)

/* Each thread gets one for the fatal-signal dump, unless it already has
 * its own (then it is the program's, and we leave it). */
void CGC_TEXT cgc_altstack_init(struct cgc_thread *th)
{
	stack_t cur;
	if (sigaltstack(NULL, &cur) != 0 || !(cur.ss_flags & SS_DISABLE))
		return;
	void *p = cgc_map_zeroed(ALTSTACK_SIZE);
	if (!p)
		return;
	stack_t ss = { .ss_sp = p, .ss_size = ALTSTACK_SIZE, .ss_flags = 0 };
	if (sigaltstack(&ss, NULL) != 0) {
		munmap(p, ALTSTACK_SIZE);
		return;
	}
	th->altstack = p;
}

void CGC_TEXT cgc_altstack_free(struct cgc_thread *th)
{
	if (!th->altstack)
		return;
	stack_t cur;
	if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == th->altstack &&
	    !(cur.ss_flags & SS_ONSTACK)) {
		stack_t off = { .ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE };
		sigaltstack(&off, NULL);
		munmap(th->altstack, ALTSTACK_SIZE);
		th->altstack = NULL;
	}
}

/* ---- final dumps -------------------------------------------------------- */

/* A forked child that made no call since the fork (fork + exec, or fork +
 * _exit) has nothing to say: no file. */
static int CGC_TEXT recorded_anything(void)
{
	for (struct cgc_thread *th = g_threads; th; th = th->next) {
		if (th->gone)
			continue;
		if (th->samples)
			return 1;
		struct cgc_node *root = &th->root, *n = root->first_child;
		while (n) {
			if (n->calls | n->recursive | n->redos | n->ticks)
				return 1;
			if (n->first_child) {
				n = n->first_child;
				continue;
			}
			while (n != root && !n->next_sibling)
				n = n->parent;
			n = n == root ? NULL : n->next_sibling;
		}
	}
	return 0;
}

int CGC_TEXT cgc_final_dump(const struct cgc_ending *end)
{
	if (!g_initialised || (g_forked && !recorded_anything()))
		return -1;
	return cgc_write_profile(NULL, end, 0);
}

/* ---- periodic snapshots ------------------------------------------------- */

unsigned g_interval;  /* seconds; 0: none */

static void *CGC_TEXT snapshot_loop(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (int n = 1;; n++) {
		next.tv_sec += g_interval;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		struct cgc_ending e = { CGC_END_SNAPSHOT, n, NULL };
		cgc_write_profile(NULL, &e, 0);
	}
	return NULL;
}

void CGC_TEXT cgc_snapshots_start(void)
{
	if (!g_interval)
		return;
	pthread_t t;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 1u << 20);
	pthread_create(&t, &attr, snapshot_loop, NULL);
	pthread_attr_destroy(&attr);
}
