/* Two worker threads with different known call counts; main calls
 * main_only once.  One tree per thread. */
#include <pthread.h>
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) static void tick(void) { sink++; }
__attribute__((noinline)) static void main_only(void) { tick(); }

__attribute__((noinline)) static void *worker(void *arg)
{
	long n = (long)arg;
	for (long i = 0; i < n; i++)
		tick();
	return NULL;
}

int main(void)
{
	pthread_t t;
	/* One thread after the other, so thread numbering is deterministic. */
	pthread_create(&t, NULL, worker, (void *)3L);
	pthread_join(t, NULL);
	pthread_create(&t, NULL, worker, (void *)7L);
	pthread_join(t, NULL);
	main_only();
	printf("%d\n", sink);
	return 0;
}
