/*
 * pprof_strings.h — the string table of a pprof profile being written:
 * every string once, index 0 the empty string, as the format requires.
 * Static inline, private to the pprof family.
 */
#ifndef CG_PPROF_STRINGS_H
#define CG_PPROF_STRINGS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct pprof_strings {
	const char **strs;        /* by index; borrowed from the profile or literals */
	size_t count, cap;
	uint32_t *slots;          /* open addressing: index + 1, 0 empty */
	size_t nslots;
	int oom;
};

static inline uint64_t pprof_str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;   /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static inline int pprof_strings_grow(struct pprof_strings *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 1024;
	uint32_t *slots = calloc(n, sizeof *slots);
	if (!slots)
		return -1;
	for (size_t i = 0; i < t->count; i++) {
		size_t j = pprof_str_hash(t->strs[i]) & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	return 0;
}

/* The index of s (NULL counts as ""), adding it when new.  On
 * out-of-memory returns 0 and sets t->oom. */
static inline int64_t pprof_string(struct pprof_strings *t, const char *s)
{
	if (!s)
		s = "";
	if (t->oom)
		return 0;
	if ((t->count + 1) * 2 > t->nslots && pprof_strings_grow(t)) {
		t->oom = 1;
		return 0;
	}
	size_t j = pprof_str_hash(s) & (t->nslots - 1);
	for (; t->slots[j]; j = (j + 1) & (t->nslots - 1))
		if (strcmp(t->strs[t->slots[j] - 1], s) == 0)
			return t->slots[j] - 1;
	if (t->count == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		const char **strs = realloc(t->strs, cap * sizeof *strs);
		if (!strs) {
			t->oom = 1;
			return 0;
		}
		t->strs = strs;
		t->cap = cap;
	}
	t->strs[t->count] = s;
	t->slots[j] = (uint32_t)++t->count;
	return (int64_t)t->count - 1;
}

static inline void pprof_strings_free(struct pprof_strings *t)
{
	free(t->strs);
	free(t->slots);
}

#endif
