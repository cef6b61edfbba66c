/* recurse.c — even() and odd() call each other (a cycle); -DMOVE moves
 * the work done in the cycle from odd() to even() (same total), -DDEEP
 * recurses deeper (more calls). */
#include <stdio.h>

#ifndef DEPTH
#define DEPTH 21
#endif
#define NOINLINE __attribute__((noinline))

volatile unsigned long sink;

NOINLINE void tick(void) { sink++; }
NOINLINE void odd(int n);

NOINLINE void even(int n)
{
#ifdef MOVE
	tick();
	tick();
#endif
	if (n > 0)
		odd(n - 1);
}

NOINLINE void odd(int n)
{
#ifndef MOVE
	tick();
	tick();
#endif
	if (n > 0)
		even(n - 1);
}

int main(void)
{
	even(DEPTH);
	printf("%lu\n", sink);
	return 0;
}
