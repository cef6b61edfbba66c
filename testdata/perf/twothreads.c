/* twothreads.c: the main thread and two workers each burn CPU in their
 * own function, so a perf profile has three threads to tell apart. */
#include <pthread.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void burn(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline)) static void *worker(void *arg)
{
	burn((unsigned long)arg);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(60000000ul * (unsigned long)(i + 1)));
	burn(30000000);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
