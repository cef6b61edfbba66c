/* longjmp out of two instrumented frames, then more calls: after the jump
 * `after` must hang under main's `outer`, not under `deep`. */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
static volatile int sink;

__attribute__((noinline)) static void deep(void) { longjmp(env, 1); }
__attribute__((noinline)) static void middle(void) { deep(); sink++; }
__attribute__((noinline)) static void after(void) { sink++; }

__attribute__((noinline)) static void outer(void)
{
	if (setjmp(env) == 0)
		middle();
	after();
	after();
}

/* A function that longjmps out of itself and is called again from the
 * same call site at the same stack depth: not recursion. */
static jmp_buf env2;

__attribute__((noinline)) static void thrower(int i)
{
	if (i < 3)
		longjmp(env2, 1);
	sink++;
}

__attribute__((noinline)) static void again(void)
{
	for (volatile int i = 0; i < 5; i++)
		if (setjmp(env2) == 0)
			thrower(i);
}

int main(void)
{
	again();
	for (int i = 0; i < 2; i++)
		outer();
	after();
	printf("%d\n", sink);
	return 0;
}
