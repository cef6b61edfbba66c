/*
 * array.h — internal: the one growable-array helper of the library.
 * Every site that grows an array by doubling goes through it, so the
 * n * size product is checked in one place.
 */
#ifndef CG_CORE_ARRAY_H
#define CG_CORE_ARRAY_H

#include <stddef.h>

/* Makes *ptr hold at least `need` elements of `elem` bytes: *cap doubles
 * from `first` (or from *cap) until it covers need; the new elements are
 * zeroed.  Returns 0, or CG_ENOMEM (nothing changed) when the memory
 * cannot be had or need * elem does not fit in a size_t. */
int cg_array_grow(void **ptr, size_t *cap, size_t need, size_t elem, size_t first);

/* The same for arrays whose callers keep their own count type. */
#define CG_ARRAY_GROW(arr, cap, need) \
	cg_array_grow((void **)&(arr), &(cap), (need), sizeof *(arr), 16)

#endif
