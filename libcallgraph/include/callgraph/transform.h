/*
 * callgraph/transform.h — graph transforms owned by the converter.
 *
 * Transparent functions (SWI-Prolog's noprofile/1): a transparent function
 * disappears from the profile.  Its self cost goes to its callers — exactly,
 * per calling context, in parts that have a call tree; otherwise split in
 * proportion to the arc counts — its callees become its callers' callees,
 * and the call counts of its outgoing arcs carry over.  Run it before cycle
 * detection so a transparent wrapper no longer glues unrelated functions
 * into one cycle.
 */
#ifndef CALLGRAPH_TRANSFORM_H
#define CALLGRAPH_TRANSFORM_H

#include "callgraph/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Marks every function whose name matches one of the fnmatch(3) glob
 * `patterns` (and every function already flagged CG_FN_TRANSPARENT) as
 * transparent and removes them in place: afterwards they have no self
 * cost, no arcs and no call-tree nodes, and the rest of the profile
 * carries their cost.  A transparent function that is called from nowhere
 * (a root) keeps its cost, since there is no caller to give it to.
 * Per-function inclusive costs and call counts of other functions are
 * kept; those of removed functions are cleared. */
CG_EXTERN int cg_transparent_apply(cg_profile *profile, const char *const *patterns,
				   size_t count, cg_error *err);

#ifdef __cplusplus
}
#endif
#endif
