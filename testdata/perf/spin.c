/* spin.c: a small CPU-bound program for the perf tests: hot() and warm()
 * are called both from main() and from through(), so the call chains have
 * two shapes. */
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void hot(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

__attribute__((noinline)) static void warm(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink ^= i;
}

__attribute__((noinline)) static void through(unsigned long n)
{
	hot(n);
	warm(n);
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
	for (unsigned long r = 0; r < rounds; r++) {
		hot(300000);
		warm(200000);
		through(300000);
	}
	return (int)(sink & 1);
}
