/* A leaf that longjmps out of itself leaves its shadow frame at the very
 * depth where its caller's next call lands: that call, from another call
 * site, must hang under the caller and not under the leaf, every time
 * (the enter hook repairs this only when it finds no cached child, so the
 * loop checks that the repair never lets the leaf's context become the
 * cached one).  Also a longjmp out of a direct recursion. */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
static volatile int sink;

__attribute__((noinline)) static void thrower(void) { longjmp(env, 1); }
__attribute__((noinline)) static void next(void) { sink++; }
__attribute__((noinline)) static void other(void) { sink++; }

__attribute__((noinline)) static void catcher(void)
{
	for (volatile int i = 0; i < 4; i++) {
		if (setjmp(env) == 0)
			thrower();
		next();
		other();
	}
}

static jmp_buf env_rec;

__attribute__((noinline)) static void dive(int n)
{
	if (n == 0)
		longjmp(env_rec, 1);
	dive(n - 1);
}

__attribute__((noinline)) static void diver(void)
{
	for (volatile int i = 0; i < 3; i++) {
		if (setjmp(env_rec) == 0)
			dive(5);
		next();
	}
}

int main(void)
{
	catcher();
	diver();
	next();
	printf("%d\n", sink);
	return 0;
}
