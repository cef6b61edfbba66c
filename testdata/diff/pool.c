/* pool.c — a thread pool whose main thread polls for completion: the
 * number of calls of queue_full() and is_done() depends on scheduling and
 * changes from run to run, even in calls mode.  Everything else is fixed:
 * job() runs JOBS times, checksum() once.
 *   -DEXTRA=1   checksum() also calls job() once more (a real change)
 *   -DDROP=1    checksum() is gone (a function a rule names vanishes)
 *   -DLONG=1    adds a function with a 90-character name */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))
#define JOBS 200
#define WORKERS 2
#ifndef EXTRA
#define EXTRA 0
#endif

static atomic_int next_job, done_jobs;
volatile unsigned long sink;

NOINLINE void job(int n)
{
	for (int i = 0; i < 20000 + n; i++)
		sink += (unsigned long)i * (unsigned long)n;
}

NOINLINE int queue_full(void) { return atomic_load(&next_job) - atomic_load(&done_jobs) > 4; }

NOINLINE int is_done(void) { return atomic_load(&done_jobs) >= JOBS; }

NOINLINE void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		int n = atomic_fetch_add(&next_job, 1);
		if (n >= JOBS)
			return NULL;
		job(n);
		atomic_fetch_add(&done_jobs, 1);
		while (queue_full())
			sched_yield();
	}
}

#ifndef DROP
NOINLINE unsigned long checksum(void)
{
	for (int r = 0; r < EXTRA; r++)
		job(r);
	return sink;
}
#endif

#ifdef LONG
NOINLINE void a_function_whose_name_is_far_too_long_for_any_eighty_column_table_that_cuts_names(void)
{
	sink++;
}
#endif

int main(void)
{
	pthread_t t[WORKERS];
	for (int i = 0; i < WORKERS; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	while (!is_done())
		;   /* busy polling: the call count follows the workers' speed */
	for (int i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
#ifdef LONG
	a_function_whose_name_is_far_too_long_for_any_eighty_column_table_that_cuts_names();
#endif
#ifndef DROP
	printf("%lu\n", checksum());
#else
	printf("%lu\n", sink);
#endif
	return 0;
}
