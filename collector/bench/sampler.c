/* sampler.c — the collector's own distortion measure, applied to other
 * hooks: a CPU-time timer of the main thread at 1 kHz (as libcgcollect's
 * cpu mode sets up, overruns included) whose SIGPROF handler counts the
 * ticks that interrupted code in the hooks' section (hook_text).  At exit
 * it appends "INHOOK ALL" to the file named by $BENCH_TICKS.  Linked with
 * hooks built -DHOOK_TEXT, it tells what share of ticks an empty hook or a
 * depth counter shows on the same workload: the floor of the figure.
 * Built without instrumentation. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

extern char __start_hook_text[], __stop_hook_text[];
static volatile uint64_t ticks_all, ticks_in_hook;

static void on_tick(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	uint64_t n = 1 + (si->si_overrun > 0 ? (uint64_t)si->si_overrun : 0);
	uintptr_t pc = 0;
#if defined(__x86_64__)
	pc = (uintptr_t)((ucontext_t *)ucv)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	pc = (uintptr_t)((ucontext_t *)ucv)->uc_mcontext.pc;
#else
	(void)ucv;
#endif
	ticks_all += n;
	if (pc >= (uintptr_t)__start_hook_text && pc < (uintptr_t)__stop_hook_text)
		ticks_in_hook += n;
}

__attribute__((constructor)) static void start_sampling(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_tick;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGPROF;
	ev._sigev_un._tid = gettid();
	timer_t timer;
	struct itimerspec its = { { 0, 1000000 }, { 0, 1000000 } };
	if (sigaction(SIGPROF, &sa, NULL) != 0 || timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &timer) != 0 ||
	    timer_settime(timer, 0, &its, NULL) != 0) {
		perror("sampler: timer");
		exit(1);
	}
}

__attribute__((destructor)) static void report_ticks(void)
{
	const char *path = getenv("BENCH_TICKS");
	FILE *f = path ? fopen(path, "a") : NULL;
	if (!f)
		return;
	fprintf(f, "%llu %llu\n", (unsigned long long)ticks_in_hook, (unsigned long long)ticks_all);
	fclose(f);
}
