/* The easy/hard example: main calls easy() and hard() once each; both call
 * work(), easy with a cheap argument (1 step), hard with an expensive one
 * (999 steps).  gprof splits work's time 50/50 between them because the
 * call counts are equal; the call tree knows easy costs ~0% of it. */
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) static void step(long i) { sink += i; }

__attribute__((noinline)) static void work(long n)
{
	for (long i = 0; i < n; i++)
		step(i);
}

__attribute__((noinline)) static void easy(void) { work(1); }
__attribute__((noinline)) static void hard(void) { work(999); }

int main(void)
{
	easy();
	hard();
	printf("%ld\n", sink);
	return 0;
}
