/*
 * positions.h — internal: per-position self costs and per-call-site arc
 * costs of one part (the public calls are in callgraph/model.h, section
 * "positions").  model.c owns a part's table and frees it; the merges
 * (model_merge.c) and transforms (graph/transparent.c) carry it with the
 * calls below.
 */
#ifndef CG_CORE_POSITIONS_H
#define CG_CORE_POSITIONS_H

#include "callgraph/model.h"

struct cg_pos_part;

/* model.c: the part's table slot (NULL when part does not exist). */
struct cg_pos_part **cg_profile_pos_slot(const cg_profile *p, unsigned part);
void cg_pos_part_free(struct cg_pos_part *t);

/* Adds src part sp's positions to dst part dp (functions mapped by fmap,
 * events by emap; arcs found by caller and callee, which the part merge
 * has already added), then puts whatever of dst's self costs and arcs the
 * positions do not cover at the function's line (cg_pos_complete). */
int cg_pos_merge_part(cg_profile *dst, unsigned dp, const cg_profile *src, unsigned sp,
		      const cg_fid *fmap, const int *emap);

/* For every function of part with positions, the self cost not covered
 * by them goes to the position {line = the function's line}; for every
 * arc with call sites, the count and inclusive cost not covered go to
 * {line = the arc's line}.  Restores the invariant after a change made
 * without positions. */
int cg_pos_complete(cg_profile *p, unsigned part);

/* Carries p's positions into q, a transform's result with the same
 * functions and parts: a function keeps its positions when it kept some
 * self cost (what it gained from removed callees goes to its own line);
 * an arc keeps its call sites when q has it with the same count. */
int cg_pos_carry(cg_profile *q, const cg_profile *p);

/* The rank of f's first self position among all of part's (entries are
 * numbered as they were first added), or UINT32_MAX when f has none:
 * the Callgrind writer puts functions in the order their costs came. */
uint32_t cg_pos_first_rank(const cg_profile *p, unsigned part, cg_fid f);

/* All self positions of part in the order they were first added (the
 * XML image keeps that order, which cg_pos_first_rank reports): the
 * count, and entry i. */
size_t cg_pos_self_count(const cg_profile *p, unsigned part);
void cg_pos_self_entry(const cg_profile *p, unsigned part, size_t i, cg_fid *f,
		       cg_position *pos, const cg_cost **costs);

/* Readers of a lossless image (XML), which state self costs and arcs on
 * their own: add to the position tables only, leaving self costs and
 * arcs alone.  The reader then calls cg_profile_check_positions.  The
 * arc must exist. */
int cg_pos_add_self_only(cg_profile *p, unsigned part, cg_fid f, const cg_position *pos,
			 const cg_cost *costs);
int cg_pos_add_site_only(cg_profile *p, unsigned part, size_t arc, const cg_position *site,
			 uint64_t count, const cg_cost *inclusive);

/* Exact (fractional) self costs of event 0 per position, beside the
 * integer ones, as cg_profile_set_self_exact is beside cg_profile_self:
 * gmon's histogram bins are shared between lines in floating point, and
 * the Callgrind writer writes those shares in microseconds.  Setting one
 * creates the entry (with zero integer cost) when absent.  Entries never
 * set read NAN: their integer cost is exact.  Merges add them up. */
int cg_pos_set_self_exact(cg_profile *p, unsigned part, cg_fid f, const cg_position *pos,
			  double exact);
int cg_pos_has_self_exact(const cg_profile *p, unsigned part);
/* cg_profile_next_self_position with the entry's exact cost (NAN: none). */
int cg_pos_next_self_exact(const cg_profile *p, unsigned part, cg_fid f, size_t *cursor,
			   cg_position *pos, const cg_cost **costs, double *exact);
/* Entry i of cg_pos_self_entry's numbering: its exact cost or NAN. */
double cg_pos_self_entry_exact(const cg_profile *p, unsigned part, size_t i);

#endif
