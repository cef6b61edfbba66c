/* Every way a run can end.  `ends MODE [ARG]` first makes known calls
 * (work() 3 times, each calling leaf() twice), then:
 *   exit N | return | _exit N | _Exit N | abort | segv | fpe | ill | bus
 *   wait FILE     create FILE, then sleep in waiting() until a signal
 *   handler FILE  install its own SIGTERM handler (sigaction), create FILE,
 *                 wait; the handler counts in on_term(), main returns 7
 *   sighandler FILE  the same with signal()
 *   spin FILE     create FILE, then call spin_leaf() forever
 *   exec PROG ARGS... : execv PROG (after the known calls)
 *   forkexec PROG ARGS... : fork; the child execs PROG; the parent waits
 *   vfork         vfork; the child calls in_child() twice and _exit(0)
 *   query         signal(SIGTERM) returns what sigaction set before (prints ok)
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;
static volatile sig_atomic_t got_term;

__attribute__((noinline)) static void leaf(void) { sink++; }
__attribute__((noinline)) static void work(void) { leaf(); leaf(); }
__attribute__((noinline)) static void spin_leaf(void) { sink++; }
__attribute__((noinline)) static void in_child(void) { sink++; }
__attribute__((noinline)) static void after_signal(void) { sink++; }

__attribute__((noinline)) static void on_term(int sig)
{
	(void)sig;
	got_term = 1;
}

static void ready(const char *file)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		close(fd);
}

__attribute__((noinline)) static void waiting(void)
{
	while (!got_term)
		pause();
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	const char *m = argv[1];
	const char *arg = argc > 2 ? argv[2] : "0";
	for (int i = 0; i < 3; i++)
		work();
	if (!strcmp(m, "exit"))
		exit((int)strtol(arg, NULL, 10));
	if (!strcmp(m, "return"))
		return 0;
	if (!strcmp(m, "_exit"))
		_exit((int)strtol(arg, NULL, 10));
	if (!strcmp(m, "_Exit"))
		_Exit((int)strtol(arg, NULL, 10));
	if (!strcmp(m, "abort"))
		abort();
	if (!strcmp(m, "segv")) {
		volatile int *p = (volatile int *)(uintptr_t)16;
		*p = 1;
	}
	if (!strcmp(m, "fpe")) {
		volatile int z = 0;
		sink = 100 / z;  /* not 1 / z: gcc computes that without dividing */
	}
	if (!strcmp(m, "ill"))
		__builtin_trap();
	if (!strcmp(m, "bus")) {
		FILE *f = tmpfile();
		volatile char *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fileno(f), 0);
		sink = p[0];
	}
	if (!strcmp(m, "wait")) {
		ready(arg);
		waiting();
		return 0;
	}
	if (!strcmp(m, "handler") || !strcmp(m, "sighandler")) {
		if (m[0] == 'h') {
			struct sigaction sa;
			memset(&sa, 0, sizeof sa);
			sa.sa_handler = on_term;
			sigemptyset(&sa.sa_mask);
			sigaction(SIGTERM, &sa, NULL);
		} else {
			signal(SIGTERM, on_term);
		}
		ready(arg);
		waiting();
		after_signal();
		return 7;
	}
	if (!strcmp(m, "spin")) {
		ready(arg);
		for (;;)
			spin_leaf();
	}
	if (!strcmp(m, "exec") && argc > 2) {
		execv(argv[2], argv + 2);
		return 127;
	}
	if (!strcmp(m, "forkexec") && argc > 2) {
		pid_t pid = fork();
		if (pid == 0) {
			execv(argv[2], argv + 2);
			_exit(127);
		}
		int st;
		waitpid(pid, &st, 0);
		return WIFEXITED(st) ? WEXITSTATUS(st) : 99;
	}
	if (!strcmp(m, "vfork")) {
		pid_t pid = vfork();
		if (pid == 0) {
			in_child();
			in_child();
			_exit(0);
		}
		int st;
		waitpid(pid, &st, 0);
		return 0;
	}
	if (!strcmp(m, "query")) {
		struct sigaction sa, old;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_term;
		sigaction(SIGTERM, &sa, NULL);
		sighandler_t prev = signal(SIGTERM, SIG_DFL);
		sigaction(SIGTERM, NULL, &old);
		printf("%s\n", prev == on_term && old.sa_handler == SIG_DFL ? "ok" : "wrong");
		return 0;
	}
	return 2;
}
