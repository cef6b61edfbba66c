#include "helper.h"
static int table[64];
static int fill(int n) { int i; for (i = 0; i < 64; i++) table[i] = helper(i + n); return table[n & 63]; }
int other(int n)
{
	int s = 0, i;
	for (i = 0; i < n; i++)
		s += fill(i) + helper(s);
	return s;
}
