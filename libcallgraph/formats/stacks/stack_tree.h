/*
 * stack_tree.h — a call tree built from sampled stacks before the events
 * are known (not installed).
 *
 * Readers of sample streams (perf script, folded stacks) learn the events
 * as they read, but the model fixes its events once the first cost is
 * stored.  So they collect the tree here — nodes keyed by (parent,
 * function), values keyed by (node, event) — and hand it to the model at
 * the end, once every event is declared.
 */
#ifndef CG_STACK_TREE_H
#define CG_STACK_TREE_H

#include <stdint.h>
#include "callgraph.h"
#include "hashmap.h"

struct cg_stack_tree {
	struct cg_hashmap children;   /* parent << 32 | function -> node */
	uint32_t *parent;             /* per node; UINT32_MAX for a part's root */
	cg_fid *func;                 /* per node; the part for a root */
	size_t count, cap;
	struct cg_hashmap values;     /* node << 6 | event -> index in vals */
	int64_t *vals;
	size_t nvals, vcap;
	uint64_t magnitude[CG_MAX_EVENTS];   /* sum of |values| added, per event */
};

/* The most the values of one event may add up to (in magnitude): every
 * sum the model makes of them later (inclusive costs, totals) then stays
 * far from int64_t overflow. */
#define CG_STACK_VALUE_LIMIT ((uint64_t)1 << 62)

/* The root of part `part` (created on first use). */
int cg_stack_tree_root(struct cg_stack_tree *t, unsigned part, uint32_t *out);
/* The child of `parent` for function f (created on first use). */
int cg_stack_tree_child(struct cg_stack_tree *t, uint32_t parent, cg_fid f, uint32_t *out);
/* Adds v to node's value of event e (< CG_MAX_EVENTS).  CG_EFORMAT (no
 * message) when the event's values would pass CG_STACK_VALUE_LIMIT. */
int cg_stack_tree_add(struct cg_stack_tree *t, uint32_t node, unsigned e, int64_t v);
/* Builds the collected tree in p (whose events and parts must all exist)
 * and derives self costs, arcs and inclusive costs from it. */
int cg_stack_tree_emit(struct cg_stack_tree *t, cg_profile *p, cg_error *err);
void cg_stack_tree_release(struct cg_stack_tree *t);

#endif
