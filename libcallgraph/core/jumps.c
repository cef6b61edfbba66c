/*
 * jumps.c — the jumps of one part (jumps.h): a list in first-added order
 * and a content-hash index over (functions, positions, kind), so that a
 * merge sums the counts of the same jump.  A profile without jumps pays
 * one NULL pointer per part.
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "budget.h"
#include "callgraph.h"
#include "hashmap.h"
#include "jumps.h"

struct cg_jump_part {
	cg_jump *v;
	size_t n, cap;
	struct cg_hashmap index;
};

void cg_jump_part_free(struct cg_jump_part *t)
{
	if (!t)
		return;
	cg_budget_give(t->cap * sizeof *t->v);
	free(t->v);
	cg_hashmap_release(&t->index);
	free(t);
	cg_budget_give(sizeof *t);
}

static uint64_t pos_hash(uint64_t h, const cg_position *at)
{
	h = cg_hash_bytes(h, &at->addr, sizeof at->addr);
	h = cg_hash_bytes(h, &at->line, sizeof at->line);
	return cg_hash_bytes(h, &at->file, sizeof at->file);
}

static int same_pos(const cg_position *a, const cg_position *b)
{
	return a->addr == b->addr && a->line == b->line && a->file == b->file;
}

/* The file to store: interned, NULL when it is the function's own. */
static int norm_file(cg_profile *p, const char *file, cg_fid f, const char **out)
{
	*out = NULL;
	if (!file)
		return 0;
	const char *in = cg_profile_intern(p, file);
	if (!in)
		return CG_ENOMEM;
	const char *own = cg_profile_function(p, f)->file;
	*out = own && in == cg_profile_intern(p, own) ? NULL : in;
	return 0;
}

int cg_jump_add(cg_profile *p, unsigned part, const cg_jump *j)
{
	struct cg_jump_part **slot = cg_profile_jump_slot(p, part);
	if (!slot)
		return CG_EUSAGE;
	if (!*slot) {
		if (cg_budget_take(sizeof **slot))
			return CG_ENOMEM;
		if (!(*slot = calloc(1, sizeof **slot))) {
			cg_budget_give(sizeof **slot);
			return CG_ENOMEM;
		}
	}
	struct cg_jump_part *t = *slot;
	cg_jump k = *j;
	if (norm_file(p, j->at.file, j->from, &k.at.file) ||
	    norm_file(p, j->target.file, j->to, &k.target.file))
		return CG_ENOMEM;
	k.conditional = j->conditional != 0;
	uint64_t h = cg_hash_bytes(CG_HASH_INIT, &k.from, sizeof k.from);
	h = cg_hash_bytes(h, &k.to, sizeof k.to);
	h = cg_hash_bytes(h, &k.conditional, sizeof k.conditional);
	h = pos_hash(pos_hash(h, &k.at), &k.target);
	size_t cursor = 0;
	uint32_t i;
	while (cg_hashmap_next(&t->index, h, &cursor, &i)) {
		cg_jump *e = &t->v[i];
		if (e->from == k.from && e->to == k.to && e->conditional == k.conditional &&
		    same_pos(&e->at, &k.at) && same_pos(&e->target, &k.target)) {
			if (k.followed > UINT64_MAX - e->followed ||
			    k.executed > UINT64_MAX - e->executed)
				return CG_EFORMAT;
			e->followed += k.followed;
			e->executed += k.executed;
			return 0;
		}
	}
	if (t->n >= UINT32_MAX - 1 ||
	    cg_array_grow((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v, 64))
		return CG_ENOMEM;
	/* the index last: a failure leaves no index to a missing entry */
	if (cg_hashmap_add(&t->index, h, (uint32_t)t->n))
		return CG_ENOMEM;
	t->v[t->n++] = k;
	return 0;
}

size_t cg_jump_count(const cg_profile *p, unsigned part)
{
	struct cg_jump_part **slot = cg_profile_jump_slot(p, part);
	return slot && *slot ? (*slot)->n : 0;
}

const cg_jump *cg_jump_at(const cg_profile *p, unsigned part, size_t i)
{
	struct cg_jump_part **slot = cg_profile_jump_slot(p, part);
	return slot && *slot && i < (*slot)->n ? &(*slot)->v[i] : NULL;
}

int cg_jump_merge_part(cg_profile *dst, unsigned dp, const cg_profile *src, unsigned sp,
		       const cg_fid *fmap)
{
	size_t n = cg_jump_count(src, sp);
	for (size_t i = 0; i < n; i++) {
		cg_jump j = *cg_jump_at(src, sp, i);
		/* an own-file NULL stays NULL: the mapped function has the same
		 * file; named files are interned into dst by cg_jump_add */
		j.from = fmap[j.from];
		j.to = fmap[j.to];
		int rc = cg_jump_add(dst, dp, &j);
		if (rc)
			return rc;
	}
	return 0;
}
