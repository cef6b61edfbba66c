/* A direct recursion as deep as argv[1], in a thread whose stack has room
 * for it: the shadow stack's capacity (2^20 frames, the bottom one a
 * sentinel) is reached at a known depth.  Prints the depth reached. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static long deep(long n) { return n <= 1 ? n : 1 + deep(n - 1); }

static void *worker(void *arg)
{
	printf("%ld\n", deep(*(long *)arg));
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10;
	pthread_attr_t attr;
	pthread_t t;
	if (pthread_attr_init(&attr) != 0 || pthread_attr_setstacksize(&attr, (size_t)256 << 20) != 0 ||
	    pthread_create(&t, &attr, worker, &n) != 0)
		return 1;
	pthread_join(t, NULL);
	return 0;
}
