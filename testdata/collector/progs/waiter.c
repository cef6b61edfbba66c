/* waiter: blocks in the waiting calls the collector wraps besides the
 * sleeps of napper.c (signal waits, epoll_pwait2, System V IPC), each in a
 * function of its own, and prints what each call returned, so a test can
 * compare a run under the collector with a plain run
 * (tests/collector-wall-waits.t).
 *
 *   waiter waits      every call blocks for 0.2-0.3 s and must come back
 *                     as it does without the collector (a timeout, the
 *                     signal, message or semaphore another thread posts);
 *                     zero timeouts and IPC_NOWAIT return at once
 *   waiter sigprof    the program blocks SIGPROF and waits for sets that
 *                     hold it: it must get only its own SIGPROFs (kill,
 *                     raise, its own timer), never the collector's ticks
 *   waiter interrupt  a SIGUSR1 timer interrupts each call: each must see
 *                     EINTR, as without the collector
 *
 * SIGUSR2 is blocked in every thread; the one-shot timers that send it
 * are what sigwaitinfo and sigwait wait for.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
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

/* rc, and errno's text when rc is -1. */
static void result(const char *call, long rc)
{
	printf("%s = %ld%s%s\n", call, rc, rc == -1 ? " " : "", rc == -1 ? strerror(errno) : "");
}

/* The set holds exactly the signals of `want` (a 0-terminated list). */
static void set_is(const char *what, const sigset_t *set, const int *want)
{
	int same = 1;
	for (int sig = 1; sig < NSIG; sig++) {
		int wanted = 0;
		for (const int *w = want; *w; w++)
			wanted |= *w == sig;
		if (sigismember(set, sig) != wanted)
			same = 0;
	}
	printf("%s unchanged: %s\n", what, same ? "yes" : "no");
}

static void make_set(sigset_t *set, const int *sigs)
{
	sigemptyset(set);
	for (; *sigs; sigs++)
		sigaddset(set, *sigs);
}

/* A one-shot signal to the process in `seconds`; value is its sival_int. */
static timer_t signal_in(int sig, int value, double seconds)
{
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = sig;
	ev.sigev_value.sival_int = value;
	timer_t timer;
	if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0) {
		perror("timer_create");
		exit(1);
	}
	struct itimerspec its;
	memset(&its, 0, sizeof its);
	its.it_value.tv_sec = (time_t)seconds;
	its.it_value.tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9);
	timer_settime(timer, 0, &its, NULL);
	return timer;
}

/* This thread's voluntary context switches: how often it slept. */
static long sleeps_so_far(void)
{
	FILE *f = fopen("/proc/thread-self/status", "r");
	char line[256];
	long n = -1;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

static const int usr2_only[] = { SIGUSR2, 0 };
static const struct timespec tenths3 = { 0, 300000000 };
static const struct timespec tenths2 = { 0, 200000000 };
static const struct timespec zero = { 0, 0 };

/* ---- waits ---------------------------------------------------------------- */

static void wait_sigtimedwait(void)
{
	sigset_t set;
	make_set(&set, usr2_only);
	double t = now();
	int rc = sigtimedwait(&set, NULL, &tenths3);
	result("sigtimedwait(USR2, 0.3 s)", rc);
	slept("sigtimedwait", t, 0.3);
	set_is("sigtimedwait's set", &set, usr2_only);
}

static void wait_sigwaitinfo(void)
{
	sigset_t set;
	make_set(&set, usr2_only);
	double t = now();
	timer_t timer = signal_in(SIGUSR2, 2, 0.3);
	siginfo_t si;
	memset(&si, 0, sizeof si);
	int rc = sigwaitinfo(&set, &si);
	result("sigwaitinfo(USR2), USR2 in 0.3 s", rc);
	printf("sigwaitinfo: SIGUSR2 from the timer: %s\n",
	       rc == SIGUSR2 && si.si_code == SI_TIMER && si.si_value.sival_int == 2 ? "yes" : "no");
	slept("sigwaitinfo", t, 0.3);
	timer_delete(timer);
}

static void wait_sigwait(void)
{
	sigset_t set;
	make_set(&set, usr2_only);
	double t = now();
	timer_t timer = signal_in(SIGUSR2, 3, 0.3);
	long before = sleeps_so_far();
	int sig = 0;
	int rc = sigwait(&set, &sig);
	long woke = sleeps_so_far() - before;
	printf("sigwait(USR2), USR2 in 0.3 s = %d, signal %s\n", rc,
	       sig == SIGUSR2 ? "SIGUSR2" : "other");
	slept("sigwait", t, 0.3);
	/* glibc's sigwait retries when a handler interrupts it, so a tick
	 * never made it fail; it would wake the thread once per tick
	 * though.  One sleep (and a few for the /proc read) is the plain
	 * run; 30 ticks at 100 Hz are far above 10. */
	printf("sigwait slept without waking up: %s\n", woke >= 0 && woke < 10 ? "yes" : "no");
	timer_delete(timer);
}

static void wait_epoll_pwait2(void)
{
	int ep = epoll_create1(0);
	struct epoll_event ev;
	sigset_t none;
	sigemptyset(&none);
	static const int nothing[] = { 0 };
	double t = now();
	int rc = epoll_pwait2(ep, &ev, 1, &tenths2, &none);
	result("epoll_pwait2(0.2 s, empty mask)", rc);
	slept("epoll_pwait2 with a mask", t, 0.2);
	set_is("epoll_pwait2's mask", &none, nothing);
	t = now();
	rc = epoll_pwait2(ep, &ev, 1, &tenths2, NULL);
	result("epoll_pwait2(0.2 s, no mask)", rc);
	slept("epoll_pwait2 without a mask", t, 0.2);
	close(ep);
}

struct msg8 {
	long type;
	char text[8];
};

/* What a helper thread does after 0.3 s, to end the main thread's wait. */
struct later {
	int id;
	enum { SEND, RECEIVE, POST } what;
};

static void *helper(void *arg)
{
	const struct later *l = arg;
	nanosleep(&tenths3, NULL);
	struct msg8 m = { 1, "ping" };
	struct sembuf up = { 0, 1, 0 };
	if (l->what == SEND)
		msgsnd(l->id, &m, sizeof m.text, 0);
	else if (l->what == RECEIVE)
		msgrcv(l->id, &m, sizeof m.text, 0, 0);
	else
		semop(l->id, &up, 1);
	return NULL;
}

static pthread_t later_do(struct later *l)
{
	pthread_t t;
	if (pthread_create(&t, NULL, helper, l) != 0) {
		fprintf(stderr, "pthread_create failed\n");
		exit(1);
	}
	return t;
}

static int queue(void)
{
	int q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	if (q < 0) {
		perror("msgget");
		exit(1);
	}
	return q;
}

static int semaphore(void)
{
	int s = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	if (s < 0) {
		perror("semget");
		exit(1);
	}
	return s;  /* Linux: a new semaphore is 0 */
}

/* The helper-thread waits block in functions of their own: the wait's
 * time must land there, not in the pthread_join that follows. */
static ssize_t in_msgrcv(int q, struct msg8 *m)
{
	return msgrcv(q, m, sizeof m->text, 0, 0);
}

static int in_msgsnd(int q, const struct msg8 *m)
{
	return msgsnd(q, m, sizeof m->text, 0);
}

static int in_semop(int s)
{
	struct sembuf down = { 0, -1, 0 };
	return semop(s, &down, 1);
}

static void wait_msgrcv(void)
{
	int q = queue();
	double t = now();
	struct later l = { q, SEND };
	pthread_t th = later_do(&l);
	struct msg8 m;
	memset(&m, 0, sizeof m);
	ssize_t rc = in_msgrcv(q, &m);
	result("msgrcv(), a message in 0.3 s", (long)rc);
	printf("msgrcv got: %s\n", rc > 0 ? m.text : "nothing");
	slept("msgrcv", t, 0.3);
	pthread_join(th, NULL);
	msgctl(q, IPC_RMID, NULL);
}

static void wait_msgsnd(void)
{
	int q = queue();
	/* Room for one message of 8 bytes: the second waits. */
	struct msqid_ds ds;
	msgctl(q, IPC_STAT, &ds);
	ds.msg_qbytes = 8;
	if (msgctl(q, IPC_SET, &ds) != 0)
		perror("msgctl IPC_SET");
	struct msg8 m = { 1, "full" };
	msgsnd(q, &m, sizeof m.text, 0);
	double t = now();
	struct later l = { q, RECEIVE };
	pthread_t th = later_do(&l);
	int rc = in_msgsnd(q, &m);
	result("msgsnd() to a full queue, room in 0.3 s", rc);
	slept("msgsnd", t, 0.3);
	pthread_join(th, NULL);
	msgctl(q, IPC_RMID, NULL);
}

static void wait_semop(void)
{
	int s = semaphore();
	double t = now();
	struct later l = { s, POST };
	pthread_t th = later_do(&l);
	int rc = in_semop(s);
	result("semop(-1), posted in 0.3 s", rc);
	slept("semop", t, 0.3);
	pthread_join(th, NULL);
	semctl(s, 0, IPC_RMID);
}

static void wait_semtimedop(void)
{
	int s = semaphore();
	double t = now();
	struct sembuf down = { 0, -1, 0 };
	int rc = semtimedop(s, &down, 1, &tenths3);
	result("semtimedop(-1, 0.3 s)", rc);
	slept("semtimedop", t, 0.3);
	semctl(s, 0, IPC_RMID);
}

/* Calls that cannot wait: passed straight through. */
static void no_waits(void)
{
	sigset_t set;
	make_set(&set, usr2_only);
	result("sigtimedwait(USR2, 0 s)", sigtimedwait(&set, NULL, &zero));
	int ep = epoll_create1(0);
	struct epoll_event ev;
	result("epoll_pwait2(0 s)", epoll_pwait2(ep, &ev, 1, &zero, NULL));
	close(ep);
	int q = queue();
	struct msg8 m;
	result("msgrcv(IPC_NOWAIT)", (long)msgrcv(q, &m, sizeof m.text, 0, IPC_NOWAIT));
	msgctl(q, IPC_RMID, NULL);
	int s = semaphore();
	struct sembuf down = { 0, -1, IPC_NOWAIT };
	result("semop(-1, IPC_NOWAIT)", semop(s, &down, 1));
	down.sem_flg = 0;
	result("semtimedop(-1, 0 s)", semtimedop(s, &down, 1, &zero));
	semctl(s, 0, IPC_RMID);
}

static void waits(void)
{
	wait_sigtimedwait();
	wait_sigwaitinfo();
	wait_sigwait();
	wait_epoll_pwait2();
	wait_msgrcv();
	wait_msgsnd();
	wait_semop();
	wait_semtimedop();
	no_waits();
}

/* ---- the program waits for SIGPROF itself ----------------------------- */

static const int prof_usr2[] = { SIGPROF, SIGUSR2, 0 };
static const int prof_only[] = { SIGPROF, 0 };

static const char *code_name(int code)
{
	return code == SI_TIMER ? "SI_TIMER" : code == SI_USER ? "SI_USER" : "other";
}

static void take_sigwaitinfo(void)
{
	sigset_t set;
	make_set(&set, prof_usr2);
	double t = now();
	timer_t timer = signal_in(SIGUSR2, 4, 0.3);
	siginfo_t si;
	int rc = sigwaitinfo(&set, &si);
	printf("sigwaitinfo(PROF USR2), USR2 in 0.3 s = %s\n",
	       rc == SIGUSR2 ? "SIGUSR2" : rc == SIGPROF ? "SIGPROF" : "other");
	slept("sigwaitinfo", t, 0.3);
	set_is("sigwaitinfo's set", &set, prof_usr2);
	timer_delete(timer);
}

static void take_sigtimedwait(void)
{
	sigset_t set;
	make_set(&set, prof_usr2);
	double t = now();
	siginfo_t si;
	int rc = sigtimedwait(&set, &si, &tenths3);
	result("sigtimedwait(PROF USR2, 0.3 s)", rc);
	slept("sigtimedwait", t, 0.3);
	set_is("sigtimedwait's set", &set, prof_usr2);

	/* The largest timeout, a program's "for ever". */
	struct timespec ever = { (time_t)(~0ULL >> 1), 999999999 };
	t = now();
	timer_t timer = signal_in(SIGUSR2, 6, 0.2);
	rc = sigtimedwait(&set, &si, &ever);
	printf("sigtimedwait(PROF USR2, largest timeout), USR2 in 0.2 s = %s\n",
	       rc == SIGUSR2 ? "SIGUSR2" : rc == SIGPROF ? "SIGPROF" : "other");
	slept("sigtimedwait for ever", t, 0.2);
	timer_delete(timer);
}

static void take_sigwait(void)
{
	sigset_t set;
	make_set(&set, prof_usr2);
	double t = now();
	timer_t timer = signal_in(SIGUSR2, 5, 0.3);
	int sig = 0;
	int rc = sigwait(&set, &sig);
	printf("sigwait(PROF USR2), USR2 in 0.3 s = %d, %s\n", rc,
	       sig == SIGUSR2 ? "SIGUSR2" : sig == SIGPROF ? "SIGPROF" : "other");
	slept("sigwait", t, 0.3);
	timer_delete(timer);
}

/* The program's own SIGPROFs still come through, told apart from ticks. */
static void own_sigprofs(void)
{
	sigset_t set;
	make_set(&set, prof_only);
	timer_t timer = signal_in(SIGPROF, 42, 0.3);
	siginfo_t si;
	memset(&si, 0, sizeof si);
	int rc = sigwaitinfo(&set, &si);
	printf("sigwaitinfo(PROF), its own SIGPROF timer in 0.3 s = %s %s value %d\n",
	       rc == SIGPROF ? "SIGPROF" : "other", code_name(si.si_code),
	       si.si_value.sival_int);
	timer_delete(timer);

	kill(getpid(), SIGPROF);
	memset(&si, 0, sizeof si);
	rc = sigtimedwait(&set, &si, &tenths3);
	printf("sigtimedwait(PROF, 0.3 s) after kill = %s %s from itself %s\n",
	       rc == SIGPROF ? "SIGPROF" : "other", code_name(si.si_code),
	       si.si_pid == getpid() ? "yes" : "no");

	raise(SIGPROF);
	int sig = 0;
	rc = sigwait(&set, &sig);
	printf("sigwait(PROF) after raise = %d %s\n", rc, sig == SIGPROF ? "SIGPROF" : "other");

	/* A tick that fell due while SIGPROF was blocked is no signal of the
	 * program's: a poll for one finds nothing. */
	nanosleep(&tenths2, NULL);
	rc = sigtimedwait(&set, &si, &zero);
	result("sigtimedwait(PROF, 0 s) after 0.2 s", rc);
	set_is("the set", &set, prof_only);
}

static void sigprof(void)
{
	sigset_t block;
	make_set(&block, prof_usr2);
	sigprocmask(SIG_BLOCK, &block, NULL);
	take_sigwaitinfo();
	take_sigtimedwait();
	take_sigwait();
	own_sigprofs();
	sigset_t cur;
	sigprocmask(SIG_BLOCK, NULL, &cur);
	printf("SIGPROF still blocked: %s\n", sigismember(&cur, SIGPROF) ? "yes" : "no");
}

/* ---- interrupted by another signal ------------------------------------ */

static volatile sig_atomic_t g_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	g_usr1++;
}

static void interrupted(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;  /* none of these calls is restarted anyway */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigset_t set;
	make_set(&set, usr2_only);
	struct timespec long_wait = { 30, 0 };

	timer_t timer = signal_in(SIGUSR1, 0, 0.1);
	result("sigtimedwait(USR2, 30 s)", sigtimedwait(&set, NULL, &long_wait));
	timer_delete(timer);

	timer = signal_in(SIGUSR1, 0, 0.1);
	result("sigwaitinfo(USR2)", sigwaitinfo(&set, NULL));
	timer_delete(timer);

	int ep = epoll_create1(0);
	struct epoll_event ev;
	sigset_t none;
	sigemptyset(&none);
	timer = signal_in(SIGUSR1, 0, 0.1);
	result("epoll_pwait2(30 s, empty mask)", epoll_pwait2(ep, &ev, 1, &long_wait, &none));
	timer_delete(timer);
	close(ep);

	int q = queue();
	struct msg8 m = { 1, "full" };
	timer = signal_in(SIGUSR1, 0, 0.1);
	result("msgrcv() of an empty queue", (long)msgrcv(q, &m, sizeof m.text, 0, 0));
	timer_delete(timer);
	struct msqid_ds ds;
	msgctl(q, IPC_STAT, &ds);
	ds.msg_qbytes = 8;
	msgctl(q, IPC_SET, &ds);
	msgsnd(q, &m, sizeof m.text, 0);
	timer = signal_in(SIGUSR1, 0, 0.1);
	result("msgsnd() to a full queue", msgsnd(q, &m, sizeof m.text, 0));
	timer_delete(timer);
	msgctl(q, IPC_RMID, NULL);

	int s = semaphore();
	struct sembuf down = { 0, -1, 0 };
	timer = signal_in(SIGUSR1, 0, 0.1);
	result("semop(-1) of 0", semop(s, &down, 1));
	timer_delete(timer);
	timer = signal_in(SIGUSR1, 0, 0.1);
	result("semtimedop(-1, 30 s) of 0", semtimedop(s, &down, 1, &long_wait));
	timer_delete(timer);
	semctl(s, 0, IPC_RMID);
	printf("SIGUSR1 handled %d times\n", (int)g_usr1);
}

int main(int argc, char **argv)
{
	sigset_t usr2;
	make_set(&usr2, usr2_only);
	sigprocmask(SIG_BLOCK, &usr2, NULL);
	if (argc > 1 && strcmp(argv[1], "waits") == 0)
		waits();
	else if (argc > 1 && strcmp(argv[1], "sigprof") == 0)
		sigprof();
	else if (argc > 1 && strcmp(argv[1], "interrupt") == 0)
		interrupted();
	else
		return 2;
	return 0;
}
