/*
 * budget.h — internal: the memory budget behind cg_set_memory_limit().
 *
 * The places where a profile's memory grows with its input (growable
 * arrays, hash tables, arena chunks, the per-function cost arrays) take
 * what they add from one process-wide budget before allocating it, and
 * fail with CG_ENOMEM when it would pass the limit; cg_memory_limit_hit()
 * then tells the caller that the limit, not the system, said no.  Without
 * a limit (the default for library users) nothing is counted.
 */
#ifndef CG_BUDGET_H
#define CG_BUDGET_H

#include <stddef.h>

/* 0, or CG_ENOMEM when `bytes` more would pass the limit (nothing taken). */
int cg_budget_take(size_t bytes);
/* Gives back what was taken (freed memory, or a failed allocation). */
void cg_budget_give(size_t bytes);

/* For allocations that cannot be refused where they happen (libxml2's,
 * through cg_count_xml_memory): takes `bytes` even past the limit, and
 * then marks the limit as hit, which the reader polls with
 * cg_budget_over() to stop at its next step. */
void cg_budget_charge(size_t bytes);
/* Nonzero once a charge in this thread went past the limit (until the
 * next cg_set_memory_limit). */
int cg_budget_over(void);

#endif
