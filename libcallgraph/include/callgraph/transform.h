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
 *
 * Thread safety: transforms only read their input profile and build a
 * new one; several may run in parallel on the same input.
 */
#ifndef CALLGRAPH_TRANSFORM_H
#define CALLGRAPH_TRANSFORM_H

#include "callgraph/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returns in *out a copy of `profile` in which every function whose name
 * (raw or demangled) matches one of the fnmatch(3) glob `patterns`, and
 * every function already flagged CG_FN_TRANSPARENT, is removed: it keeps
 * its number and gets the CG_FN_TRANSPARENT flag, but has no self cost,
 * no arcs and no call-tree nodes left; the rest of the profile carries its
 * cost.  Self costs are split with largest-remainder rounding, so totals
 * stay exact.  A matching function that is called from nowhere (a root, or
 * called spontaneously) keeps its cost, since there is no caller to give
 * it to, and is not flagged.  Parts with a call tree have their arcs,
 * self costs and per-function totals derived again from the new tree. */
CG_EXTERN int cg_transparent_apply(cg_profile **out, const cg_profile *profile,
				   const char *const *patterns, size_t count, cg_error *err);

#ifdef __cplusplus
}
#endif
#endif
