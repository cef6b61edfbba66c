/*
 * search.h — internal: the library's one search of a sorted key column.
 * The keys are 64-bit fields `stride` bytes apart (an array of them, or
 * one field of an array of structs), in ascending order.
 */
#ifndef CG_CORE_SEARCH_H
#define CG_CORE_SEARCH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t cg_search_key(const void *first, size_t stride, size_t i)
{
	return *(const uint64_t *)(const void *)((const char *)first + i * stride);
}

/* How many of the n keys are <= v: the index of the first key above v.
 * With a hint (NULL: none), the answer the last search gave and the one
 * after it are tried first, then the keys are bisected; *hint gets the
 * answer.  Questions asked in ascending order, as walks over .text ask,
 * then cost a step or two each; any order gets the same answers. */
static inline size_t cg_search_count_le(const void *first, size_t stride, size_t n, uint64_t v,
					size_t *hint)
{
	size_t lo = 0, hi = n;

	if (hint)
		for (size_t h = *hint, k = 0; k < 2 && h <= n; k++, h++)
			if ((h == 0 || cg_search_key(first, stride, h - 1) <= v) &&
			    (h == n || cg_search_key(first, stride, h) > v))
				return *hint = h;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cg_search_key(first, stride, mid) <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (hint)
		*hint = lo;
	return lo;
}

#endif
