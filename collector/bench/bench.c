/*
 * bench.c — call-heavy workloads for comparing the cost per call of
 * profilers: naive fib, in-order walks of a random binary search tree
 * (NULL children visited too), and glibc qsort with a comparison callback.
 * Prints, per phase, the number of instrumented calls and the thread CPU
 * time in nanoseconds (CPU time: this machine is shared, and CPU time
 * leaves out the time we are descheduled).
 *
 * Every function is noinline, and KEEP stops gcc from turning a self-call
 * into a loop in the plain build only, so every build makes the same calls.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))
#define KEEP(x) __asm__ volatile("" : "+r"(x))

static long scale(const char *name, long def)
{
	const char *s = getenv(name);
	return s && *s ? strtol(s, NULL, 10) : def;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

NOINLINE static long fib(long n)
{
	if (n < 2)
		return n;
	long a = fib(n - 1);
	KEEP(a);
	long b = fib(n - 2);
	KEEP(b);
	return a + b;
}

struct tnode {
	struct tnode *left, *right;
	uint32_t key;
};

NOINLINE static struct tnode *insert(struct tnode *root, struct tnode *n)
{
	struct tnode **p = &root;
	while (*p)
		p = n->key < (*p)->key ? &(*p)->left : &(*p)->right;
	*p = n;
	return root;
}

NOINLINE static uint64_t walk(const struct tnode *t)
{
	if (!t)
		return 0;
	uint64_t s = walk(t->left);
	KEEP(s);
	s += t->key;
	uint64_t r = walk(t->right);
	KEEP(r);
	return s + r;
}

static uint64_t ncompare;

NOINLINE static int compare(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	ncompare++;
	return (x > y) - (x < y);
}

static uint32_t rng = 2463534242u;

static uint32_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

int main(void)
{
	long fib_n = scale("BENCH_FIB", 30);
	long tree_n = scale("BENCH_TREE", 1 << 16), walks = scale("BENCH_WALKS", 10);
	long sort_n = scale("BENCH_SORT", 1 << 18);

	uint64_t t0 = cpu_ns();
	volatile long f = fib(fib_n);
	uint64_t t1 = cpu_ns();
	/* fib(n) makes 2 fib(n+1) - 1 calls */
	long a = 0, b = 1;
	for (long i = 0; i < fib_n + 1; i++) {
		long c = a + b;
		a = b;
		b = c;
	}
	printf("fib %ld %llu\n", 2 * a - 1, (unsigned long long)(t1 - t0));
	(void)f;

	struct tnode *nodes = calloc((size_t)tree_n, sizeof *nodes), *root = NULL;
	for (long i = 0; i < tree_n; i++) {
		nodes[i].key = next_random();
		root = insert(root, &nodes[i]);
	}
	t0 = cpu_ns();
	volatile uint64_t sum = 0;
	for (long i = 0; i < walks; i++)
		sum += walk(root);
	t1 = cpu_ns();
	printf("tree %ld %llu\n", walks * (2 * tree_n + 1), (unsigned long long)(t1 - t0));

	uint32_t *v = malloc((size_t)sort_n * sizeof *v);
	for (long i = 0; i < sort_n; i++)
		v[i] = next_random();
	t0 = cpu_ns();
	qsort(v, (size_t)sort_n, sizeof *v, compare);
	t1 = cpu_ns();
	printf("qsort %llu %llu\n", (unsigned long long)ncompare, (unsigned long long)(t1 - t0));
	free(v);
	free(nodes);
	return 0;
}
