/* Fan-out beyond the child list (more than 8 children: the per-parent
 * table) with a cyclic pattern that defeats the 1-entry cache: main calls
 * f00..f19 in turn, 5 rounds; f07 also calls f00..f19 once per call. */
#include <stdio.h>

static volatile int sink;
static void (*const table[20])(void);

#define F(n) __attribute__((noinline)) static void f##n(void) { sink++; }
F(00) F(01) F(02) F(03) F(04) F(05) F(06) F(08) F(09)
F(10) F(11) F(12) F(13) F(14) F(15) F(16) F(17) F(18) F(19)

__attribute__((noinline)) static void f07(void)
{
	for (int i = 0; i < 20; i++)
		if (i != 7)
			table[i]();
}

static void (*const table[20])(void) = {
	f00, f01, f02, f03, f04, f05, f06, f07, f08, f09,
	f10, f11, f12, f13, f14, f15, f16, f17, f18, f19,
};

int main(void)
{
	for (int round = 0; round < 5; round++)
		for (int i = 0; i < 20; i++)
			table[i]();
	printf("%d\n", sink);
	return 0;
}
