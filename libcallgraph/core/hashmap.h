/*
 * hashmap.h — internal open-addressing map from 64-bit keys to 32-bit
 * values (indexes into the model's arrays).  A zeroed struct is an empty
 * map; cg_hashmap_release frees it.  Not part of the public API.
 */
#ifndef CG_HASHMAP_H
#define CG_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

struct cg_hashmap {
	uint64_t *keys;
	uint32_t *values;   /* value + 1; 0 marks an empty slot */
	size_t count, cap;  /* cap is 0 or a power of two */
};

/* 1 and *value set when key is present, else 0. */
int cg_hashmap_get(const struct cg_hashmap *m, uint64_t key, uint32_t *value);
/* Inserts or overwrites; 0 or CG_ENOMEM. value must be < UINT32_MAX. */
int cg_hashmap_put(struct cg_hashmap *m, uint64_t key, uint32_t value);
void cg_hashmap_release(struct cg_hashmap *m);
static inline uint64_t cg_hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return k;
}

#endif
