/*
 * positions.c — where inside a function the cost was spent: self costs per
 * position (line, instruction address, inlined file) and arc costs per
 * call site.
 *
 * Two tables per part, one for self costs (owner: function) and one for
 * call sites (owner: arc index).  An entry is found by a content hash of
 * (owner, address, line, file) in the one hash map of the library, and the
 * entries of one owner are chained in the order they were first added, so
 * a profile without positions pays one NULL pointer per part and one with
 * them about 48 bytes plus the cost vector per distinct position.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "budget.h"
#include "callgraph.h"
#include "checked.h"
#include "hashmap.h"
#include "positions.h"

struct pos_entry {
	uint32_t owner;      /* function or arc index */
	uint32_t next;       /* next entry of the owner + 1, 0 at the end */
	uint32_t line;
	uint32_t reserved;
	uint64_t addr;
	const char *file;    /* interned; NULL: the owner's own file */
	uint64_t count;      /* call sites: calls made there */
};

struct pos_table {
	struct pos_entry *v;
	size_t n, cap;
	cg_cost *costs;      /* n * nev */
	size_t costcap;
	struct cg_hashmap index;
	uint32_t *head, *tail;   /* per owner: entry + 1, 0 none */
	size_t ownercap, tailcap;
	/* self table only, NULL until a reader sets one: event 0's exact
	 * (fractional) cost per entry, NAN where none was set (gmon's
	 * histogram bins shared between lines, like cg_profile_self_exact) */
	double *exact;
	size_t exactcap;
};

struct cg_pos_part {
	struct pos_table self, calls;
};

/* What the tables took from the memory budget goes back with them. */
static void table_release(struct pos_table *t)
{
	cg_budget_give(t->cap * sizeof *t->v + t->costcap * sizeof *t->costs +
		       t->ownercap * sizeof *t->head + t->tailcap * sizeof *t->tail +
		       t->exactcap * sizeof *t->exact);
	free(t->v);
	free(t->costs);
	cg_hashmap_release(&t->index);
	free(t->head);
	free(t->tail);
	free(t->exact);
}

void cg_pos_part_free(struct cg_pos_part *t)
{
	if (!t)
		return;
	table_release(&t->self);
	table_release(&t->calls);
	free(t);
	cg_budget_give(sizeof *t);
}

static size_t nev_of(const cg_profile *p)
{
	size_t n = cg_profile_event_count(p);
	return n ? n : 1;
}

static uint64_t entry_hash(uint32_t owner, uint64_t addr, uint32_t line, const char *file)
{
	uint64_t h = cg_hash_bytes(CG_HASH_INIT, &owner, sizeof owner);
	h = cg_hash_bytes(h, &addr, sizeof addr);
	h = cg_hash_bytes(h, &line, sizeof line);
	return cg_hash_bytes(h, &file, sizeof file);
}

/* The entry of (owner, position) in t, created with zero cost when absent;
 * `file` is already interned and normalised. */
static int table_entry(struct pos_table *t, size_t nev, uint32_t owner, uint64_t addr,
		       uint32_t line, const char *file, uint32_t *out)
{
	uint64_t h = entry_hash(owner, addr, line, file);
	size_t cursor = 0;
	uint32_t i;
	while (cg_hashmap_next(&t->index, h, &cursor, &i)) {
		const struct pos_entry *e = &t->v[i];
		if (e->owner == owner && e->addr == addr && e->line == line && e->file == file) {
			*out = i;
			return 0;
		}
	}
	size_t bytes;
	if (t->n >= UINT32_MAX - 1 || cg_checked_mul_size(t->n + 1, nev, &bytes) ||
	    cg_array_grow((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v, 64) ||
	    cg_array_grow((void **)&t->costs, &t->costcap, bytes, sizeof *t->costs, 64 * nev) ||
	    cg_array_grow((void **)&t->head, &t->ownercap, (size_t)owner + 1, sizeof *t->head, 64))
		return CG_ENOMEM;
	/* head and tail grow together: tail's capacity follows head's.  The
	 * hash map comes last, so a failure leaves no index to a missing
	 * entry. */
	if (cg_array_grow((void **)&t->tail, &t->tailcap, t->ownercap, sizeof *t->tail, 64))
		return CG_ENOMEM;
	if (t->exact &&
	    cg_array_grow((void **)&t->exact, &t->exactcap, t->n + 1, sizeof *t->exact, 64))
		return CG_ENOMEM;
	if (cg_hashmap_add(&t->index, h, (uint32_t)t->n))
		return CG_ENOMEM;
	i = (uint32_t)t->n++;
	struct pos_entry *e = &t->v[i];
	memset(e, 0, sizeof *e);
	e->owner = owner;
	e->addr = addr;
	e->line = line;
	e->file = file;
	memset(t->costs + (size_t)i * nev, 0, nev * sizeof *t->costs);
	if (t->exact)
		t->exact[i] = NAN;
	if (t->head[owner])
		t->v[t->tail[owner] - 1].next = i + 1;
	else
		t->head[owner] = i + 1;
	t->tail[owner] = i + 1;
	*out = i;
	return 0;
}

/* tail[] is only read where head[] says the owner has entries. */

static struct cg_pos_part *pos_part(cg_profile *p, unsigned part)
{
	struct cg_pos_part **slot = cg_profile_pos_slot(p, part);
	if (!slot)
		return NULL;
	if (!*slot && !cg_budget_take(sizeof **slot) && !(*slot = calloc(1, sizeof **slot)))
		cg_budget_give(sizeof **slot);
	return *slot;
}

static const struct cg_pos_part *pos_part_const(const cg_profile *p, unsigned part)
{
	struct cg_pos_part **slot = cg_profile_pos_slot(p, part);
	return slot ? *slot : NULL;
}

/* The file to store: interned, NULL when it is the owner's own. */
static int norm_file(cg_profile *p, const char *file, const char *own, const char **out)
{
	*out = NULL;
	if (!file)
		return 0;
	const char *f = cg_profile_intern(p, file);
	if (!f)
		return CG_ENOMEM;
	*out = f == own ? NULL : f;
	return 0;
}

static void observe_kinds(cg_profile *p, uint64_t addr, uint32_t line)
{
	cg_profile_declare_position_kinds(p, (addr ? CG_POS_INSTR : 0u) | (line ? CG_POS_LINE : 0u));
}

/* Keeps entry i's exact event-0 cost in step with `added` (integer
 * costs added to it) and `exact` (its exact share of them, NAN: the
 * integer is exact).  An entry without an exact value is exact in its
 * integer cost, so the first exact share starts from that. */
static void add_exact(struct pos_table *t, uint32_t i, cg_cost before, cg_cost added,
		      double exact)
{
	if (!t->exact)
		return;
	if (isnan(exact)) {
		if (!isnan(t->exact[i]))
			t->exact[i] += (double)added;
		return;
	}
	t->exact[i] = (isnan(t->exact[i]) ? (double)before : t->exact[i]) + exact;
}

/* Adds to the table only (merges: the self cost is added by the part
 * merge).  `file` is interned and normalised; `exact` as add_exact. */
static int add_self_entry(cg_profile *p, unsigned part, cg_fid f, uint64_t addr, uint32_t line,
			  const char *file, const cg_cost *costs, double exact)
{
	struct cg_pos_part *pp = pos_part(p, part);
	size_t nev = nev_of(p);
	uint32_t i;
	if (!pp)
		return CG_ENOMEM;
	int rc = table_entry(&pp->self, nev, f, addr, line, file, &i);
	if (rc)
		return rc;
	observe_kinds(p, addr, line);
	cg_cost before = pp->self.costs[(size_t)i * nev];
	if (cg_checked_add_costs(pp->self.costs + (size_t)i * nev, costs, cg_profile_event_count(p)))
		return CG_EFORMAT;
	add_exact(&pp->self, i, before, cg_profile_event_count(p) ? costs[0] : 0, exact);
	return 0;
}

/* What both public ways of adding a self position start with: part and
 * function in range, the part's tables, `pos`'s file interned and
 * normalised against the function's. */
static int self_target(cg_profile *p, unsigned part, cg_fid f, const cg_position *pos,
		       struct cg_pos_part **pp, const char **file)
{
	if (part >= cg_profile_part_count(p) || f >= cg_profile_function_count(p) || !pos)
		return CG_EUSAGE;
	*pp = pos_part(p, part);
	if (!*pp || norm_file(p, pos->file, cg_profile_function(p, f)->file, file))
		return CG_ENOMEM;
	return 0;
}

int cg_pos_set_self_exact(cg_profile *p, unsigned part, cg_fid f, const cg_position *pos,
			  double exact)
{
	const char *file;
	struct cg_pos_part *pp;
	int rc = self_target(p, part, f, pos, &pp, &file);
	if (rc)
		return rc;
	struct pos_table *t = &pp->self;
	if (!t->exact) {
		if (cg_array_grow((void **)&t->exact, &t->exactcap, t->n + 1, sizeof *t->exact, 64))
			return CG_ENOMEM;
		for (size_t k = 0; k < t->n; k++)
			t->exact[k] = NAN;
	}
	uint32_t i;
	if ((rc = table_entry(t, nev_of(p), f, pos->addr, pos->line, file, &i)))
		return rc;
	t->exact[i] = exact;
	observe_kinds(p, pos->addr, pos->line);
	return 0;
}

int cg_pos_has_self_exact(const cg_profile *p, unsigned part)
{
	const struct cg_pos_part *pp = pos_part_const(p, part);
	return pp && pp->self.exact;
}

int cg_profile_add_self_at(cg_profile *p, unsigned part, cg_fid f, const cg_position *pos,
			   const cg_cost *costs)
{
	const char *file;
	struct cg_pos_part *pp;
	int rc = self_target(p, part, f, pos, &pp, &file);
	if (rc)
		return rc;
	size_t nev = nev_of(p), n = cg_profile_event_count(p);
	uint32_t i;
	if ((rc = table_entry(&pp->self, nev, f, pos->addr, pos->line, file, &i)))
		return rc;
	/* exact or refused: both sums are checked before either changes */
	cg_cost sum[CG_MAX_EVENTS];
	if (cg_checked_sum_costs(sum, pp->self.costs + (size_t)i * nev, costs, n))
		return CG_EFORMAT;
	if ((rc = cg_profile_add_self(p, part, f, costs)))
		return rc;
	memcpy(pp->self.costs + (size_t)i * nev, sum, n * sizeof *sum);
	observe_kinds(p, pos->addr, pos->line);
	return 0;
}

static int next_entry(const struct pos_table *t, uint32_t owner, size_t *cursor,
		      const struct pos_entry **out)
{
	size_t i;
	if (*cursor == SIZE_MAX)
		return 0;
	if (*cursor == 0) {
		if (!t->head || owner >= t->ownercap || !t->head[owner]) {
			*cursor = SIZE_MAX;
			return 0;
		}
		i = t->head[owner] - 1;
	} else {
		i = *cursor - 1;
	}
	*out = &t->v[i];
	*cursor = t->v[i].next ? t->v[i].next : SIZE_MAX;
	return 1;
}

static void entry_position(const struct pos_entry *e, cg_position *pos)
{
	pos->addr = e->addr;
	pos->line = e->line;
	pos->reserved = 0;
	pos->file = e->file;
}

int cg_profile_next_self_position(const cg_profile *p, unsigned part, cg_fid f, size_t *cursor,
				  cg_position *pos, const cg_cost **costs)
{
	const struct cg_pos_part *pp = pos_part_const(p, part);
	const struct pos_entry *e;
	if (!pp || !next_entry(&pp->self, f, cursor, &e))
		return 0;
	entry_position(e, pos);
	*costs = pp->self.costs + (size_t)(e - pp->self.v) * nev_of(p);
	return 1;
}

int cg_pos_next_self_exact(const cg_profile *p, unsigned part, cg_fid f, size_t *cursor,
			   cg_position *pos, const cg_cost **costs, double *exact)
{
	const struct cg_pos_part *pp = pos_part_const(p, part);
	const struct pos_entry *e;
	if (!pp || !next_entry(&pp->self, f, cursor, &e))
		return 0;
	size_t i = (size_t)(e - pp->self.v);
	entry_position(e, pos);
	*costs = pp->self.costs + i * nev_of(p);
	*exact = pp->self.exact ? pp->self.exact[i] : NAN;
	return 1;
}

static int add_site_entry(cg_profile *p, unsigned part, size_t arc, uint64_t addr, uint32_t line,
			  const char *file, uint64_t count, const cg_cost *inclusive)
{
	struct cg_pos_part *pp = pos_part(p, part);
	size_t nev = nev_of(p), n = cg_profile_event_count(p);
	uint32_t i;
	if (!pp)
		return CG_ENOMEM;
	if (arc >= UINT32_MAX)
		return CG_EUSAGE;
	int rc = table_entry(&pp->calls, nev, (uint32_t)arc, addr, line, file, &i);
	if (rc)
		return rc;
	struct pos_entry *e = &pp->calls.v[i];
	cg_cost sum[CG_MAX_EVENTS];
	uint64_t c = e->count;
	if (cg_checked_add_u64(&c, count) ||
	    (inclusive && cg_checked_sum_costs(sum, pp->calls.costs + (size_t)i * nev, inclusive, n)))
		return CG_EFORMAT;
	e->count = c;
	if (inclusive)
		memcpy(pp->calls.costs + (size_t)i * nev, sum, n * sizeof *sum);
	observe_kinds(p, addr, line);
	return 0;
}

int cg_profile_add_arc_at(cg_profile *p, unsigned part, cg_fid caller, cg_fid callee,
			  const cg_position *site, uint64_t count, const cg_cost *inclusive,
			  size_t *out_index)
{
	if (part >= cg_profile_part_count(p) || caller >= cg_profile_function_count(p) ||
	    callee >= cg_profile_function_count(p) || !site)
		return CG_EUSAGE;
	const char *file;
	if (norm_file(p, site->file, cg_profile_function(p, caller)->file, &file))
		return CG_ENOMEM;
	/* the arc first (it may be new), then its site: the sites add up to
	 * the arc, so when the arc's sums fit the site's do, and a failure
	 * after a successful arc can only be out of memory */
	size_t idx;
	int rc = cg_profile_add_arc(p, part, caller, callee, count, inclusive, &idx);
	if (rc)
		return rc;
	cg_arc *a = cg_profile_arc(p, part, idx);
	if (!a->line)
		a->line = site->line;
	if ((rc = add_site_entry(p, part, idx, site->addr, site->line, file, count, inclusive)))
		return rc;
	if (out_index)
		*out_index = idx;
	return 0;
}

int cg_profile_next_arc_site(const cg_profile *p, unsigned part, size_t index, size_t *cursor,
			     cg_position *site, uint64_t *count, const cg_cost **inclusive)
{
	const struct cg_pos_part *pp = pos_part_const(p, part);
	const struct pos_entry *e;
	if (!pp || index >= UINT32_MAX || !next_entry(&pp->calls, (uint32_t)index, cursor, &e))
		return 0;
	entry_position(e, site);
	*count = e->count;
	*inclusive = pp->calls.costs + (size_t)(e - pp->calls.v) * nev_of(p);
	return 1;
}

int cg_profile_has_positions(const cg_profile *p, unsigned part)
{
	const struct cg_pos_part *pp = pos_part_const(p, part);
	return pp && (pp->self.n || pp->calls.n);
}

uint32_t cg_pos_first_rank(const cg_profile *p, unsigned part, cg_fid f)
{
	const struct cg_pos_part *pp = pos_part_const(p, part);
	if (!pp || !pp->self.head || f >= pp->self.ownercap || !pp->self.head[f])
		return UINT32_MAX;
	return pp->self.head[f] - 1;
}

size_t cg_pos_self_count(const cg_profile *p, unsigned part)
{
	const struct cg_pos_part *pp = pos_part_const(p, part);
	return pp ? pp->self.n : 0;
}

void cg_pos_self_entry(const cg_profile *p, unsigned part, size_t i, cg_fid *f,
		       cg_position *pos, const cg_cost **costs)
{
	const struct cg_pos_part *pp = pos_part_const(p, part);
	*f = pp->self.v[i].owner;
	entry_position(&pp->self.v[i], pos);
	*costs = pp->self.costs + i * nev_of(p);
}

double cg_pos_self_entry_exact(const cg_profile *p, unsigned part, size_t i)
{
	const struct cg_pos_part *pp = pos_part_const(p, part);
	return pp && pp->self.exact ? pp->self.exact[i] : NAN;
}

int cg_pos_add_self_only(cg_profile *p, unsigned part, cg_fid f, const cg_position *pos,
			 const cg_cost *costs)
{
	const char *file;
	if (part >= cg_profile_part_count(p) || f >= cg_profile_function_count(p))
		return CG_EUSAGE;
	if (norm_file(p, pos->file, cg_profile_function(p, f)->file, &file))
		return CG_ENOMEM;
	return add_self_entry(p, part, f, pos->addr, pos->line, file, costs, NAN);
}

int cg_pos_add_site_only(cg_profile *p, unsigned part, size_t arc, const cg_position *site,
			 uint64_t count, const cg_cost *inclusive)
{
	const char *file;
	const cg_arc *a = cg_profile_arc(p, part, arc);
	if (!a)
		return CG_EUSAGE;
	if (norm_file(p, site->file, cg_profile_function(p, a->caller)->file, &file))
		return CG_ENOMEM;
	return add_site_entry(p, part, arc, site->addr, site->line, file, count, inclusive);
}

/* ---- the invariant ------------------------------------------------------------- */

/* sum of f's positions (or arc's sites) in out; 1 when it has any */
static int table_sum(const cg_profile *p, const struct pos_table *t, uint32_t owner,
		     cg_cost *out, uint64_t *count, int *overflow)
{
	size_t nev = nev_of(p), n = cg_profile_event_count(p), cursor = 0;
	const struct pos_entry *e;
	int any = 0;
	memset(out, 0, CG_MAX_EVENTS * sizeof *out);
	*count = 0;
	*overflow = 0;
	while (next_entry(t, owner, &cursor, &e)) {
		any = 1;
		if (cg_checked_add_costs(out, t->costs + (size_t)(e - t->v) * nev, n) ||
		    cg_checked_add_u64(count, e->count))
			*overflow = 1;
	}
	return any;
}

static int same_costs(const cg_cost *a, const cg_cost *b, size_t n)
{
	return memcmp(a, b, n * sizeof *a) == 0;
}

int cg_profile_check_positions(const cg_profile *p, const char *name, cg_error *err)
{
	size_t n = cg_profile_event_count(p);
	static const cg_cost zeros[CG_MAX_EVENTS];
	if (!name)
		name = "profile";
	for (unsigned part = 0; part < cg_profile_part_count(p); part++) {
		const struct cg_pos_part *pp = pos_part_const(p, part);
		if (!pp)
			continue;
		cg_cost sum[CG_MAX_EVENTS];
		uint64_t count;
		int overflow;
		for (cg_fid f = 0; f < pp->self.ownercap && f < cg_profile_function_count(p); f++) {
			if (!table_sum(p, &pp->self, f, sum, &count, &overflow))
				continue;
			if (overflow || !same_costs(sum, cg_profile_self(p, part, f), n))
				return cg_error_set(err, CG_EFORMAT,
						    "%s: the costs per position of %s do not add "
						    "up to its self cost", name,
						    cg_profile_function(p, f)->name);
		}
		for (size_t i = 0; i < pp->calls.ownercap && i < cg_profile_arc_count(p, part); i++) {
			if (!table_sum(p, &pp->calls, (uint32_t)i, sum, &count, &overflow))
				continue;
			const cg_arc *a = cg_profile_arc(p, part, i);
			if (overflow || count != a->count ||
			    !same_costs(sum, a->inclusive ? a->inclusive : zeros, n))
				return cg_error_set(err, CG_EFORMAT,
						    "%s: the call sites of the call from %s to %s do "
						    "not add up to its count and inclusive cost", name,
						    cg_profile_function(p, a->caller)->name,
						    cg_profile_function(p, a->callee)->name);
		}
	}
	return 0;
}

/* ---- merges and transforms ------------------------------------------------------ */

static int diff_costs(cg_cost *out, const cg_cost *a, const cg_cost *b, size_t n)
{
	for (size_t e = 0; e < n; e++)
		if (__builtin_sub_overflow(a[e], b[e], &out[e]))
			return 1;
	return 0;
}

int cg_pos_complete(cg_profile *p, unsigned part)
{
	struct cg_pos_part *pp = *cg_profile_pos_slot(p, part);
	size_t n = cg_profile_event_count(p);
	static const cg_cost zeros[CG_MAX_EVENTS];
	if (!pp)
		return 0;
	cg_cost sum[CG_MAX_EVENTS], rest[CG_MAX_EVENTS];
	uint64_t count;
	int overflow, rc;
	for (cg_fid f = 0; f < pp->self.ownercap && f < cg_profile_function_count(p); f++) {
		if (!table_sum(p, &pp->self, f, sum, &count, &overflow))
			continue;
		if (overflow || diff_costs(rest, cg_profile_self(p, part, f), sum, n))
			return CG_EFORMAT;
		if (same_costs(rest, zeros, n))
			continue;
		if ((rc = add_self_entry(p, part, f, 0, cg_profile_function(p, f)->line, NULL, rest,
					 NAN)))
			return rc;
		pp = *cg_profile_pos_slot(p, part);
	}
	for (size_t i = 0; i < pp->calls.ownercap && i < cg_profile_arc_count(p, part); i++) {
		if (!table_sum(p, &pp->calls, (uint32_t)i, sum, &count, &overflow))
			continue;
		const cg_arc *a = cg_profile_arc(p, part, i);
		if (overflow || count > a->count ||
		    diff_costs(rest, a->inclusive ? a->inclusive : zeros, sum, n))
			return CG_EFORMAT;
		if (count == a->count && same_costs(rest, zeros, n))
			continue;
		if ((rc = add_site_entry(p, part, i, 0, a->line, NULL, a->count - count, rest)))
			return rc;
	}
	return 0;
}

/* The exact column is about event 0: it moves with it only when the
 * event map keeps event 0 first. */
static int emap_moves_first(const int *emap)
{
	return emap && emap[0] != 0;
}

/* Gives dst's self table its exact column (NAN everywhere) and makes the
 * entry at *pos, so that add_self_entry records the share. */
static int ensure_exact(cg_profile *dst, unsigned dp, cg_fid f, const cg_position *pos)
{
	const struct cg_pos_part *pp = pos_part_const(dst, dp);
	if (pp && pp->self.exact)
		return 0;
	/* a zero-cost entry would be created by the add anyway: set NAN */
	return cg_pos_set_self_exact(dst, dp, f, pos, NAN);
}

/* Copies the entries of src's table into dst's; fmap NULL keeps function
 * numbers, arcs are found again by caller and callee. */
static int copy_part(cg_profile *dst, unsigned dp, const cg_profile *src, unsigned sp,
		     const cg_fid *fmap, const int *emap, const unsigned char *keep_fn,
		     int arcs_same_count)
{
	const struct cg_pos_part *pp = pos_part_const(src, sp);
	size_t nev = nev_of(src), n = cg_profile_event_count(src);
	if (!pp)
		return 0;
	cg_cost c[CG_MAX_EVENTS];
	int rc;
	for (size_t i = 0; i < pp->self.n; i++) {
		const struct pos_entry *e = &pp->self.v[i];
		if (keep_fn && !keep_fn[e->owner])
			continue;
		const char *file;
		memset(c, 0, sizeof c);
		for (size_t k = 0; k < n; k++)
			c[emap ? emap[k] : (int)k] = pp->self.costs[i * nev + k];
		if (norm_file(dst, e->file, NULL, &file))
			return CG_ENOMEM;
		/* an exact share travels with its entry (dst's table gets
		 * the exact column first, so no share is lost) */
		double ex = pp->self.exact ? pp->self.exact[i] : NAN;
		if (!isnan(ex) && !emap_moves_first(emap)) {
			cg_position at = { e->addr, e->line, 0, file };
			cg_fid g = fmap ? fmap[e->owner] : e->owner;
			if ((rc = ensure_exact(dst, dp, g, &at)))
				return rc;
		} else {
			ex = NAN;
		}
		if ((rc = add_self_entry(dst, dp, fmap ? fmap[e->owner] : e->owner, e->addr, e->line,
					 file, c, ex)))
			return rc;
	}
	for (size_t i = 0; i < pp->calls.n; i++) {
		const struct pos_entry *e = &pp->calls.v[i];
		const cg_arc *a = cg_profile_arc(src, sp, e->owner);
		cg_fid caller = fmap ? fmap[a->caller] : a->caller;
		cg_fid callee = fmap ? fmap[a->callee] : a->callee;
		long idx = cg_profile_find_arc(dst, dp, caller, callee);
		if (idx < 0)
			continue;
		if (arcs_same_count && cg_profile_arc(dst, dp, (size_t)idx)->count != a->count)
			continue;
		const char *file;
		memset(c, 0, sizeof c);
		for (size_t k = 0; k < n; k++)
			c[emap ? emap[k] : (int)k] = pp->calls.costs[i * nev + k];
		if (norm_file(dst, e->file, NULL, &file))
			return CG_ENOMEM;
		if ((rc = add_site_entry(dst, dp, (size_t)idx, e->addr, e->line, file, e->count, c)))
			return rc;
	}
	cg_profile_declare_position_kinds(dst, cg_profile_position_kinds(src));
	return 0;
}

int cg_pos_merge_part(cg_profile *dst, unsigned dp, const cg_profile *src, unsigned sp,
		      const cg_fid *fmap, const int *emap)
{
	if (!cg_profile_has_positions(src, sp) && !cg_profile_has_positions(dst, dp))
		return 0;
	int rc = copy_part(dst, dp, src, sp, fmap, emap, NULL, 0);
	return rc ? rc : cg_pos_complete(dst, dp);
}

int cg_pos_carry(cg_profile *q, const cg_profile *p)
{
	size_t nf = cg_profile_function_count(p), n = cg_profile_event_count(p);
	static const cg_cost zeros[CG_MAX_EVENTS];
	unsigned char *keep = NULL;
	int rc = 0;
	for (unsigned part = 0; part < cg_profile_part_count(p) && !rc; part++) {
		if (!cg_profile_has_positions(p, part))
			continue;
		if (!keep && !(keep = malloc(nf ? nf : 1)))
			return CG_ENOMEM;
		for (cg_fid f = 0; f < nf; f++)
			keep[f] = !same_costs(cg_profile_self(q, part, f), zeros, n);
		rc = copy_part(q, part, p, part, NULL, NULL, keep, 1);
		if (!rc)
			rc = cg_pos_complete(q, part);
	}
	free(keep);
	return rc;
}
