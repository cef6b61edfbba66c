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

int main(void)
{
	for (int i = 0; i < 2; i++)
		outer();
	after();
	printf("%d\n", sink);
	return 0;
}
