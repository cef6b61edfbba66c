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

#endif
