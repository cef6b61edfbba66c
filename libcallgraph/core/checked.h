/*
 * checked.h — internal: arithmetic on counts and costs that refuses to
 * wrap.  Every helper leaves its accumulator untouched and returns 1 when
 * the exact result does not fit, 0 otherwise, so a caller can report the
 * input that overflowed instead of producing a wrong number (signed
 * overflow would also be undefined behaviour).  docs/reliability.md,
 * "Numbers", states the policy: exact or refused.
 */
#ifndef CG_CORE_CHECKED_H
#define CG_CORE_CHECKED_H

#include <stddef.h>
#include <stdint.h>

#include "callgraph/common.h"
#include "callgraph/model.h"

static inline int cg_checked_add_cost(cg_cost *acc, cg_cost v)
{
	cg_cost r;
	if (__builtin_add_overflow(*acc, v, &r))
		return 1;
	*acc = r;
	return 0;
}

static inline int cg_checked_add_u64(uint64_t *acc, uint64_t v)
{
	uint64_t r;
	if (__builtin_add_overflow(*acc, v, &r))
		return 1;
	*acc = r;
	return 0;
}

/* out = a + b for vectors of n costs; all or nothing. */
static inline int cg_checked_sum_costs(cg_cost *out, const cg_cost *a, const cg_cost *b, size_t n)
{
	cg_cost r[CG_MAX_EVENTS];
	for (size_t e = 0; e < n && e < CG_MAX_EVENTS; e++)
		if (__builtin_add_overflow(a[e], b[e], &r[e]))
			return 1;
	for (size_t e = 0; e < n && e < CG_MAX_EVENTS; e++)
		out[e] = r[e];
	return 0;
}

/* acc += v for vectors of n costs; all or nothing. */
static inline int cg_checked_add_costs(cg_cost *acc, const cg_cost *v, size_t n)
{
	return cg_checked_sum_costs(acc, acc, v, n);
}

/* *out = a * b for sizes (element count times element size). */
static inline int cg_checked_mul_size(size_t a, size_t b, size_t *out)
{
	return __builtin_mul_overflow(a, b, out) ? 1 : 0;
}

struct cg_profile;

/* Sums the self costs of one part into totals (nev entries).  Returns 0,
 * or CG_EFORMAT with a message naming the event when a sum does not fit
 * in a cg_cost.  Readers call it (through cg_profile_check_sums) so that
 * every later sum over an accepted profile fits. */
int cg_profile_checked_totals(const struct cg_profile *p, unsigned part, cg_cost *totals);

/* Checks every part's self-cost totals and every function's call count
 * sum; CG_EFORMAT and "NAME: ..." in err when one does not fit. */
int cg_profile_check_sums(const struct cg_profile *p, const char *name, cg_error *err);

#endif
