#include <stdio.h>
static volatile double sink;
static double work(int n)
{
	double a = 0, b = 1;
	for (int i = 0; i < n; i++) {
		a += i * 0.5;
		b *= 1.0000001;
		if (i % 7 == 0)
			a -= b / 3.0;
		a = a * 0.999 + b;
	}
	return a;
}
static double other(int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += (i & 3) ? i * 1.5 : i / 2.0;
	return s;
}
int main(int argc, char **argv)
{
	for (int r = 0; r < (argc > 1 ? 120 : 40); r++) {  /* any argument: longer, so every line gets samples */
		sink = work(1000000);
		sink += other(2000000);
		other(100);
	}
	printf("%g\n", sink);
	return 0;
}
