/*
 * budget.c — the process-wide memory budget (see budget.h and
 * cg_set_memory_limit in callgraph/common.h).
 *
 * Counting is approximate by design: it covers the structures that grow
 * with the input, not every small allocation, and arrays freed on their
 * own (a reader's temporary tables) are not all given back, so the count
 * may run ahead of the real use but not far behind it.
 */
#include <stdatomic.h>
#include <stdint.h>

#include "budget.h"
#include "callgraph/common.h"

static _Atomic uint64_t limit_bytes;    /* 0: no limit, nothing counted */
static _Atomic uint64_t used_bytes;
static atomic_int limit_hit;
/* A charge went past the limit in this thread: the thread's reader is
 * the one to stop (cgdiff reads its two sides in two threads).  It holds
 * the generation of the limit it passed, so a new limit clears it. */
static atomic_uint limit_generation;
static _Thread_local unsigned over_generation;

void cg_set_memory_limit(uint64_t bytes)
{
	atomic_store(&limit_bytes, bytes);
	atomic_store(&used_bytes, 0);
	atomic_store(&limit_hit, 0);
	/* never 0, which means "not over" */
	if (atomic_fetch_add(&limit_generation, 1) + 1 == 0)
		atomic_fetch_add(&limit_generation, 1);
}

uint64_t cg_memory_limit(void)
{
	return atomic_load(&limit_bytes);
}

int cg_memory_limit_hit(void)
{
	return atomic_load(&limit_hit);
}

int cg_budget_take(size_t bytes)
{
	uint64_t limit = atomic_load_explicit(&limit_bytes, memory_order_relaxed);
	if (!limit)
		return 0;
	uint64_t now = atomic_fetch_add(&used_bytes, bytes) + bytes;
	if (now > limit || now < bytes) {
		atomic_fetch_sub(&used_bytes, bytes);
		atomic_store(&limit_hit, 1);
		return CG_ENOMEM;
	}
	return 0;
}

void cg_budget_give(size_t bytes)
{
	if (!atomic_load_explicit(&limit_bytes, memory_order_relaxed))
		return;
	/* never below zero: a give for memory taken before the limit was set */
	uint64_t cur = atomic_load(&used_bytes);
	while (!atomic_compare_exchange_weak(&used_bytes, &cur, cur > bytes ? cur - bytes : 0))
		;
}

void cg_budget_charge(size_t bytes)
{
	uint64_t limit = atomic_load_explicit(&limit_bytes, memory_order_relaxed);
	if (!limit)
		return;
	uint64_t now = atomic_fetch_add(&used_bytes, bytes) + bytes;
	if (now > limit || now < bytes) {
		over_generation = atomic_load(&limit_generation);
		atomic_store(&limit_hit, 1);
	}
}

int cg_budget_over(void)
{
	return over_generation != 0 && over_generation == atomic_load(&limit_generation);
}
