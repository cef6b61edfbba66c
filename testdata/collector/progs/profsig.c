/* profsig: a program with its own SIGPROF handling, to show that the
 * collector's timer ticks never reach it and its own SIGPROFs always do
 * (tests/collector-sigprof-chain.t).
 *
 *   profsig sigaction  an SA_SIGINFO handler (sa_mask: SIGUSR1) and
 *                      setitimer(ITIMER_PROF) at 50 Hz while burn() uses
 *                      about 0.6 s of CPU
 *   profsig signal     the same with a plain handler set by signal()
 *   profsig raise      raise, kill and pthread_kill SIGPROF 5 times each
 *   profsig ignore     SIG_IGN, then raise(SIGPROF): nothing happens
 *   profsig default    raise(SIGPROF) with the default action: dies of it
 *   profsig sleep      a handler set by signal(), then nap() sleeps 0.3 s:
 *                      no SIGPROF cuts the sleep short
 *
 * Every line on stdout is the same in every run that behaves (the test
 * compares a plain run with one under the collector); the counts, which
 * vary, go to stderr as "count N budget B".
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define HZ 50

static volatile sig_atomic_t g_count;
static volatile sig_atomic_t g_timer_signals;  /* from timer_create: never ours */
static volatile sig_atomic_t g_unmasked;       /* SIGUSR1 not blocked in the handler */

static void on_prof_info(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	sigset_t cur;
	pthread_sigmask(SIG_SETMASK, NULL, &cur);
	if (!sigismember(&cur, SIGUSR1))
		g_unmasked++;
	if (si->si_code == SI_TIMER)
		g_timer_signals++;
	g_count++;
}

static void on_prof(int sig)
{
	(void)sig;
	g_count++;
}

static double cpu_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static volatile unsigned long g_sink;

/* Uses `seconds` of CPU time. */
static void burn(double seconds)
{
	double start = cpu_seconds();
	unsigned long x = 1;
	while (cpu_seconds() - start < seconds) {
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
		g_sink = x;
	}
}

static void yes_no(const char *what, int yes)
{
	printf("%s: %s\n", what, yes ? "yes" : "no");
}

static void report_disposition(const char *when, void *want, int siginfo)
{
	struct sigaction old;
	sigaction(SIGPROF, NULL, &old);
	void *got = siginfo ? (void *)old.sa_sigaction : (void *)old.sa_handler;
	yes_no(when, (siginfo ? (old.sa_flags & SA_SIGINFO) != 0 : 1) && got == want);
}

/* Its own timer at HZ while burning; the count must fit what the timer
 * can deliver over the CPU time used. */
static void timed_run(void)
{
	double start = cpu_seconds();
	struct itimerval it = { { 0, 1000000 / HZ }, { 0, 1000000 / HZ } };
	setitimer(ITIMER_PROF, &it, NULL);
	burn(0.6);
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_PROF, &off, NULL);
	double used = cpu_seconds() - start;
	long budget = (long)(used * HZ * 2) + 5;  /* the kernel may send a few early */
	fprintf(stderr, "count %ld budget %ld\n", (long)g_count, budget);
	yes_no("its handler ran", g_count > 0);
	yes_no("no more SIGPROFs than its own timer sends", g_count <= budget);
}

static void nap(void)
{
	struct timespec t = { 0, 300000000 };
	yes_no("nanosleep slept its whole time", nanosleep(&t, NULL) == 0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	setvbuf(stdout, NULL, _IONBF, 0);
	report_disposition("SIGPROF's disposition is the default at start", (void *)SIG_DFL, 0);
	if (strcmp(mode, "sigaction") == 0) {
		struct sigaction sa, old;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_prof_info;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		sigaddset(&sa.sa_mask, SIGUSR1);
		sigaction(SIGPROF, &sa, &old);
		yes_no("sigaction's old action was the default", old.sa_handler == SIG_DFL &&
							       !(old.sa_flags & SA_SIGINFO));
		report_disposition("sigaction(SIGPROF, NULL, &old) gives its handler",
				   (void *)on_prof_info, 1);
		timed_run();
		yes_no("its handler ran with its sa_mask", g_unmasked == 0);
		yes_no("no timer_create signal reached it", g_timer_signals == 0);
	} else if (strcmp(mode, "signal") == 0) {
		yes_no("signal's old handler was the default", signal(SIGPROF, on_prof) == SIG_DFL);
		yes_no("signal again gives its handler back", signal(SIGPROF, on_prof) == on_prof);
		report_disposition("sigaction(SIGPROF, NULL, &old) gives its handler",
				   (void *)on_prof, 0);
		timed_run();
	} else if (strcmp(mode, "raise") == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_prof_info;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		sigaddset(&sa.sa_mask, SIGUSR1);
		sigaction(SIGPROF, &sa, NULL);
		burn(0.3);
		int sent = 0;
		for (int i = 0; i < 5; i++) {
			raise(SIGPROF);
			kill(getpid(), SIGPROF);
			pthread_kill(pthread_self(), SIGPROF);
			sent += 3;
			burn(0.02);
		}
		printf("sent %d, its handler ran %d times\n", sent, (int)g_count);
		yes_no("its handler ran with its sa_mask", g_unmasked == 0);
	} else if (strcmp(mode, "ignore") == 0) {
		yes_no("signal's old handler was the default", signal(SIGPROF, SIG_IGN) == SIG_DFL);
		report_disposition("sigaction(SIGPROF, NULL, &old) says ignored", (void *)SIG_IGN, 0);
		burn(0.3);
		raise(SIGPROF);
		puts("an ignored SIGPROF did nothing");
	} else if (strcmp(mode, "default") == 0) {
		burn(0.3);
		puts("raising SIGPROF with the default action");
		raise(SIGPROF);
		puts("still alive after SIGPROF");
	} else if (strcmp(mode, "sleep") == 0) {
		signal(SIGPROF, on_prof);
		nap();
		printf("its handler ran %d times\n", (int)g_count);
	} else {
		fputs("usage: profsig sigaction|signal|raise|ignore|default|sleep\n", stderr);
		return 2;
	}
	return 0;
}
