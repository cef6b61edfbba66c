/* fork: the parent calls before() twice, forks; the child calls in_child()
 * 4 times and exits; the parent calls in_parent() once after waiting.
 * The child's profile holds only its own calls. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) static void before(void) { sink++; }
__attribute__((noinline)) static void in_child(void) { sink++; }
__attribute__((noinline)) static void in_parent(void) { sink++; }

__attribute__((noinline)) static void spawn(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 4; i++)
			in_child();
		exit(0);
	}
	waitpid(pid, NULL, 0);
}

int main(void)
{
	before();
	before();
	spawn();
	in_parent();
	printf("%d\n", sink);
	return 0;
}
