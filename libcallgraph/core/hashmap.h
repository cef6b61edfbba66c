/*
 * hashmap.h — the library's one hash map and one string hash (internal,
 * not part of the public API).
 *
 * cg_hashmap maps 64-bit keys to 32-bit values (indexes into the caller's
 * arrays) with open addressing.  A zeroed struct is an empty map;
 * cg_hashmap_release frees it.  It serves two kinds of keys:
 *  - exact keys (caller<<32|callee, an interned pointer): cg_hashmap_put
 *    and cg_hashmap_get, one value per key;
 *  - content keys (a string's cg_hash_bytes, a function identity): the key
 *    is only a hash, so two items may share it.  cg_hashmap_add stores
 *    every item, cg_hashmap_next walks the items stored under one key and
 *    the caller compares the content.
 */
#ifndef CG_HASHMAP_H
#define CG_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

/* A key and its value share a slot, so a lookup touches one cache line
 * (with 200k functions the tables no longer fit in the caches and every
 * probe into a separate value array was a second miss).  The key is kept
 * as two halves so a slot takes 12 bytes, not a padded 16. */
struct cg_hashmap_slot {
	uint32_t key_lo, key_hi;
	uint32_t value;     /* value + 1; 0 marks an empty slot */
};

struct cg_hashmap {
	struct cg_hashmap_slot *slots;
	size_t count, cap;  /* cap is 0 or a power of two */
};

/* 1 and *value set when key is present, else 0. */
int cg_hashmap_get(const struct cg_hashmap *m, uint64_t key, uint32_t *value);
/* Inserts or overwrites; 0 or CG_ENOMEM. value must be < UINT32_MAX. */
int cg_hashmap_put(struct cg_hashmap *m, uint64_t key, uint32_t value);
/* Inserts without looking for the key (content keys); 0 or CG_ENOMEM. */
int cg_hashmap_add(struct cg_hashmap *m, uint64_t key, uint32_t value);
/* Room for n entries in all, so that adding them does not grow the table
 * step by step (each step rehashes everything); 0 or CG_ENOMEM. */
int cg_hashmap_reserve(struct cg_hashmap *m, size_t n);
/* The values stored under key, one per call: start with *cursor = 0;
 * returns 1 and sets *value while there are more, then 0. */
int cg_hashmap_next(const struct cg_hashmap *m, uint64_t key, size_t *cursor, uint32_t *value);
void cg_hashmap_release(struct cg_hashmap *m);

/* Finalizer that spreads a 64-bit key over all bits (MurmurHash3's). */
static inline uint64_t cg_hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return k;
}

/* FNV-1a over n bytes, continuing from h: start from CG_HASH_INIT, and
 * chain calls to hash several fields. */
#define CG_HASH_INIT 1469598103934665603ull
static inline uint64_t cg_hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ull;
	return h;
}

#endif
