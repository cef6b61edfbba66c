/* napper: sleeps in every way the collector's sleep wrappers cover, and
 * prints what each call returned, so a test can compare a run under the
 * collector with a plain run (tests/collector-wall-sleep.t).
 *
 *   napper sleeps      napper() sleeps 2.7 s in total; each call must
 *                      sleep its full time and report success
 *   napper interrupt   a SIGUSR1 timer interrupts nanosleep, pause,
 *                      poll and sigsuspend: each must see EINTR (the
 *                      interruption the program asked for)
 *   napper mask        the signal mask after a sleep is the one before,
 *                      with SIGPROF blocked by the program and without
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Prints whether at least `want` seconds passed since `start`. */
static void slept(const char *what, double start, double want)
{
	printf("%s slept its time: %s\n", what, now() - start >= want ? "yes" : "no");
}

static void napper(void)
{
	double t = now();
	unsigned left = sleep(1);
	printf("sleep(1) = %u\n", left);
	slept("sleep", t, 1.0);

	t = now();
	int rc = usleep(200000);
	printf("usleep(200000) = %d\n", rc);
	slept("usleep", t, 0.2);

	t = now();
	struct timespec req = { 0, 300000000 }, rem = { 7, 7 };
	rc = nanosleep(&req, &rem);
	printf("nanosleep(0.3) = %d\n", rc);
	slept("nanosleep", t, 0.3);

	t = now();
	struct timespec creq = { 0, 200000000 };
	rc = clock_nanosleep(CLOCK_MONOTONIC, 0, &creq, &rem);
	printf("clock_nanosleep(0.2) = %d\n", rc);
	slept("clock_nanosleep", t, 0.2);

	t = now();
	struct timespec treq = { 0, 100000000 };
	rc = thrd_sleep(&treq, NULL);
	printf("thrd_sleep(0.1) = %d\n", rc);
	slept("thrd_sleep", t, 0.1);

	t = now();
	rc = poll(NULL, 0, 200);
	printf("poll(200 ms) = %d\n", rc);
	slept("poll", t, 0.2);

	t = now();
	struct timeval tv = { 0, 300000 };
	rc = select(0, NULL, NULL, NULL, &tv);
	printf("select(0.3) = %d\n", rc);
	slept("select", t, 0.3);

	int ep = epoll_create1(0);
	struct epoll_event ev;
	t = now();
	rc = epoll_wait(ep, &ev, 1, 100);
	printf("epoll_wait(100 ms) = %d\n", rc);
	slept("epoll_wait", t, 0.1);

	sigset_t none;
	sigemptyset(&none);
	t = now();
	rc = epoll_pwait(ep, &ev, 1, 100, &none);
	printf("epoll_pwait(100 ms, no mask) = %d\n", rc);
	slept("epoll_pwait", t, 0.1);
	close(ep);

	t = now();
	struct timespec pt = { 0, 100000000 };
	rc = ppoll(NULL, 0, &pt, &none);
	printf("ppoll(0.1, empty mask) = %d\n", rc);
	slept("ppoll", t, 0.1);

	t = now();
	rc = pselect(0, NULL, NULL, NULL, &pt, NULL);
	printf("pselect(0.1, no mask) = %d\n", rc);
	slept("pselect", t, 0.1);
}

static volatile sig_atomic_t g_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	g_usr1++;
}

/* A one-shot SIGUSR1 in 100 ms. */
static void usr1_soon(timer_t timer)
{
	struct itimerspec its;
	memset(&its, 0, sizeof its);
	its.it_value.tv_nsec = 100000000;
	timer_settime(timer, 0, &its, NULL);
}

static void interrupted(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;  /* none of these calls is restarted anyway */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SIGUSR1;
	timer_t timer;
	if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0)
		return;

	usr1_soon(timer);
	struct timespec req = { 30, 0 }, rem = { 0, 0 };
	int rc = nanosleep(&req, &rem);
	printf("nanosleep(30) = %d %s, time left: %s\n", rc, rc ? strerror(errno) : "",
	       rem.tv_sec > 20 ? "yes" : "no");

	usr1_soon(timer);
	rc = pause();
	printf("pause() = %d %s\n", rc, strerror(errno));

	usr1_soon(timer);
	rc = poll(NULL, 0, 30000);
	printf("poll(30 s) = %d %s\n", rc, rc ? strerror(errno) : "");

	sigset_t none;
	sigemptyset(&none);
	usr1_soon(timer);
	struct timespec long_wait = { 30, 0 };
	rc = ppoll(NULL, 0, &long_wait, &none);
	printf("ppoll(30 s, empty mask) = %d %s\n", rc, rc ? strerror(errno) : "");

	usr1_soon(timer);
	rc = sigsuspend(&none);
	printf("sigsuspend() = %d %s\n", rc, strerror(errno));
	printf("SIGUSR1 handled %d times\n", (int)g_usr1);
}

static void print_sigprof_blocked(const char *when)
{
	sigset_t cur;
	sigprocmask(SIG_BLOCK, NULL, &cur);
	printf("%s: SIGPROF %s\n", when, sigismember(&cur, SIGPROF) ? "blocked" : "not blocked");
}

static void masks(void)
{
	usleep(50000);
	print_sigprof_blocked("after usleep");
	sigset_t prof;
	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	sigprocmask(SIG_BLOCK, &prof, NULL);
	usleep(50000);
	print_sigprof_blocked("blocked by the program, after usleep");
	struct timespec req = { 0, 50000000 };
	nanosleep(&req, NULL);
	print_sigprof_blocked("blocked by the program, after nanosleep");
	sigprocmask(SIG_UNBLOCK, &prof, NULL);
	nanosleep(&req, NULL);
	print_sigprof_blocked("unblocked again, after nanosleep");
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "sleeps") == 0)
		napper();
	else if (argc > 1 && strcmp(argv[1], "interrupt") == 0)
		interrupted();
	else if (argc > 1 && strcmp(argv[1], "mask") == 0)
		masks();
	else
		return 2;
	return 0;
}
