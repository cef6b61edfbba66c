/*
 * power.c — how often cgdiff's repeated-run test raises a false alarm,
 * and how often it catches a real slowdown (the figures in cgdiff(1),
 * REPEATED RUNS).  Run by `make bench-diff-power`.
 *
 *   power [RUNS [TRIALS]]
 *
 * Model of a timed CI job: 1,000 functions whose sample counts are
 * log-uniform between 20 and 20,000 per run; every run draws each count
 * from a Poisson law around its mean times a machine-load factor common
 * to the whole run (normal, 2% spread: another job on the runner slows
 * everything a little).  A "pair" compares RUNS unchanged base runs with
 * RUNS unchanged new runs; a "trial" slows one function of 2,000 samples
 * by 10% in the new runs.  The rule is cgdiff's default self>5% with the
 * default false-alarm rate 0.01.  Counts are printed, not judged.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "callgraph.h"

enum { NFUNCS = 1000, SLOWED = 500 };

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static double uniform(void)
{
	/* xorshift64*: reproducible figures on every machine */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static double normal(void)
{
	double u = uniform(), v = uniform();
	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

static int64_t poisson(double mean)
{
	if (mean > 50) {   /* normal approximation, ample at these counts */
		double x = mean + sqrt(mean) * normal();
		return x < 0 ? 0 : (int64_t)llround(x);
	}
	double l = exp(-mean), p = 1;
	int64_t k = 0;
	do {
		k++;
		p *= uniform();
	} while (p > l);
	return k - 1;
}

static double means[NFUNCS];

static cg_profile *run(double slowdown)
{
	cg_profile *p;
	if (cg_profile_new(&p))
		abort();
	cg_profile_add_event(p, "cpu", "CPU samples", 0.001);
	double load = 1 + 0.02 * normal();
	for (int f = 0; f < NFUNCS; f++) {
		char name[32];
		snprintf(name, sizeof name, "fn%04d", f);
		cg_fid id;
		if (cg_profile_intern_function(p, name, "/bin/prog", "prog.c", &id))
			abort();
		double m = means[f] * load * (f == SLOWED ? slowdown : 1);
		cg_cost c = poisson(m);
		cg_profile_add_self(p, 0, id, &c);
	}
	return p;
}

/* 1 flagged, 0 passed, -1 refused (too few runs). */
static int compare(int runs, double slowdown, int *slowed_flagged)
{
	cg_profile *base[64], *news[64];
	for (int r = 0; r < runs; r++) {
		base[r] = run(1);
		news[r] = run(slowdown);
	}
	cg_diff_options o = CG_DIFF_OPTIONS_INIT;
	o.more_runs[0] = (const cg_profile *const *)base + 1;
	o.more_runs[1] = (const cg_profile *const *)news + 1;
	o.nmore_runs[0] = o.nmore_runs[1] = (size_t)runs - 1;
	cg_diff *d;
	cg_error err = CG_ERROR_INIT;
	if (cg_diff_new(&d, base[0], news[0], &o, &err)) {
		fprintf(stderr, "power: %s\n", err.message);
		exit(1);
	}
	const char *rules[] = { "self>5%" };
	int n = cg_diff_check(d, rules, 1, NULL, 0, &err);
	*slowed_flagged = 0;
	if (n > 0) {
		char name[32];
		snprintf(name, sizeof name, "fn%04d", SLOWED);
		long item = cg_diff_find_function(d, name);
		for (size_t i = 0; i < cg_diff_finding_count(d); i++) {
			const cg_diff_finding *f = cg_diff_finding_at(d, i);
			if (f->flagged && (long)f->item == item)
				*slowed_flagged = 1;
		}
	}
	cg_diff_free(d);
	for (int r = 0; r < runs; r++) {
		cg_profile_free(base[r]);
		cg_profile_free(news[r]);
	}
	return n < 0 ? -1 : n > 0;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 10;
	int trials = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 100;
	if (runs < 2 || runs > 64 || trials < 1) {
		fprintf(stderr, "usage: power [RUNS 2..64 [TRIALS]]\n");
		return 2;
	}
	for (int f = 0; f < NFUNCS; f++)
		means[f] = 20 * pow(1000, uniform());
	means[SLOWED] = 2000;
	int alarms = 0, refused = 0, caught = 0, other = 0, slowed;
	for (int i = 0; i < 20; i++) {
		int v = compare(runs, 1, &slowed);
		alarms += v > 0;
		refused += v < 0;
	}
	printf("%d runs a side, 1000 functions: unchanged pairs with a false alarm: %d of 20", runs,
	       alarms);
	if (refused)
		printf(" (%d refused: too few runs)", refused);
	printf("\n");
	for (int i = 0; i < trials; i++) {
		int v = compare(runs, 1.10, &slowed);
		caught += slowed;
		other += v > 0 && !slowed;
	}
	printf("%d runs a side: 10%% slowdown of one 2000-sample function caught in %d of %d "
	       "trials (%d flagged only others)\n", runs, caught, trials, other);
	return 0;
}
