/* threads.c — two threads calling work(); -DSHIFT=N moves N calls of
 * work() from the main thread to the other one (same total). */
#include <pthread.h>
#include <stdio.h>

#ifndef SHIFT
#define SHIFT 0
#endif
#define NOINLINE __attribute__((noinline))

volatile unsigned long sink;

NOINLINE void work(void) { sink++; }

NOINLINE void *worker(void *arg)
{
	for (long i = 0, n = (long)arg; i < n; i++)
		work();
	return NULL;
}

int main(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, worker, (void *)(long)(10 + SHIFT)))
		return 1;
	pthread_join(t, NULL);
	worker((void *)(long)(20 - SHIFT));
	return 0;
}
