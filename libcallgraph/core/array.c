/*
 * array.c — growable arrays with a checked size (see array.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "budget.h"
#include "callgraph/common.h"

int cg_array_grow(void **ptr, size_t *cap, size_t need, size_t elem, size_t first)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : (first ? first : 16);
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return CG_ENOMEM;
		n *= 2;
	}
	size_t bytes;
	if (elem && __builtin_mul_overflow(n, elem, &bytes))
		return CG_ENOMEM;
	size_t added = (n - *cap) * elem;
	if (cg_budget_take(added))
		return CG_ENOMEM;
	void *p = realloc(*ptr, elem ? bytes : 1);
	if (!p) {
		cg_budget_give(added);
		return CG_ENOMEM;
	}
	memset((char *)p + *cap * elem, 0, (n - *cap) * elem);
	*ptr = p;
	*cap = n;
	return 0;
}
