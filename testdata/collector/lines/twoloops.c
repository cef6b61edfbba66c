/* Two hot loops in one function, the second doing three times the
 * iterations of the same body: a line-level profile must put about three
 * quarters of work()'s self time on the second loop's lines
 * (tests/collector-lines.t).  The loop lines are found by their
 * LOOP markers, not by number. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

static unsigned long work(unsigned long n)
{
	unsigned long a = 1, b = 1;
	for (unsigned long i = 0; i < n; i++)       /* LOOP1 */
		a = a * 6364136223846793005ul + i;  /* LOOP1 */
	for (unsigned long i = 0; i < 3 * n; i++)   /* LOOP2 */
		b = b * 6364136223846793005ul + i;  /* LOOP2 */
	return a ^ b;
}

static void *worker(void *arg)
{
	sink = work(*(unsigned long *)arg);
	return NULL;
}

/* twoloops [N [THREADS]]: work(N) in main, or in THREADS threads at once. */
int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 50000000ul;
	int threads = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 0;
	pthread_t t[8];
	if (threads > 8)
		threads = 8;
	if (threads <= 0)
		sink = work(n);
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, &n);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("%lu\n", (unsigned long)sink);
	return 0;
}
