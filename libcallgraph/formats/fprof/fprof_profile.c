/*
 * fprof_profile.c — fprof's profiling phase: simulated stacks, the
 * CNT/OWN/ACC table and the calling-context tree (docs/fprof.md).
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "fprof_profile.h"

/* Base of the prefix hashes of tail-call levels (fp_entry.ph) and its
 * FP_GRAM-th power mod 2^64. */
#define FP_PH_BASE 0x9E3779B97F4A7C15ull
#define FP_PH_BASE16 0xf53f7dff42a4f4c1ull
_Static_assert(FP_GRAM == 16, "FP_PH_BASE16 is FP_PH_BASE to the power FP_GRAM");

/* ---- index keys ------------------------------------------------------------ */

static uint64_t hash_u32(uint64_t h, uint32_t v)
{
	return cg_hash_bytes(h, &v, sizeof v);
}

/* Room for element n (index n, so n + 1 elements). */
static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	return n == SIZE_MAX || cg_array_grow(arr, cap, n + 1, elem, 64) ? -1 : 0;
}

/* ---- life cycle ------------------------------------------------------------------ */

int cg_fp_init(fp_state *st)
{
	memset(st, 0, sizeof *st);
	static const char *const pseudo[] = { "undefined", "suspend", "garbage_collect" };
	for (int i = 0; i < 3; i++) {
		if (grow((void **)&st->funcs, &st->capfuncs, st->nfuncs, sizeof *st->funcs))
			return CG_ENOMEM;
		fp_func *f = &st->funcs[st->nfuncs++];
		memset(f, 0, sizeof *f);
		f->name = pseudo[i];
		f->model_fid = FP_NONE;
	}
	return 0;
}

void cg_fp_release(fp_state *st)
{
	for (size_t i = 0; i < st->nprocs; i++) {
		free(st->procs[i].ent);
		free(st->procs[i].lvl);
		free(st->procs[i].grams);
	}
	free(st->funcs);
	free(st->procs);
	free(st->rows);
	free(st->nodes);
	free(st->counts);
	cg_hashmap_release(&st->func_ix);
	cg_hashmap_release(&st->proc_ix);
	cg_hashmap_release(&st->row_ix);
	cg_hashmap_release(&st->node_ix);
	cg_hashmap_release(&st->count_ix);
	cg_fprof_arena_release(&st->arena);
	memset(st, 0, sizeof *st);
}

/* ---- interning --------------------------------------------------------------------- */

static void name_of(fp_state *st, fp_func *f)
{
	fprof_buf b = { 0 };
	cg_fprof_atom_write(&b, f->module, f->mlen);
	cg_fprof_buf_addc(&b, ':');
	cg_fprof_atom_write(&b, f->function, f->flen);
	cg_fprof_buf_addf(&b, "/%u", f->arity);
	f->name = b.oom ? NULL : cg_fprof_arena_strdup(&st->arena, b.data, b.len);
	cg_fprof_buf_release(&b);
}

uint32_t cg_fp_func_intern(fp_state *st, const char *m, size_t mlen, const char *f, size_t flen,
			uint32_t arity)
{
	uint64_t h = hash_u32(hash_u32(CG_HASH_INIT, arity), (uint32_t)mlen);
	h = cg_hash_bytes(cg_hash_bytes(h, m, mlen), f, flen);
	size_t cursor = 0;
	uint32_t i;
	while (cg_hashmap_next(&st->func_ix, h, &cursor, &i)) {
		fp_func *x = &st->funcs[i];
		if (x->arity == arity && x->mlen == mlen && x->flen == flen &&
		    memcmp(x->module, m, mlen) == 0 && memcmp(x->function, f, flen) == 0)
			return i;
	}
	if (grow((void **)&st->funcs, &st->capfuncs, st->nfuncs, sizeof *st->funcs))
		return FP_NONE;
	fp_func *x = &st->funcs[st->nfuncs];
	memset(x, 0, sizeof *x);
	x->module = cg_fprof_arena_strdup(&st->arena, m, mlen);
	x->function = cg_fprof_arena_strdup(&st->arena, f, flen);
	x->mlen = (uint32_t)mlen;
	x->flen = (uint32_t)flen;
	x->arity = arity;
	x->model_fid = FP_NONE;
	if (!x->module || !x->function)
		return FP_NONE;
	name_of(st, x);
	if (!x->name || st->nfuncs >= FP_NONE - 1 || cg_hashmap_add(&st->func_ix, h, (uint32_t)st->nfuncs))
		return FP_NONE;
	return (uint32_t)st->nfuncs++;
}

uint32_t cg_fp_proc_intern(fp_state *st, const char *node, size_t nodelen, uint32_t id,
			uint32_t serial, uint32_t creation)
{
	uint64_t h = hash_u32(hash_u32(hash_u32(CG_HASH_INIT, id), serial), creation);
	h = cg_hash_bytes(h, node, nodelen);
	size_t cursor = 0;
	uint32_t i;
	while (cg_hashmap_next(&st->proc_ix, h, &cursor, &i)) {
		fp_proc *p = &st->procs[i];
		if (p->id == id && p->serial == serial && strlen(p->node) == nodelen &&
		    memcmp(p->node, node, nodelen) == 0)
			return i;
	}
	if (grow((void **)&st->procs, &st->capprocs, st->nprocs, sizeof *st->procs) ||
	    grow((void **)&st->nodes, &st->capnodes, st->nnodes, sizeof *st->nodes))
		return FP_NONE;
	fp_proc *p = &st->procs[st->nprocs];
	memset(p, 0, sizeof *p);
	snprintf(p->pid, sizeof p->pid, "<0.%u.%u>", id, serial);
	p->id = id;
	p->serial = serial;
	p->node = cg_fprof_arena_strdup(&st->arena, node, nodelen);
	p->parent = FP_NONE;
	if (!p->node || st->nprocs >= FP_NONE - 1 || cg_hashmap_add(&st->proc_ix, h, (uint32_t)st->nprocs))
		return FP_NONE;
	/* the process's context-tree root */
	fp_node *n = &st->nodes[st->nnodes];
	memset(n, 0, sizeof *n);
	n->parent = FP_NONE;
	n->fid = FP_NONE;
	n->proc = (uint32_t)st->nprocs;
	n->memo_fid = FP_NONE;
	n->memo_child = FP_NONE;
	p->root = (uint32_t)st->nnodes++;
	return (uint32_t)st->nprocs++;
}

static fp_row *row_get_slow(fp_state *st, uint32_t proc, uint32_t caller, uint32_t func);

static inline fp_row *row_get(fp_state *st, uint32_t proc, uint32_t caller, uint32_t func)
{
	size_t s = (proc * 0x9E3779B1u ^ caller * 0x85EBCA6Bu ^ func * 0xC2B2AE35u) >> 22;
	if (st->row_memo[s].row && st->row_memo[s].proc == proc && st->row_memo[s].caller == caller &&
	    st->row_memo[s].func == func)
		return &st->rows[st->row_memo[s].row - 1];
	fp_row *r = row_get_slow(st, proc, caller, func);
	if (r) {
		st->row_memo[s].proc = proc;
		st->row_memo[s].caller = caller;
		st->row_memo[s].func = func;
		st->row_memo[s].row = (uint32_t)(r - st->rows) + 1;
	}
	return r;
}

static fp_row *row_get_slow(fp_state *st, uint32_t proc, uint32_t caller, uint32_t func)
{
	/* three 32-bit ids do not fit one key: a content key */
	uint64_t h = hash_u32(hash_u32(hash_u32(CG_HASH_INIT, proc), caller), func);
	size_t cursor = 0;
	uint32_t i;
	while (cg_hashmap_next(&st->row_ix, h, &cursor, &i)) {
		fp_row *r = &st->rows[i];
		if (r->proc == proc && r->caller == caller && r->func == func)
			return r;
	}
	if (st->nrows >= FP_NONE - 1 ||
	    grow((void **)&st->rows, &st->caprows, st->nrows, sizeof *st->rows) ||
	    cg_hashmap_add(&st->row_ix, h, (uint32_t)st->nrows)) {
		st->oom = 1;
		return NULL;
	}
	fp_row *r = &st->rows[st->nrows++];
	memset(r, 0, sizeof *r);
	r->proc = proc;
	r->caller = caller;
	r->func = func;
	st->procs[proc].has_rows = 1;
	return r;
}

static uint32_t node_child(fp_state *st, uint32_t parent, uint32_t fid)
{
	if (st->nodes[parent].memo_fid == fid && st->nodes[parent].memo_child != FP_NONE)
		return st->nodes[parent].memo_child;
	uint64_t key = (uint64_t)parent << 32 | fid;
	uint32_t i;
	if (cg_hashmap_get(&st->node_ix, key, &i)) {
		st->nodes[parent].memo_fid = fid;
		st->nodes[parent].memo_child = i;
		return i;
	}
	if (st->nnodes >= FP_NONE - 1 ||
	    grow((void **)&st->nodes, &st->capnodes, st->nnodes, sizeof *st->nodes) ||
	    cg_hashmap_put(&st->node_ix, key, (uint32_t)st->nnodes)) {
		st->oom = 1;
		return FP_NONE;
	}
	fp_node *n = &st->nodes[st->nnodes];
	memset(n, 0, sizeof *n);
	n->parent = parent;
	n->fid = fid;
	n->proc = st->nodes[parent].proc;
	n->memo_fid = FP_NONE;
	n->memo_child = FP_NONE;
	st->nodes[parent].memo_fid = fid;
	st->nodes[parent].memo_child = (uint32_t)st->nnodes;
	return (uint32_t)st->nnodes++;
}

static fp_count *count_get_slow(fp_state *st, uint32_t proc, uint32_t fid);

static inline fp_count *count_get(fp_state *st, uint32_t proc, uint32_t fid)
{
	size_t s = (proc * 0x9E3779B1u ^ fid * 0x85EBCA6Bu) >> 22;
	if (st->count_memo[s].count && st->count_memo[s].proc == proc && st->count_memo[s].fid == fid)
		return &st->counts[st->count_memo[s].count - 1];
	fp_count *c = count_get_slow(st, proc, fid);
	if (c) {
		st->count_memo[s].proc = proc;
		st->count_memo[s].fid = fid;
		st->count_memo[s].count = (uint32_t)(c - st->counts) + 1;
	}
	return c;
}

static fp_count *count_get_slow(fp_state *st, uint32_t proc, uint32_t fid)
{
	uint64_t key = (uint64_t)proc << 32 | fid;
	uint32_t i;
	if (cg_hashmap_get(&st->count_ix, key, &i))
		return &st->counts[i];
	if (st->ncounts >= FP_NONE - 1 ||
	    grow((void **)&st->counts, &st->capcounts, st->ncounts, sizeof *st->counts) ||
	    cg_hashmap_put(&st->count_ix, key, (uint32_t)st->ncounts)) {
		st->oom = 1;
		return NULL;
	}
	fp_count *c = &st->counts[st->ncounts++];
	memset(c, 0, sizeof *c);
	c->proc = proc;
	c->fid = fid;
	return c;
}

/* ---- stack primitives -------------------------------------------------------------- */

static inline uint32_t lvl_size(const fp_proc *p, uint32_t l)
{
	uint32_t end = l + 1 < p->nlvl ? p->lvl[l + 1] : p->nent;
	return end - p->lvl[l];
}

/* Front entry of level l (the most recent one). */
static inline fp_entry *lvl_front(fp_proc *p, uint32_t l)
{
	uint32_t end = l + 1 < p->nlvl ? p->lvl[l + 1] : p->nent;
	return &p->ent[end - 1];
}

static void gram_push(fp_state *st, uint32_t proc, uint32_t i);
static void gram_pop(fp_state *st, uint32_t proc, uint32_t i);

/* Entries hold the index of their fp_count, so only a new entry needs
 * the hash lookup. */
static inline fp_count *entry_count(fp_state *st, const fp_entry *e)
{
	return &st->counts[e->count];
}

/* Appends an entry to the top level (or a new level). */
static int add_entry(fp_state *st, uint32_t proc, uint32_t fid, int64_t ts, int new_level)
{
	fp_proc *p = &st->procs[proc];
	if (p->nent == p->cap) {
		uint32_t nc = p->cap ? p->cap * 2 : 16;
		fp_entry *e = realloc(p->ent, nc * sizeof *e);
		if (!e)
			return CG_ENOMEM;
		p->ent = e;
		p->cap = nc;
	}
	if (new_level || p->nlvl == 0) {
		if (p->nlvl == p->lcap) {
			uint32_t nc = p->lcap ? p->lcap * 2 : 16;
			uint32_t *l = realloc(p->lvl, nc * sizeof *l);
			if (!l)
				return CG_ENOMEM;
			p->lvl = l;
			p->lcap = nc;
		}
		p->lvl[p->nlvl++] = p->nent;
	} else {
		entry_count(st, &p->ent[p->nent - 1])->fronts--;
	}
	fp_count *c = count_get(st, proc, fid);
	if (!c)
		return CG_ENOMEM;
	p = &st->procs[proc];
	c->entries++;
	c->fronts++;
	p->ent[p->nent].count = (uint32_t)(c - st->counts);
	p->ent[p->nent].row = FP_NONE;
	p->ent[p->nent].fid = fid;
	p->ent[p->nent].node = FP_NONE;
	p->ent[p->nent].ts = ts;
	p->ent[p->nent].gh = 0;
	p->ent[p->nent].gprev = FP_NONE;
	/* level start: no entry below it counts */
	p->ent[p->nent].ph = (p->lvl[p->nlvl - 1] == p->nent ? 0 : p->ent[p->nent - 1].ph) * FP_PH_BASE +
			     fid + 1;
	p->nent++;
	if (p->nent - p->lvl[p->nlvl - 1] >= FP_GRAM)
		gram_push(st, proc, p->nent - 1);
	return st->oom ? CG_ENOMEM : 0;
}

/* Removes the top entry (updating counts); returns its entries count
 * after removal. */
static int pop_entry(fp_state *st, uint32_t proc)
{
	fp_proc *p = &st->procs[proc];
	if (p->ent[p->nent - 1].gh)
		gram_pop(st, proc, p->nent - 1);
	fp_entry *e = &p->ent[--p->nent];
	fp_count *c = entry_count(st, e);
	c->fronts--;
	int left = (int)--c->entries;
	if (p->lvl[p->nlvl - 1] == p->nent)
		p->nlvl--;
	else
		entry_count(st, &p->ent[p->nent - 1])->fronts++;
	return left;
}

/* fprof's "caller" of the entry at index i, where i is the front of the
 * stack as fprof sees it (entries above i already gone).  Returns 0 when
 * no counter is charged (suspend on suspend), else 1 with *caller_entry
 * (index, or FP_NONE for `undefined`) and *func. */
static inline int caller_of(fp_proc *p, uint32_t i, uint32_t l, uint32_t *caller_entry, uint32_t *func)
{
	fp_entry *e = &p->ent[i];
	int alone = p->lvl[l] == i;   /* only entry left in its level */
	*func = e->fid;
	if (alone && l > 0) {
		uint32_t below = p->lvl[l] - 1;           /* front of level l-1 */
		int below_alone = lvl_size(p, l - 1) == 1;
		if (e->fid == FP_SUSPEND && below_alone && p->ent[below].fid == FP_SUSPEND)
			return 0;
		if (e->fid == FP_GC && below_alone && p->ent[below].fid == FP_SUSPEND) {
			*caller_entry = l >= 2 ? p->lvl[l - 1] - 1 : FP_NONE;
			return 1;
		}
		*caller_entry = below;
		return 1;
	}
	*caller_entry = alone ? FP_NONE : i - 1;
	return 1;
}

/* The context node of entry i in level l.  The tree follows frames: a
 * level is one Erlang stack frame and its tail-call chain replaces the
 * running function in place, so every entry of level l hangs under the
 * front of level l-1 (or the root).  Long tail-call chains therefore add
 * siblings, not depth.  A node is re-homed when the level below changed
 * (fprof inserting a bottom level). */
static __attribute__((noinline)) uint32_t entry_node_slow(fp_state *st, uint32_t proc, uint32_t i,
							   uint32_t l)
{
	fp_proc *p = &st->procs[proc];
	uint32_t parent = p->root;
	if (l > 0) {
		uint32_t below = p->lvl[l] - 1;
		parent = p->ent[below].node;
		if (parent == FP_NONE) {
			/* never charged yet: place it first (rare; iterative so
			 * deep stacks cannot exhaust the C stack) */
			uint32_t k = l - 1;
			while (k > 0 && p->ent[p->lvl[k] - 1].node == FP_NONE)
				k--;
			for (; k < l; k++) {
				uint32_t f = (k + 1 < p->nlvl ? p->lvl[k + 1] : p->nent) - 1;
				if (p->ent[f].node == FP_NONE) {
					uint32_t par = k == 0 ? p->root : p->ent[p->lvl[k] - 1].node;
					uint32_t nn = node_child(st, par, p->ent[f].fid);
					p = &st->procs[proc];
					if (nn == FP_NONE)
						return FP_NONE;
					p->ent[f].node = nn;
				}
			}
			parent = p->ent[below].node;
		}
	}
	fp_entry *e = &p->ent[i];
	if (e->node != FP_NONE && st->nodes[e->node].parent == parent)
		return e->node;
	uint32_t n = node_child(st, parent, e->fid);
	st->procs[proc].ent[i].node = n;
	return n;
}

/* entry_node's common case inline: the entry already hangs under the
 * front of the level below. */
static inline uint32_t entry_node(fp_state *st, uint32_t proc, uint32_t i, uint32_t l)
{
	const fp_proc *p = &st->procs[proc];
	uint32_t parent = l > 0 ? p->ent[p->lvl[l] - 1].node : p->root;
	uint32_t n = p->ent[i].node;
	if (parent != FP_NONE && n != FP_NONE && st->nodes[n].parent == parent)
		return n;
	if (parent != FP_NONE) {
		/* a new entry (every push): its node under the parent */
		n = node_child(st, parent, p->ent[i].fid);
		st->procs[proc].ent[i].node = n;
		return n;
	}
	return entry_node_slow(st, proc, i, l);
}

enum { CLK_CNT, CLK_OWN, CLK_ACC };

/* Real timestamps are far from the limits; corrupt ones must not make the
 * arithmetic undefined, so sums saturate. */
static inline int64_t sub_sat(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_sub_overflow(a, b, &r))
		r = b > 0 ? INT64_MIN : INT64_MAX;
	return r;
}

static inline void add_sat(int64_t *a, int64_t v)
{
	if (__builtin_add_overflow(*a, v, a))
		*a = v > 0 ? INT64_MAX : INT64_MIN;
}

/* fprof's trace_clock on the stack whose front is entry i of level l. */
static inline __attribute__((always_inline)) void clock_at(fp_state *st, uint32_t proc, uint32_t i,
							   uint32_t l, int clk, int64_t t)
{
	fp_proc *p = &st->procs[proc];
	uint32_t ce, func;
	if (!caller_of(p, i, l, &ce, &func))
		return;
	uint32_t caller = ce == FP_NONE ? FP_UNDEFINED : p->ent[ce].fid;
	fp_entry *en = &p->ent[i];
	fp_row *r;
	if (en->row != FP_NONE && en->rcaller == caller) {
		r = &st->rows[en->row];
	} else {
		r = row_get(st, proc, caller, func);
		if (!r)
			return;
		p = &st->procs[proc];
		p->ent[i].row = (uint32_t)(r - st->rows);
		p->ent[i].rcaller = caller;
	}
	if (clk == CLK_CNT) {
		r->cnt++;
	} else if (clk == CLK_ACC) {
		int64_t v = sub_sat(t, p->ent[i].ts);
		add_sat(&r->acc, v);
		if (func == FP_SUSPEND) {
			uint32_t n = entry_node(st, proc, i, l);
			if (n != FP_NONE)
				add_sat(&st->nodes[n].wait, v);
		}
	} else if (func != FP_SUSPEND) {
		int64_t v = sub_sat(t, p->ent[i].ts);
		add_sat(&r->own, v);
		uint32_t n = entry_node(st, proc, i, l);
		if (n != FP_NONE)
			add_sat(&st->nodes[n].self, v);
	} else {
		entry_node(st, proc, i, l);
	}
	if (clk == CLK_CNT) {
		uint32_t n = entry_node(st, proc, i, l);
		if (n != FP_NONE)
			st->nodes[n].calls++;
	}
}

static inline __attribute__((always_inline)) void clock_top(fp_state *st, uint32_t proc, int clk,
							    int64_t t)
{
	fp_proc *p = &st->procs[proc];
	if (p->nent == 0)
		return;
	clock_at(st, proc, p->nent - 1, p->nlvl - 1, clk, t);
}

static int push(fp_state *st, uint32_t proc, uint32_t fid, int64_t ts)
{
	clock_top(st, proc, CLK_OWN, ts);
	int rc = add_entry(st, proc, fid, ts, 1);
	if (rc)
		return rc;
	clock_top(st, proc, CLK_CNT, 1);
	return st->oom ? CG_ENOMEM : 0;
}

/* ---- tail-call collapse ---------------------------------------------------------------
 *
 * fprof's trace_call_collapse, for a level y0 (just added), y1, ... y(n-1)
 * (functions, newest first), tries k = 1, 2, ... and drops y0..y(k-1) when
 * its pair check succeeds.  For a candidate (y_k == y0) the check matches
 * the pairs (y_a, y_a+1) against (y_s, y_s+1) starting at a = 0, s = k; a
 * mismatch of the second elements fails at once, so after the first pair
 * every step compares equal first elements and the walk never skips: the
 * check succeeds exactly when y[i] == y[k + i] for i = 0..k (2k < n).
 * fprof tries every k, which is quadratic on long aperiodic tail-call
 * chains (lists:sort's merge functions).  We try k < FP_GRAM directly, and
 * larger k only where the FP_GRAM-gram starting at y_k equals the one at
 * y0, found through the gram index; every candidate is verified. */

uint32_t cg_fp_collapse_reference(const uint32_t *y, uint32_t len)
{
	if (len <= 2)
		return 0;
	for (uint32_t k = 1; k < len; k++) {
		if (y[k] != y[0])
			continue;
		uint32_t a = 0, s = k, n = k;
		for (;;) {
			if (n == 0)
				return k;
			if (a + 1 < len && s + 1 < len && y[a] == y[s] && y[a + 1] == y[s + 1]) {
				a++;
				s++;
				n--;
				continue;
			}
			if (y[a] == y[s] || s + 1 >= len)
				break;
			s++;
		}
	}
	return 0;
}

/* The gram ending at entry i of a level starting at `start`, from the
 * prefix hashes: ph[i] - ph[i - FP_GRAM] * FP_PH_BASE^FP_GRAM (mod 2^64),
 * exact for equal grams; mixed, since the slot hash takes its high bits. */
static uint64_t gram_hash_at(const fp_proc *p, uint32_t i, uint32_t start)
{
	uint64_t below = i - start >= FP_GRAM ? p->ent[i - FP_GRAM].ph : 0;
	uint64_t h = p->ent[i].ph - below * FP_PH_BASE16;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h | 1;   /* never 0 */
}

static size_t gram_slot_hash(uint32_t start, uint64_t gh)
{
	return (size_t)((gh ^ (uint64_t)start * 0x9E3779B97F4A7C15ull) >> 32);
}

/* Finds the slot for the key (an empty one if absent). */
static fp_gram_slot *gram_find(fp_proc *p, uint32_t start, uint64_t gh)
{
	size_t mask = p->capgrams - 1;
	for (size_t j = gram_slot_hash(start, gh) & mask;; j = (j + 1) & mask) {
		fp_gram_slot *g = &p->grams[j];
		if (!g->entry || (g->gh == gh && g->start == start))
			return g;
	}
}

static int gram_grow(fp_proc *p)
{
	uint32_t cap = p->capgrams ? p->capgrams * 2 : 256;
	fp_gram_slot *old = p->grams;
	uint32_t oldcap = p->capgrams;
	if (!cap)
		return -1;
	p->grams = calloc(cap, sizeof *p->grams);
	if (!p->grams) {
		p->grams = old;
		return -1;
	}
	p->capgrams = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].entry)
			*gram_find(p, old[i].start, old[i].gh) = old[i];
	free(old);
	return 0;
}

/* Removes slot g, shifting later members of its probe run back. */
static void gram_erase(fp_proc *p, fp_gram_slot *g)
{
	size_t mask = p->capgrams - 1, i = (size_t)(g - p->grams);
	p->grams[i].entry = 0;
	p->ngrams--;
	for (size_t j = (i + 1) & mask; p->grams[j].entry; j = (j + 1) & mask) {
		fp_gram_slot moved = p->grams[j];
		size_t home = gram_slot_hash(moved.start, moved.gh) & mask;
		/* can `moved` live at i?  yes when i lies cyclically in [home, j) */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			p->grams[i] = moved;
			p->grams[j].entry = 0;
			i = j;
		}
	}
}

/* Indexes the gram starting at entry i of the top level (i is the newest
 * entry indexed so far). */
static void gram_push(fp_state *st, uint32_t proc, uint32_t i)
{
	fp_proc *p = &st->procs[proc];
	uint32_t start = p->lvl[p->nlvl - 1];
	fp_entry *e = &p->ent[i];
	e->gh = 0;
	e->gprev = FP_NONE;
	if (i - start + 1 < FP_GRAM)
		return;
	if ((p->ngrams + 1) * 2 > p->capgrams && gram_grow(p)) {
		st->oom = 1;
		return;
	}
	e->gh = gram_hash_at(p, i, start);
	fp_gram_slot *g = gram_find(p, start, e->gh);
	if (g->entry) {
		e->gprev = g->entry - 1;
	} else {
		g->gh = e->gh;
		g->start = start;
		p->ngrams++;
	}
	g->entry = i + 1;
}

/* Undoes gram_push for entry i of the top level, the newest indexed one. */
static void gram_pop(fp_state *st, uint32_t proc, uint32_t i)
{
	fp_proc *p = &st->procs[proc];
	fp_entry *e = &p->ent[i];
	if (!e->gh)
		return;
	fp_gram_slot *g = gram_find(p, p->lvl[p->nlvl - 1], e->gh);
	if (!g->entry)
		return;
	if (e->gprev != FP_NONE)
		g->entry = e->gprev + 1;
	else
		gram_erase(p, g);
	e->gh = 0;
}

/* The level's functions y[i] = ent[top - i] equal at offset k for i = 0..k. */
static int square_at(const fp_proc *p, uint32_t top, uint32_t k)
{
	for (uint32_t i = 0; i <= k; i++)
		if (p->ent[top - i].fid != p->ent[top - k - i].fid)
			return 0;
	return 1;
}

/* fprof's trace_call_collapse on the top level after e0 was added. */
static void collapse(fp_state *st, uint32_t proc)
{
	fp_proc *p = &st->procs[proc];
	uint32_t start = p->lvl[p->nlvl - 1], len = p->nent - start, top = p->nent - 1;
	if (len <= 2)
		return;
	uint32_t maxk = (len - 1) / 2, k = 0;
	uint32_t small = maxk < FP_GRAM - 1 ? maxk : FP_GRAM - 1;
	for (uint32_t c = 1; c <= small && !k; c++)
		if (p->ent[top - c].fid == p->ent[top].fid && square_at(p, top, c))
			k = c;
	if (!k && p->ent[top].gh) {
		for (uint32_t j = p->ent[top].gprev; j != FP_NONE; j = p->ent[j].gprev) {
			uint32_t c = top - j;
			if (c > maxk)
				break;
			if (c >= FP_GRAM && square_at(p, top, c)) {
				k = c;
				break;
			}
		}
	}
	/* drop e0 .. e(k-1); e_k becomes the front */
	for (uint32_t d = 0; d < k; d++)
		pop_entry(st, proc);
}

static int shove(fp_state *st, uint32_t proc, uint32_t fid, int64_t ts)
{
	clock_top(st, proc, CLK_OWN, ts);
	int rc = add_entry(st, proc, fid, ts, 0);
	if (rc)
		return rc;
	collapse(st, proc);
	fp_proc *p = &st->procs[proc];
	p->ent[p->nent - 1].ts = ts;   /* front is F@T (an older F may have survived) */
	clock_top(st, proc, CLK_CNT, 1);
	return st->oom ? CG_ENOMEM : 0;
}

/* fprof's trace_return_to_int: execution continues in fid at ts. */
static int unwind(fp_state *st, uint32_t proc, uint32_t fid, int64_t ts)
{
	fp_proc *p = &st->procs[proc];
	clock_top(st, proc, CLK_OWN, ts);
	if (p->nent == 0) {
		if (fid == FP_UNDEFINED)
			return 0;
		return add_entry(st, proc, fid, ts, 1);
	}
	/* Is fid the front of a level below the top one? */
	fp_count *c = count_get(st, proc, fid);
	if (!c)
		return CG_ENOMEM;
	p = &st->procs[proc];
	uint32_t fronts_below = c->fronts - (p->ent[p->nent - 1].fid == fid);
	if (fronts_below == 0 && fid != FP_UNDEFINED) {
		/* not found: nothing popped, nothing charged */
		return add_entry(st, proc, fid, ts, 1);
	}
	/* pop the top level, then whole levels until one's front is fid */
	int first = 1;
	for (;;) {
		p = &st->procs[proc];
		if (p->nent == 0)
			break;   /* fid is undefined: everything popped */
		uint32_t l = p->nlvl - 1;
		if (!first && lvl_front(p, l)->fid == fid) {
			uint32_t i = p->nent - 1;
			if (entry_count(st, &st->procs[proc].ent[i])->entries == 1)
				clock_at(st, proc, i, l, CLK_ACC, ts);
			st->procs[proc].ent[i].ts = ts;
			break;
		}
		first = 0;
		uint32_t nl = p->nlvl;
		while (st->procs[proc].nlvl == nl) {
			p = &st->procs[proc];
			uint32_t i = p->nent - 1;
			uint32_t f = p->ent[i].fid;
			(void)f;
			if (entry_count(st, &p->ent[i])->entries == 1)
				clock_at(st, proc, i, p->nlvl - 1, CLK_ACC, ts);
			pop_entry(st, proc);
		}
	}
	return st->oom ? CG_ENOMEM : 0;
}

/* ---- events ------------------------------------------------------------------------ */

static void init_log(fp_state *st, uint32_t proc, uint32_t fid)
{
	fp_proc *p = &st->procs[proc];
	if (fid == FP_SUSPEND || !p->has_record || p->init_cnt == 0)
		return;
	if (p->init_n < 2)
		p->init_log[p->init_n++] = fid;
	p->init_cnt--;
}

static int top_is(fp_proc *p, uint32_t fid)
{
	return p->nent > 0 && p->ent[p->nent - 1].fid == fid;
}

int cg_fp_call(fp_state *st, uint32_t proc, uint32_t fid, uint32_t cp, int64_t ts)
{
	fp_proc *p = &st->procs[proc];
	int init_cnt = p->has_record ? p->init_cnt : 0;
	p->defined = 1;
	if (p->nent == 0) {
		init_log(st, proc, fid);
		if (cp != FP_UNDEFINED) {
			int rc = add_entry(st, proc, cp, ts, 1);
			if (rc)
				return rc;
		}
		return push(st, proc, fid, ts);
	}
	if (p->nlvl == 1 && p->nent == 1 && p->ent[0].fid == fid && init_cnt == 2) {
		/* first call of a freshly spawned process: time from its first in */
		int64_t t0 = p->ent[0].ts;
		init_log(st, proc, fid);
		pop_entry(st, proc);
		if (cp != FP_UNDEFINED) {
			int rc = add_entry(st, proc, cp, t0, 1);
			if (rc)
				return rc;
		}
		return push(st, proc, fid, t0);
	}
	if (top_is(p, FP_SUSPEND) || top_is(p, FP_GC))
		return FP_EINCONSISTENT;
	uint32_t f0 = lvl_front(p, p->nlvl - 1)->fid;
	uint32_t f1 = p->nlvl >= 2 ? lvl_front(p, p->nlvl - 2)->fid : FP_NONE;
	uint32_t f2 = p->nlvl >= 3 ? lvl_front(p, p->nlvl - 3)->fid : FP_NONE;
	if (f0 == cp && f1 == cp) {
		init_log(st, proc, fid);
		return shove(st, proc, fid, ts);
	}
	if (f0 == cp) {
		init_log(st, proc, fid);
		return push(st, proc, fid, ts);
	}
	if (f1 == cp) {
		init_log(st, proc, fid);
		return shove(st, proc, fid, ts);
	}
	if (p->nlvl >= 3 && f0 == f1 && f2 == cp) {
		init_log(st, proc, fid);
		int rc = unwind(st, proc, f0, ts);
		return rc ? rc : shove(st, proc, fid, ts);
	}
	if (p->nlvl == 1) {
		init_log(st, proc, fid);
		if (cp != FP_UNDEFINED) {
			/* CP becomes a new bottom level, stamped with the level's front TS */
			int64_t ts0 = p->ent[p->nent - 1].ts;
			/* the level moves up one slot: its gram index is rebuilt */
			for (uint32_t i = p->nent; i-- > p->lvl[0];)
				gram_pop(st, proc, i);
			int rc = add_entry(st, proc, cp, ts0, 1);
			if (rc)
				return rc;
			p = &st->procs[proc];
			fp_entry moved = p->ent[p->nent - 1];
			memmove(p->ent + 1, p->ent, (p->nent - 1) * sizeof *p->ent);
			p->ent[0] = moved;
			/* levels: [0,1) is the new bottom, the old level starts at 1 */
			p->lvl[0] = 0;
			p->lvl[1] = 1;   /* both fronts were counted by add_entry */
			for (uint32_t i = 1; i < p->nent; i++)
				gram_push(st, proc, i);
		}
		return shove(st, proc, fid, ts);
	}
	int rc;
	if (cp == FP_UNDEFINED) {
		rc = unwind(st, proc, FP_UNDEFINED, ts);
	} else {
		init_log(st, proc, cp);
		rc = shove(st, proc, cp, ts);
	}
	if (rc)
		return rc;
	init_log(st, proc, fid);
	return push(st, proc, fid, ts);
}

int cg_fp_return_to(fp_state *st, uint32_t proc, uint32_t fid, int64_t ts)
{
	fp_proc *p = &st->procs[proc];
	if (top_is(p, FP_SUSPEND) || top_is(p, FP_GC))
		return FP_EINCONSISTENT;
	p->defined = 1;
	return unwind(st, proc, fid, ts);
}

int cg_fp_spawn(fp_state *st, uint32_t child, uint32_t parent, uint32_t mfa, fprof_term *args_mfa,
	     int64_t ts)
{
	fp_proc *p = &st->procs[child];
	if (p->defined)
		return 0;
	p->defined = 1;
	int rc = add_entry(st, child, mfa, ts, 1);
	if (rc)
		return rc;
	rc = push(st, child, FP_SUSPEND, ts);
	p = &st->procs[child];
	p->has_record = 1;
	p->parent = parent;
	p->spawned_as = args_mfa;
	p->init_n = 0;
	p->init_cnt = 2;
	return rc;
}

int cg_fp_exit(fp_state *st, uint32_t proc, int64_t ts)
{
	fp_proc *p = &st->procs[proc];
	int rc = 0;
	if (p->defined && p->nent > 0)
		rc = unwind(st, proc, FP_UNDEFINED, ts);
	p = &st->procs[proc];
	while (p->nent > 0)
		pop_entry(st, proc);
	p->defined = 0;
	return rc;
}

int cg_fp_out(fp_state *st, uint32_t proc, uint32_t fid, int64_t ts)
{
	fp_proc *p = &st->procs[proc];
	p->defined = 1;
	if (p->nent == 0) {
		if (fid != FP_UNDEFINED) {
			int rc = add_entry(st, proc, fid, ts, 1);
			if (rc)
				return rc;
		}
		return push(st, proc, FP_SUSPEND, ts);
	}
	if (top_is(p, FP_SUSPEND) && lvl_size(p, p->nlvl - 1) == 1)
		return add_entry(st, proc, FP_SUSPEND, ts, 1);
	return push(st, proc, FP_SUSPEND, ts);
}

int cg_fp_in(fp_state *st, uint32_t proc, uint32_t fid, int64_t ts)
{
	fp_proc *p = &st->procs[proc];
	if (!p->defined || p->nent == 0) {
		p->defined = 1;
		return add_entry(st, proc, fid, ts, 1);
	}
	if (!(top_is(p, FP_SUSPEND) && lvl_size(p, p->nlvl - 1) == 1))
		return FP_EINCONSISTENT;
	if (p->nlvl == 1)
		return unwind(st, proc, FP_UNDEFINED, ts);
	fp_entry *below = lvl_front(p, p->nlvl - 2);
	if (below->fid == FP_SUSPEND && lvl_size(p, p->nlvl - 2) == 1) {
		pop_entry(st, proc);
		return 0;
	}
	return unwind(st, proc, below->fid, ts);
}

int cg_fp_gc_start(fp_state *st, uint32_t proc, int64_t ts)
{
	st->procs[proc].defined = 1;
	return push(st, proc, FP_GC, ts);
}

int cg_fp_gc_end(fp_state *st, uint32_t proc, int64_t ts)
{
	fp_proc *p = &st->procs[proc];
	if (!p->defined) {
		p->defined = 1;
		return 0;
	}
	if (p->nent == 0)
		return 0;
	if (!(top_is(p, FP_GC) && lvl_size(p, p->nlvl - 1) == 1))
		return FP_EINCONSISTENT;
	if (p->nlvl == 1)
		return unwind(st, proc, FP_UNDEFINED, ts);
	return unwind(st, proc, lvl_front(p, p->nlvl - 2)->fid, ts);
}

void cg_fp_handled(fp_state *st, int64_t ts)
{
	if (!st->have_first) {
		st->have_first = 1;
		st->first_ts = ts;
	}
	st->last_ts = ts;
	st->handled++;
}

int cg_fp_finish(fp_state *st, int64_t ts)
{
	for (size_t i = 0; i < st->nprocs; i++) {
		if (!st->procs[i].defined)
			continue;
		int rc = cg_fp_exit(st, (uint32_t)i, ts);
		if (rc)
			return rc;
	}
	return st->oom ? CG_ENOMEM : 0;
}

size_t cg_fp_max_depth(const fp_state *st)
{
	size_t m = 0;
	for (size_t i = 0; i < st->nprocs; i++)
		if (st->procs[i].cap > m)
			m = st->procs[i].cap;
	return m;
}
