/*
 * hashmap.c — open addressing with linear probing, load factor <= 1/2.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "callgraph/common.h"
#include "budget.h"
#include "hashmap.h"

static inline uint64_t slot_key(const struct cg_hashmap_slot *s)
{
	return (uint64_t)s->key_hi << 32 | s->key_lo;
}

static inline void set_slot(struct cg_hashmap_slot *s, uint64_t key, uint32_t stored)
{
	s->key_lo = (uint32_t)key;
	s->key_hi = (uint32_t)(key >> 32);
	s->value = stored;
}

int cg_hashmap_get(const struct cg_hashmap *m, uint64_t key, uint32_t *value)
{
	if (!m->cap)
		return 0;
	size_t mask = m->cap - 1;
	const struct cg_hashmap_slot *s = m->slots;
	for (size_t i = cg_hash64(key) & mask; s[i].value; i = (i + 1) & mask)
		if (slot_key(&s[i]) == key) {
			*value = s[i].value - 1;
			return 1;
		}
	return 0;
}

/* Large tables are probed at random: on 2 MB pages a probe rarely misses
 * the TLB, and zeroing one faults 512 times less (a hint; the kernel may
 * decline). */
static void huge_pages(void *p, size_t bytes)
{
	const uintptr_t huge = (uintptr_t)2 << 20;
	if (bytes < 2 * huge)
		return;
	uintptr_t from = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t to = ((uintptr_t)p + bytes) & ~(huge - 1);
	if (to > from)
		madvise((void *)from, to - from, MADV_HUGEPAGE);
}

/* Moves the entries to a table of cap slots (a power of two, more than
 * twice the entries). */
static int rehash(struct cg_hashmap *m, size_t cap)
{
	if (cg_budget_take(cap * sizeof(struct cg_hashmap_slot)))
		return CG_ENOMEM;
	/* Zeroed by writing, not by calloc: a large calloc hands out
	 * untouched pages that the rehash below and the probes of later
	 * inserts first read (mapping the shared zero page) and then write,
	 * a second fault per page that, with a reader thread running, also
	 * flushes the other CPUs' TLBs. */
	struct cg_hashmap_slot *slots = malloc(cap * sizeof *slots);
	if (!slots) {
		cg_budget_give(cap * sizeof *slots);
		return CG_ENOMEM;
	}
	huge_pages(slots, cap * sizeof *slots);
	memset(slots, 0, cap * sizeof *slots);
	/* first free slot: the old entries are already distinct, or
	 * deliberately repeated (cg_hashmap_add) */
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->slots[i].value)
			continue;
		size_t j = cg_hash64(slot_key(&m->slots[i])) & (cap - 1);
		while (slots[j].value)
			j = (j + 1) & (cap - 1);
		slots[j] = m->slots[i];
	}
	free(m->slots);
	cg_budget_give(m->cap * sizeof *slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

static int reserve_one(struct cg_hashmap *m)
{
	if ((m->count + 1) * 2 > m->cap)
		return rehash(m, m->cap ? m->cap * 2 : 64);
	return 0;
}

int cg_hashmap_reserve(struct cg_hashmap *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 64;
	if (n > SIZE_MAX / 4 / sizeof(struct cg_hashmap_slot))
		return CG_ENOMEM;
	while (n * 2 > cap)
		cap *= 2;
	return cap > m->cap ? rehash(m, cap) : 0;
}

int cg_hashmap_put(struct cg_hashmap *m, uint64_t key, uint32_t value)
{
	if (reserve_one(m))
		return CG_ENOMEM;
	size_t mask = m->cap - 1;
	size_t i = cg_hash64(key) & mask;
	while (m->slots[i].value && slot_key(&m->slots[i]) != key)
		i = (i + 1) & mask;
	if (!m->slots[i].value)
		m->count++;
	set_slot(&m->slots[i], key, value + 1);
	return 0;
}

int cg_hashmap_add(struct cg_hashmap *m, uint64_t key, uint32_t value)
{
	if (reserve_one(m))
		return CG_ENOMEM;
	size_t mask = m->cap - 1;
	size_t i = cg_hash64(key) & mask;
	while (m->slots[i].value)
		i = (i + 1) & mask;
	set_slot(&m->slots[i], key, value + 1);
	m->count++;
	return 0;
}

int cg_hashmap_next(const struct cg_hashmap *m, uint64_t key, size_t *cursor, uint32_t *value)
{
	if (!m->cap)
		return 0;
	size_t mask = m->cap - 1;
	const struct cg_hashmap_slot *s = m->slots;
	/* *cursor counts the slots of key's probe run already looked at */
	for (size_t i = (cg_hash64(key) + *cursor) & mask; s[i].value; i = (i + 1) & mask) {
		++*cursor;
		if (slot_key(&s[i]) == key) {
			*value = s[i].value - 1;
			return 1;
		}
	}
	return 0;
}

void cg_hashmap_release(struct cg_hashmap *m)
{
	free(m->slots);
	cg_budget_give(m->cap * sizeof *m->slots);
	m->slots = NULL;
	m->count = m->cap = 0;
}
