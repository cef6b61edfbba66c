/* A hot loop in a function inlined into main (built -O2): its enter and
 * exit hooks stay, so the ticks are charged to hot() while the addresses
 * are main's.  The line-level profile must still put them on hot()'s loop
 * lines, which DWARF knows as an inlined copy of hot()
 * (tests/collector-lines.t). */
#include <stdio.h>
#include <stdlib.h>

static inline __attribute__((always_inline)) unsigned long hot(unsigned long n)
{
	unsigned long b = 1;
	for (unsigned long i = 0; i < n; i++)       /* LOOP */
		b = b * 6364136223846793005ul + i;  /* LOOP */
	return b;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 300000000ul;
	printf("%lu\n", hot(n));
	return 0;
}
