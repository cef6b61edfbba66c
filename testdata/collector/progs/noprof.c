/* A transparent wrapper: main -> wrap -> target (3x), wrap -> helper.
 * With `wrap` noprofile, target and helper hang under main directly. */
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) static void target(void) { sink++; }
__attribute__((noinline)) static void helper(void) { sink++; }
__attribute__((noinline)) static void wrap(int n)
{
	for (int i = 0; i < n; i++)
		target();
	helper();
}

int main(void)
{
	wrap(3);
	wrap(1);
	target();
	printf("%d\n", sink);
	return 0;
}
