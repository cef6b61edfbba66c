/*
 * diff_stats.c — the Mann-Whitney U test (Wilcoxon rank-sum) that judges
 * values measured over repeated runs.
 *
 * Why this test: run times on shared CI machines are not normal (long
 * right tails from other jobs), and a rank test only assumes the runs are
 * independent.  The statistic is the sum of the new runs' midranks in the
 * pooled sample; its null distribution is computed exactly by counting
 * subsets (ties included, so sample counts with many equal values are
 * judged right), which matters because a CI gate works at the far tail
 * (p around 1e-5) where the normal approximation is off by a factor of
 * ten or more for ten runs a side.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff_internal.h"

/* Above this many values the normal approximation is used; the exact
 * count costs O(n^4) and the approximation is good by then. */
#define EXACT_MAX 40

struct ranked {
	int64_t v;
	int is_new;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	return (x->v > y->v) - (x->v < y->v);
}

double cg_diff_min_p(size_t nb, size_t nn, int one_sided)
{
	/* 1 / C(nb + nn, nn): only the most extreme arrangement. */
	double c = 1;
	for (size_t i = 1; i <= nn; i++)
		c = c * (double)(nb + i) / (double)i;
	double p = 1 / c;
	return one_sided ? p : fmin(1, 2 * p);
}

double cg_diff_mann_whitney(const int64_t *base, size_t nb, const int64_t *new_values, size_t nn,
			    int one_sided)
{
	size_t n = nb + nn;
	if (!nb || !nn)
		return 1;
	struct ranked *r = malloc(n * sizeof *r);
	unsigned *rank2 = malloc(n * sizeof *rank2);   /* twice the midrank */
	if (!r || !rank2) {
		free(r);
		free(rank2);
		return -1;
	}
	for (size_t i = 0; i < nb; i++)
		r[i] = (struct ranked){ base[i], 0 };
	for (size_t i = 0; i < nn; i++)
		r[nb + i] = (struct ranked){ new_values[i], 1 };
	qsort(r, n, sizeof *r, cmp_ranked);
	unsigned long observed = 0;   /* twice the new runs' rank sum */
	double tie_term = 0;          /* sum of t^3 - t over tie groups */
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && r[j].v == r[i].v)
			j++;
		/* ranks i+1 .. j, midrank (i+1+j)/2 */
		for (size_t k = i; k < j; k++) {
			rank2[k] = (unsigned)(i + 1 + j);
			if (r[k].is_new)
				observed += rank2[k];
		}
		double t = (double)(j - i);
		tie_term += t * t * t - t;
		i = j;
	}
	double p;
	if (tie_term == (double)n * n * n - (double)n) {
		p = 1;   /* every value equal: no evidence either way */
	} else if (n <= EXACT_MAX) {
		/* ways[k][s]: subsets of k of the values seen so far with twice
		 * their rank sum s. */
		size_t maxs = n * (n + 1) + 1;
		double *ways = calloc((nn + 1) * maxs, sizeof *ways);
		if (!ways) {
			free(r);
			free(rank2);
			return -1;
		}
		ways[0] = 1;
		for (size_t i = 0; i < n; i++)
			for (size_t k = (i + 1 < nn ? i + 1 : nn); k >= 1; k--) {
				double *to = ways + k * maxs, *from = ways + (k - 1) * maxs;
				for (size_t s = maxs - 1; s >= rank2[i]; s--)
					to[s] += from[s - rank2[i]];
			}
		double total = 0, ge = 0, le = 0;
		const double *row = ways + nn * maxs;
		for (size_t s = 0; s < maxs; s++) {
			total += row[s];
			if (s >= observed)
				ge += row[s];
			if (s <= observed)
				le += row[s];
		}
		free(ways);
		p = one_sided ? ge / total : fmin(1, 2 * fmin(ge, le) / total);
	} else {
		double mean = (double)nn * (double)(n + 1);   /* of twice the rank sum */
		double var = 4 * (double)nb * (double)nn / 12 *
			     ((double)(n + 1) - tie_term / ((double)n * (double)(n - 1)));
		double dev = (double)observed - mean;
		if (!one_sided)
			dev = fabs(dev);
		/* continuity correction: one step of twice a rank sum is 1 */
		double zscore = var > 0 ? (dev - 1) / sqrt(var) : 0;
		p = 0.5 * erfc(zscore / sqrt(2.0));
		if (!one_sided)
			p = fmin(1, 2 * p);
	}
	free(r);
	free(rank2);
	return p;
}
