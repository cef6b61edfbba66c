/*
 * hashmap.c — open addressing with linear probing, load factor <= 1/2.
 */
#include <stdlib.h>

#include "callgraph/common.h"
#include "hashmap.h"

int cg_hashmap_get(const struct cg_hashmap *m, uint64_t key, uint32_t *value)
{
	if (!m->cap)
		return 0;
	size_t mask = m->cap - 1;
	for (size_t i = cg_hash64(key) & mask; m->values[i]; i = (i + 1) & mask)
		if (m->keys[i] == key) {
			*value = m->values[i] - 1;
			return 1;
		}
	return 0;
}

static void insert_slot(uint64_t *keys, uint32_t *values, size_t cap, uint64_t key,
			uint32_t stored)
{
	size_t mask = cap - 1;
	size_t i = cg_hash64(key) & mask;
	while (values[i] && keys[i] != key)
		i = (i + 1) & mask;
	keys[i] = key;
	values[i] = stored;
}

static int reserve_one(struct cg_hashmap *m)
{
	if ((m->count + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		uint64_t *keys = calloc(cap, sizeof *keys);
		uint32_t *values = calloc(cap, sizeof *values);
		if (!keys || !values) {
			free(keys);
			free(values);
			return CG_ENOMEM;
		}
		/* first free slot: the old entries are already distinct,
		 * or deliberately repeated (cg_hashmap_add) */
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->values[i])
				continue;
			size_t j = cg_hash64(m->keys[i]) & (cap - 1);
			while (values[j])
				j = (j + 1) & (cap - 1);
			keys[j] = m->keys[i];
			values[j] = m->values[i];
		}
		free(m->keys);
		free(m->values);
		m->keys = keys;
		m->values = values;
		m->cap = cap;
	}
	return 0;
}

int cg_hashmap_put(struct cg_hashmap *m, uint64_t key, uint32_t value)
{
	if (reserve_one(m))
		return CG_ENOMEM;
	uint32_t old;
	if (!cg_hashmap_get(m, key, &old))
		m->count++;
	insert_slot(m->keys, m->values, m->cap, key, value + 1);
	return 0;
}

int cg_hashmap_add(struct cg_hashmap *m, uint64_t key, uint32_t value)
{
	if (reserve_one(m))
		return CG_ENOMEM;
	size_t mask = m->cap - 1;
	size_t i = cg_hash64(key) & mask;
	while (m->values[i])
		i = (i + 1) & mask;
	m->keys[i] = key;
	m->values[i] = value + 1;
	m->count++;
	return 0;
}

int cg_hashmap_next(const struct cg_hashmap *m, uint64_t key, size_t *cursor, uint32_t *value)
{
	if (!m->cap)
		return 0;
	size_t mask = m->cap - 1;
	/* *cursor counts the slots of key's probe run already looked at */
	for (size_t i = (cg_hash64(key) + *cursor) & mask; m->values[i]; i = (i + 1) & mask) {
		++*cursor;
		if (m->keys[i] == key) {
			*value = m->values[i] - 1;
			return 1;
		}
	}
	return 0;
}

void cg_hashmap_release(struct cg_hashmap *m)
{
	free(m->keys);
	free(m->values);
	m->keys = NULL;
	m->values = NULL;
	m->count = m->cap = 0;
}
