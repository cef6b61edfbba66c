/*
 * gen.c — writes two related profiles of N functions for the cgdiff
 * benchmark: base.xml and new.xml (the same program with ~1% of the
 * functions slower and a few extra calls), through the model API and the
 * XML writer.  Also times cg_diff_new + cg_diff_check alone.
 *
 *   gen N OUTDIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "callgraph.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static cg_profile *make(size_t n, int changed)
{
	cg_profile *p;
	if (cg_profile_new(&p))
		exit(3);
	cg_profile_add_event(p, "samples", "histogram samples", 0.01);
	for (size_t i = 0; i < n; i++) {
		char name[32], file[32];
		snprintf(name, sizeof name, "fn_%zu", i);
		snprintf(file, sizeof file, "src/mod%zu.c", i / 100);
		cg_fid f;
		cg_profile_intern_function(p, name, "prog", file, &f);
	}
	rng = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < n; i++) {
		cg_cost self = (cg_cost)(next() % 1000);
		if (changed && i % 97 == 0)
			self = self * 3 + 100;
		cg_profile_add_self(p, 0, (cg_fid)i, &self);
		/* each function is called from 1..3 functions before it, plus a
		 * back edge now and then (cycles) */
		for (int k = 0, m = 1 + (int)(next() % 3); k < m && i > 0; k++) {
			uint64_t count = 1 + next() % 50;
			if (changed && i % 101 == 0)
				count++;
			cg_profile_add_arc(p, 0, (cg_fid)(next() % i), (cg_fid)i, count, NULL, NULL);
		}
		if (i > 10 && next() % 50 == 0)
			cg_profile_add_arc(p, 0, (cg_fid)i, (cg_fid)(i - 1 - next() % 10), 1, NULL, NULL);
	}
	return p;
}

static double now(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: gen N OUTDIR\n");
		return 2;
	}
	size_t n = strtoul(argv[1], NULL, 10);
	cg_profile *b = make(n, 0), *c = make(n, 1);
	char path[4096];
	cg_error err = CG_ERROR_INIT;
	snprintf(path, sizeof path, "%s/base.xml", argv[2]);
	if (cg_write_file(b, "xml", path, NULL, &err))
		goto fail;
	snprintf(path, sizeof path, "%s/new.xml", argv[2]);
	if (cg_write_file(c, "xml", path, NULL, &err))
		goto fail;
	double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	cg_diff *d;
	if (cg_diff_new(&d, b, c, NULL, &err))
		goto fail;
	int flagged = cg_diff_check(d, NULL, 0, NULL, 0, &err);
	double t1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_PROCESS_CPUTIME_ID);
	printf("library: cg_diff_new + cg_diff_check of %zu functions, %zu arcs: "
	       "%.3f s wall, %.3f s CPU (%d flagged)\n",
	       cg_diff_function_count(d), cg_diff_arc_count(d), t1 - t0, c1 - c0, flagged);
	cg_diff_free(d);
	cg_profile_free(b);
	cg_profile_free(c);
	return 0;
fail:
	fprintf(stderr, "gen: %s\n", err.message);
	return 3;
}
