/* prog.c — the program tests/diff-*.t profile.  Built three ways:
 *   (default)   the baseline
 *   -DSLOW=8    target() does 8x its work: more inline loop (self time)
 *               and 8x the calls to step()
 *   -DEXTRA=1   main() calls helper() once more
 *   -DMOVED=1   steady() is called from target() instead of main()
 * Every function is a leaf except main and target, so a change shows up
 * exactly where it was made. */
#include <stdio.h>

#ifndef SLOW
#define SLOW 1
#endif
#ifndef EXTRA
#define EXTRA 0
#endif
#ifndef MOVED
#define MOVED 0
#endif
#ifndef SCALE
#define SCALE 10000000UL  /* inner iterations per unit of work */
#endif
#define NOINLINE __attribute__((noinline))

volatile unsigned long sink;

NOINLINE void step(void) { sink++; }

NOINLINE void helper(void)
{
	for (unsigned long i = 0; i < SCALE / 10; i++)
		sink += i;
}

NOINLINE void steady(void)
{
	for (unsigned long i = 0; i < 2 * SCALE; i++)
		sink += i * i;
}

NOINLINE void target(void)
{
	for (unsigned long i = 0; i < SLOW * SCALE; i++)
		sink += i * i;
	for (int k = 0; k < SLOW * 3; k++)
		step();
	if (MOVED)
		steady();
}

int main(void)
{
	for (int r = 0; r < 10; r++) {
		if (!MOVED)
			steady();
		target();
		helper();
	}
	for (int r = 0; r < EXTRA; r++)
		helper();
	printf("%lu\n", sink);
	return 0;
}
