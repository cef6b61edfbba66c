/*
 * arena.c — the library's one bump allocator (see arena.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "budget.h"

/* Small requests share chunks of this size; a request above a quarter of
 * it gets a block of its own, so a chunk never wastes more than a quarter. */
#define ARENA_CHUNK (64 * 1024)

struct cg_arena_chunk {
	struct cg_arena_chunk *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

void *cg_arena_alloc(cg_arena *a, size_t size)
{
	if (size > SIZE_MAX - 16 - sizeof(struct cg_arena_chunk))
		return NULL;
	size = (size + 15) & ~(size_t)15;
	struct cg_arena_chunk *c = a->head;
	if (!c || c->size - c->used < size) {
		size_t want = size > ARENA_CHUNK / 4 ? size : ARENA_CHUNK;
		if (cg_budget_take(sizeof(struct cg_arena_chunk) + want))
			return NULL;
		struct cg_arena_chunk *n = malloc(sizeof *n + want);
		if (!n) {
			cg_budget_give(sizeof *n + want);
			return NULL;
		}
		n->size = want;
		n->used = 0;
		if (c && want != ARENA_CHUNK) {
			/* A big block goes behind the current chunk so the
			 * current one keeps serving small requests. */
			n->next = c->next;
			c->next = n;
		} else {
			n->next = c;
			a->head = n;
		}
		c = n;
	}
	void *p = c->data + c->used;
	c->used += size;
	memset(p, 0, size);
	return p;
}

char *cg_arena_strdup(cg_arena *a, const char *s, size_t len)
{
	if (len == SIZE_MAX)
		return NULL;
	char *d = cg_arena_alloc(a, len + 1);
	if (d && len)
		memcpy(d, s, len);
	return d;
}

void cg_arena_release(cg_arena *a)
{
	struct cg_arena_chunk *c = a->head;
	while (c) {
		struct cg_arena_chunk *n = c->next;
		cg_budget_give(sizeof *c + c->size);
		free(c);
		c = n;
	}
	a->head = NULL;
}
