/* Recursion of three shapes: direct (fact), mutual (is_even/is_odd) and
 * three-way (ra -> rb -> rc -> ra). */
#include <stdio.h>

__attribute__((noinline)) static int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

static int is_odd(int n);
__attribute__((noinline)) static int is_even(int n) { return n == 0 ? 1 : is_odd(n - 1); }
__attribute__((noinline)) static int is_odd(int n) { return n == 0 ? 0 : is_even(n - 1); }

static int rb(int n);
static int rc(int n);
__attribute__((noinline)) static int ra(int n) { return n <= 0 ? 0 : 1 + rb(n - 1); }
__attribute__((noinline)) static int rb(int n) { return n <= 0 ? 0 : 1 + rc(n - 1); }
__attribute__((noinline)) static int rc(int n) { return n <= 0 ? 0 : 1 + ra(n - 1); }

int main(void)
{
	int f = fact(5);
	int e = is_even(4);
	int r = ra(6);
	printf("%d %d %d\n", f, e, r);
	return 0;
}
