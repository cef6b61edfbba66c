/*
 * vgprog.c — a small program for the Callgrind reader tests: a wrapper
 * called from two callers with different loads, direct recursion, mutual
 * recursion, and code inlined from a header (fi=/fe= lines).  Output is
 * the same on every run; the call counts are known from the code.
 */
#include <stdio.h>
#include "vgprog_inline.h"

static volatile long sink;

__attribute__((noinline)) static long work(int n)
{
	long x = 1;
	for (int i = 0; i < n; i++)
		x = mix(x, i);
	return x;
}

__attribute__((noinline)) long wrapper(int n)
{
	return work(n);
}

__attribute__((noinline)) void light(void)
{
	for (int i = 0; i < 10; i++)       /* 10 calls */
		sink += wrapper(100);
}

__attribute__((noinline)) void heavy(void)
{
	for (int i = 0; i < 30; i++)       /* 30 calls */
		sink += wrapper(1000);
}

__attribute__((noinline)) int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) int is_odd(int n);

__attribute__((noinline)) int is_even(int n)
{
	return n == 0 ? 1 : is_odd(n - 1);
}

__attribute__((noinline)) int is_odd(int n)
{
	return n == 0 ? 0 : is_even(n - 1);
}

int main(void)
{
	light();
	heavy();
	sink += fib(15);
	sink += is_even(40);
	printf("%ld\n", (long)sink != 0);
	return 0;
}
