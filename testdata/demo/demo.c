/* demo.c — the built-in example of `make demo`.
 *
 * work() is called once from easy() with a tiny job and once from hard()
 * with a big one.  gprof splits work()'s time between them in proportion
 * to call counts (50/50); a calling-context profile knows hard() did it
 * all.  fib() shows direct recursion, ping()/pong() a two-function cycle. */
#include <stdio.h>

static volatile unsigned long sink;

static void work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

static void easy(void) { work(1000); }
static void hard(void) { work(100000000UL); }

static unsigned long fib(int n)
{
	return n < 2 ? (unsigned long)n : fib(n - 1) + fib(n - 2);
}

static int pong(int n);
static int ping(int n) { return n <= 0 ? 0 : 1 + pong(n - 1); }
static int pong(int n) { return n <= 0 ? 0 : 1 + ping(n - 1); }

int main(void)
{
	easy();
	hard();
	unsigned long f = fib(27);
	int p = 0;
	for (int i = 0; i < 2000; i++)
		p += ping(100);
	printf("fib(27) = %lu, ping = %d\n", f, p);
	return 0;
}
