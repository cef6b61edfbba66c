/*
 * arena.h — the library's one bump allocator (internal).
 *
 * Many small objects that die together (a profile's strings and cost
 * vectors, a trace's decoded terms, a pretty-printer's layout nodes) are
 * carved out of large chunks and freed at once.  A zeroed struct is an
 * empty arena; cg_arena_release frees everything it handed out.
 * Allocations are zero-filled and 16-byte aligned.  Not thread-safe: one
 * arena belongs to one owner.  Not part of the public API.
 */
#ifndef CG_ARENA_H
#define CG_ARENA_H

#include <stddef.h>

struct cg_arena_chunk;

typedef struct cg_arena {
	struct cg_arena_chunk *head;   /* the chunk small requests come from */
} cg_arena;

/* size zeroed bytes, or NULL when out of memory (or size is absurd). */
void *cg_arena_alloc(cg_arena *a, size_t size);
/* A NUL-terminated copy of the len bytes at s; NULL when out of memory. */
char *cg_arena_strdup(cg_arena *a, const char *s, size_t len);
/* Frees every allocation; the arena is empty (and usable) again. */
void cg_arena_release(cg_arena *a);

#endif
