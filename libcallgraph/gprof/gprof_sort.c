/*
 * gprof_sort.c — the sort gprof's qsort calls really perform.
 *
 * glibc 2.36 implements qsort as a top-down merge sort (it falls back to
 * quicksort only when the temporary buffer would be huge, which never
 * happens for symbol tables).  gprof's index comparator is inconsistent
 * for two cycle symbols of equal time, so only the very same sequence of
 * comparisons reproduces gprof's order: split at n/2, sort both halves,
 * merge taking the left element while cmp(left, right) <= 0.
 */
#include <stdlib.h>
#include <string.h>
#include "gprof_internal.h"

static void msort_rec(uint32_t *b, size_t n, uint32_t *tmp, gp_cmp_fn cmp, const void *ctx)
{
	if (n <= 1)
		return;
	size_t n1 = n / 2, n2 = n - n1;
	uint32_t *b1 = b, *b2 = b + n1;
	msort_rec(b1, n1, tmp, cmp, ctx);
	msort_rec(b2, n2, tmp, cmp, ctx);

	uint32_t *t = tmp;
	while (n1 > 0 && n2 > 0) {
		if (cmp(ctx, *b1, *b2) <= 0) {
			*t++ = *b1++;
			n1--;
		} else {
			*t++ = *b2++;
			n2--;
		}
	}
	/* The rest of the right run is already in place. */
	if (n1 > 0)
		memcpy(t, b1, n1 * sizeof *b1);
	memcpy(b, tmp, (n - n2) * sizeof *b);
}

int cg_gp_msort(uint32_t *items, size_t n, gp_cmp_fn cmp, const void *ctx)
{
	if (n <= 1)
		return 0;
	uint32_t *tmp = malloc(n * sizeof *tmp);
	if (!tmp)
		return CG_ENOMEM;
	msort_rec(items, n, tmp, cmp, ctx);
	free(tmp);
	return 0;
}
