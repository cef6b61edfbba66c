/* Known call counts: main -> a (3x), a -> leaf (2x each), main -> b (1x),
 * b -> leaf (5x). */
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) static void leaf(int i) { sink += i; }

__attribute__((noinline)) static void a(void)
{
	leaf(1);
	leaf(2);
}

__attribute__((noinline)) static void b(void)
{
	for (int i = 0; i < 5; i++)
		leaf(i);
}

int main(void)
{
	for (int i = 0; i < 3; i++)
		a();
	b();
	printf("%d\n", sink);
	return 0;
}
