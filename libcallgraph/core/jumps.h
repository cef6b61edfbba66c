/*
 * jumps.h — internal: branch statistics of one part, as Callgrind's
 * `jump=` / `jcnd=` lines give them (KCachegrind draws them as arrows in
 * its source and assembly views).  model.c owns a part's list and frees
 * it; the part merge (model_merge.c) adds a source part's jumps to the
 * destination's, summing the counts of the same jump.  Transforms, which
 * build new profiles, do not carry them.
 */
#ifndef CG_CORE_JUMPS_H
#define CG_CORE_JUMPS_H

#include "callgraph/model.h"

struct cg_jump_part;

typedef struct cg_jump {
	cg_fid from, to;          /* function of the jump, function jumped into */
	cg_position at;           /* the jump's own position; file NULL: from's file */
	cg_position target;       /* where it goes; file NULL: to's file */
	uint64_t followed;        /* times the jump was taken */
	uint64_t executed;        /* conditional: times the branch ran; else 0 */
	int conditional;          /* jcnd= (else jump=) */
} cg_jump;

/* model.c: the part's list slot (NULL when part does not exist). */
struct cg_jump_part **cg_profile_jump_slot(const cg_profile *p, unsigned part);
void cg_jump_part_free(struct cg_jump_part *t);

/* Adds j to part: a jump with the same functions, positions and kind has
 * its counts summed (CG_EFORMAT when a sum passes 2^64-1), else it is
 * appended.  Files are interned and normalised here.  0, CG_ENOMEM. */
int cg_jump_add(cg_profile *p, unsigned part, const cg_jump *j);

/* The part's jumps in the order they were first added. */
size_t cg_jump_count(const cg_profile *p, unsigned part);
const cg_jump *cg_jump_at(const cg_profile *p, unsigned part, size_t i);

/* Adds src part sp's jumps to dst part dp, functions mapped by fmap. */
int cg_jump_merge_part(cg_profile *dst, unsigned dp, const cg_profile *src, unsigned sp,
		       const cg_fid *fmap);

#endif
