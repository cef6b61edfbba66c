/*
 * model_merge.h — internal: the one part merge of the model, shared by
 * cg_profile_merge_into (model_merge.c) and cg_profile_merge_parts
 * (model.c).
 */
#ifndef CG_MODEL_MERGE_H
#define CG_MODEL_MERGE_H

#include "callgraph/model.h"

/* Adds part sp of src (self and exact self costs, inclusive costs, calls,
 * arcs, call tree) to part dp of dst, whose functions and events are
 * src's own, same numbers (as cg_profile_merge_parts builds it). */
int cg_profile_merge_part_same(cg_profile *dst, unsigned dp, const cg_profile *src, unsigned sp);

#endif
