/* Line-level test program: inline functions from a header used by two
 * units, a static inline, a noinline worker; built -O0 and -O2. */
#include <stdio.h>
#include <stdlib.h>
#include "helper.h"
static inline int sq(int x) { return x * x; }
static int __attribute__((noinline)) work(int n)
{
	int s = 0, i;
	for (i = 0; i < n; i++)
		s += sq(i) % 7 + helper(i);
	return s;
}
int main(int argc, char **argv)
{
	long t = 0;
	int n = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 3000, k;
	for (k = 0; k < n; k++)
		t += work(k) + other(k);
	printf("%ld\n", t);
	return 0;
}
