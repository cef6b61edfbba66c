/*
 * model.c — the profile model: arena, string table, events, functions,
 * parts (self costs, arcs, call trees), derived data from call trees.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "callgraph.h"
#include "arena.h"
#include "budget.h"
#include "checked.h"
#include "hashmap.h"
#include "model_internal.h"
#include "model_merge.h"
#include "positions.h"
#include "jumps.h"

/* ---- growable arrays ------------------------------------------------------ */

static int grow(void **ptr, size_t *cap, size_t need, size_t elem)
{
	return cg_array_grow(ptr, cap, need, elem, 16);
}

/* ---- the profile ------------------------------------------------------------ */

struct meta {
	const char *key, *value;
};

struct part {
	const char *name;
	struct meta *meta;      /* the part's own key/value pairs */
	size_t nmeta, metacap;
	size_t fcap;            /* functions the per-function arrays cover */
	cg_cost *self;          /* fcap * nev */
	double *exact;          /* fcap, NULL until first set */
	cg_cost *incl;          /* fcap * nev, NULL until first set */
	unsigned char *incl_known;
	uint64_t *calls;        /* fcap, NULL until first set */
	cg_arc *arcs;
	size_t narcs, arccap;
	struct cg_hashmap arc_index;   /* caller<<32|callee -> arc */
	cg_node *nodes;
	cg_nid *last_child;
	size_t nnodes, nodecap, lastcap;
	/* parent<<32|func -> node, for nodes 1..node_indexed-1: built on the
	 * first cg_profile_node_child and brought up to date by each, so
	 * readers that only append nodes (cgtree, fprof) never pay for it
	 * (50 MB for a 2M-node tree) */
	struct cg_hashmap node_index;
	size_t node_indexed;
	struct cg_pos_part *pos;       /* positions (positions.c), NULL without */
	struct cg_jump_part *jumps;    /* jump lines (jumps.c), NULL without */
};

struct cg_profile {
	cg_arena arena;
	/* string table: the interned strings, found by their cg_hash_bytes */
	const char **strings;
	size_t nstrings, strcap;
	struct cg_hashmap string_index;

	cg_event events[CG_MAX_EVENTS];
	size_t nev;
	int frozen;             /* events fixed once costs are stored */

	cg_function *funcs;
	size_t nfuncs, funccap;
	struct cg_hashmap fn_index;    /* identity hash -> fid */
	/* cg_profile_compact frees fn_index and the parts' arc and node
	 * indexes; they are rebuilt when next needed (an index is current
	 * when it holds as many entries as there are functions or arcs).
	 * cg_profile_find_arc, a reader, rebuilds under this lock. */
	pthread_mutex_t index_lock;

	struct part *parts;
	size_t nparts, partcap;

	struct meta *meta;
	size_t nmeta, metacap;
	struct cg_hashmap meta_index;  /* interned key pointer -> meta */

	cg_gmon_info *gmon;     /* in the arena; NULL unless from gmon.out */

	cg_run_info *run;       /* the collector's report on its run, or NULL */

	unsigned pos_kinds;     /* cg_position_kinds declared or seen */
};

static const cg_cost zero_costs[CG_MAX_EVENTS];

void *cg_profile_alloc(cg_profile *p, size_t size)
{
	return cg_arena_alloc(&p->arena, size);
}

int cg_profile_new(cg_profile **out)
{
	cg_profile *p = calloc(1, sizeof *p);
	if (!p)
		return CG_ENOMEM;
	pthread_mutex_init(&p->index_lock, NULL);
	unsigned part;
	if (cg_profile_add_part(p, "", &part) != 0) {
		cg_profile_free(p);   /* the part array or string table may exist */
		return CG_ENOMEM;
	}
	*out = p;
	return 0;
}

static void part_release(struct part *pt, size_t nev)
{
	/* what the growth of these arrays took from the memory budget */
	cg_budget_give(pt->metacap * sizeof *pt->meta + 2 * pt->fcap * (nev ? nev : 1) * sizeof(cg_cost) +
		       pt->arccap * sizeof *pt->arcs + pt->nodecap * sizeof *pt->nodes +
		       pt->lastcap * sizeof *pt->last_child);
	free(pt->meta);
	free(pt->self);
	free(pt->exact);
	free(pt->incl);
	free(pt->incl_known);
	free(pt->calls);
	free(pt->arcs);
	cg_hashmap_release(&pt->arc_index);
	free(pt->nodes);
	free(pt->last_child);
	cg_hashmap_release(&pt->node_index);
	cg_pos_part_free(pt->pos);
	cg_jump_part_free(pt->jumps);
}

void cg_profile_free(cg_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nparts; i++)
		part_release(&p->parts[i], p->nev);
	cg_budget_give(p->partcap * sizeof *p->parts + p->strcap * sizeof *p->strings +
		       p->funccap * sizeof *p->funcs + p->metacap * sizeof *p->meta);
	free(p->parts);
	free(p->strings);
	cg_hashmap_release(&p->string_index);
	free(p->funcs);
	cg_hashmap_release(&p->fn_index);
	free(p->meta);
	cg_hashmap_release(&p->meta_index);
	free(p->run);
	cg_arena_release(&p->arena);
	pthread_mutex_destroy(&p->index_lock);
	free(p);
}

/* ---- the collector's run report -------------------------------------------- */

const cg_run_info *cg_profile_run_info(const cg_profile *p)
{
	return p->run;
}

static uint64_t add_saturating(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

int cg_profile_add_run_info(cg_profile *p, const cg_run_info *info)
{
	if (!info)
		return 0;
	if (!p->run) {
		p->run = calloc(1, sizeof *p->run);
		if (!p->run)
			return CG_ENOMEM;
	}
	cg_run_info *r = p->run;
	/* Tick counts saturate rather than wrap: they only ever feed a
	 * warning and a share, where "at least this many" is still true. */
	r->samples = add_saturating(r->samples, info->samples);
	r->overhead = add_saturating(r->overhead, info->overhead);
	r->lost = add_saturating(r->lost, info->lost);
	r->resyncs = add_saturating(r->resyncs, info->resyncs);
	r->threads += info->threads;
	r->threads_cut += info->threads_cut;
	r->flags |= info->flags;
	if (!r->ending[0])
		snprintf(r->ending, sizeof r->ending, "%s", info->ending);
	return 0;
}

/* ---- positions (the tables live in positions.c) ------------------------------- */

struct cg_pos_part **cg_profile_pos_slot(const cg_profile *p, unsigned part)
{
	return part < p->nparts ? &p->parts[part].pos : NULL;
}

struct cg_jump_part **cg_profile_jump_slot(const cg_profile *p, unsigned part)
{
	return part < p->nparts ? &p->parts[part].jumps : NULL;
}

unsigned cg_profile_position_kinds(const cg_profile *p)
{
	return p->pos_kinds;
}

void cg_profile_declare_position_kinds(cg_profile *p, unsigned kinds)
{
	p->pos_kinds |= kinds & (CG_POS_LINE | CG_POS_INSTR);
}

/* ---- strings -------------------------------------------------------------- */

/* The interned copy of s[0..len), or NULL when there is none. */
static const char *strtab_find(const cg_profile *p, const char *s, size_t len, uint64_t h)
{
	size_t cursor = 0;
	uint32_t i;
	while (cg_hashmap_next(&p->string_index, h, &cursor, &i)) {
		const char *t = p->strings[i];
		if (strncmp(t, s, len) == 0 && t[len] == '\0')
			return t;
	}
	return NULL;
}

const char *cg_profile_intern_len(cg_profile *p, const char *s, size_t len)
{
	if (!s)
		return NULL;
	uint64_t h = cg_hash_bytes(CG_HASH_INIT, s, len);
	const char *t = strtab_find(p, s, len, h);
	if (t)
		return t;
	if (p->nstrings >= UINT32_MAX - 1 ||
	    grow((void **)&p->strings, &p->strcap, p->nstrings + 1, sizeof *p->strings))
		return NULL;
	char *copy = cg_arena_alloc(&p->arena, len + 1);
	if (!copy || cg_hashmap_add(&p->string_index, h, (uint32_t)p->nstrings))
		return NULL;
	memcpy(copy, s, len);
	copy[len] = '\0';
	p->strings[p->nstrings++] = copy;
	return copy;
}

const char *cg_profile_intern(cg_profile *p, const char *s)
{
	return s ? cg_profile_intern_len(p, s, strlen(s)) : NULL;
}

/* ---- metadata --------------------------------------------------------------- */

int cg_profile_set_meta(cg_profile *p, const char *key, const char *value)
{
	const char *k = cg_profile_intern(p, key);
	const char *v = cg_profile_intern(p, value ? value : "");
	if (!k || !v)
		return CG_ENOMEM;
	uint32_t i;
	if (cg_hashmap_get(&p->meta_index, (uint64_t)(uintptr_t)k, &i)) {
		p->meta[i].value = v;
		return 0;
	}
	if (p->nmeta >= UINT32_MAX - 1 ||
	    grow((void **)&p->meta, &p->metacap, p->nmeta + 1, sizeof *p->meta) ||
	    cg_hashmap_put(&p->meta_index, (uint64_t)(uintptr_t)k, (uint32_t)p->nmeta))
		return CG_ENOMEM;
	p->meta[p->nmeta].key = k;
	p->meta[p->nmeta].value = v;
	p->nmeta++;
	return 0;
}

const char *cg_profile_meta(const cg_profile *p, const char *key)
{
	/* a key never interned was never set */
	size_t len = strlen(key);
	const char *k = strtab_find(p, key, len, cg_hash_bytes(CG_HASH_INIT, key, len));
	uint32_t i;
	if (k && cg_hashmap_get(&p->meta_index, (uint64_t)(uintptr_t)k, &i))
		return p->meta[i].value;
	return NULL;
}

size_t cg_profile_meta_count(const cg_profile *p)
{
	return p->nmeta;
}

void cg_profile_meta_at(const cg_profile *p, size_t i, const char **key, const char **value)
{
	*key = p->meta[i].key;
	*value = p->meta[i].value;
}

/* ---- gmon facts ----------------------------------------------------------------- */

int cg_profile_set_gmon_info(cg_profile *p, const cg_gmon_info *info)
{
	if (!info) {
		p->gmon = NULL;
		return 0;
	}
	cg_gmon_info copy = *info;
	copy.dimension = cg_profile_intern(p, info->dimension ? info->dimension : "seconds");
	copy.dimension_abbrev =
		cg_profile_intern(p, info->dimension_abbrev ? info->dimension_abbrev : "s");
	if (!copy.dimension || !copy.dimension_abbrev)
		return CG_ENOMEM;
	if (!p->gmon && !(p->gmon = cg_arena_alloc(&p->arena, sizeof *p->gmon)))
		return CG_ENOMEM;
	*p->gmon = copy;
	return 0;
}

const cg_gmon_info *cg_profile_gmon_info(const cg_profile *p)
{
	return p->gmon;
}

/* ---- events ------------------------------------------------------------------ */

int cg_profile_add_event(cg_profile *p, const char *name, const char *description,
			 double unit_seconds)
{
	if (p->frozen || p->nev >= CG_MAX_EVENTS || !name || !*name)
		return CG_EUSAGE;
	if (cg_profile_find_event(p, name) >= 0)
		return CG_EUSAGE;
	cg_event *e = &p->events[p->nev];
	e->name = cg_profile_intern(p, name);
	e->description = cg_profile_intern(p, description ? description : name);
	if (!e->name || !e->description)
		return CG_ENOMEM;
	e->unit_seconds = unit_seconds;
	return (int)p->nev++;
}

size_t cg_profile_event_count(const cg_profile *p)
{
	return p->nev;
}

const cg_event *cg_profile_event(const cg_profile *p, size_t i)
{
	return i < p->nev ? &p->events[i] : NULL;
}

int cg_profile_find_event(const cg_profile *p, const char *name)
{
	for (size_t i = 0; i < p->nev; i++)
		if (strcmp(p->events[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* ---- functions ---------------------------------------------------------------- */

static uint64_t fn_identity_hash(const char *name, const char *object, const char *file)
{
	/* Strings are interned, so their addresses identify them. */
	const char *identity[3] = { name, object, file };
	return cg_hash_bytes(CG_HASH_INIT, identity, sizeof identity);
}

/* Rebuilds the function index after cg_profile_compact. */
static int fn_index_ready(cg_profile *p)
{
	if (p->fn_index.count == p->nfuncs)
		return 0;
	cg_hashmap_release(&p->fn_index);
	for (size_t f = 0; f < p->nfuncs; f++) {
		const cg_function *fn = &p->funcs[f];
		if (cg_hashmap_add(&p->fn_index, fn_identity_hash(fn->name, fn->object, fn->file),
				   (uint32_t)f)) {
			cg_hashmap_release(&p->fn_index);
			return CG_ENOMEM;
		}
	}
	return 0;
}

/* Adds *fn, whose strings are already the profile's interned ones, under
 * its identity hash h. */
static int add_interned_function(cg_profile *p, const cg_function *fn, uint64_t h, cg_fid *out)
{
	if (p->nfuncs >= CG_NO_FUNC - 1)
		return CG_EUSAGE;
	if (grow((void **)&p->funcs, &p->funccap, p->nfuncs + 1, sizeof *p->funcs))
		return CG_ENOMEM;
	cg_fid f = (cg_fid)p->nfuncs;
	if (fn_index_ready(p) || cg_hashmap_add(&p->fn_index, h, f))
		return CG_ENOMEM;
	p->nfuncs++;
	p->funcs[f] = *fn;
	if (out)
		*out = f;
	return 0;
}

int cg_profile_add_function(cg_profile *p, const cg_function *fn, cg_fid *out)
{
	if (!fn->name || p->nfuncs >= CG_NO_FUNC - 1)
		return CG_EUSAGE;
	cg_function copy = *fn;
	copy.name = cg_profile_intern(p, fn->name);
	copy.object = cg_profile_intern(p, fn->object);
	copy.file = cg_profile_intern(p, fn->file);
	if (!copy.name || (fn->object && !copy.object) || (fn->file && !copy.file))
		return CG_ENOMEM;
	return add_interned_function(p, &copy, fn_identity_hash(copy.name, copy.object, copy.file),
				     out);
}

int cg_profile_reserve_functions(cg_profile *p, size_t n)
{
	if (n >= CG_NO_FUNC - 1)
		return CG_EUSAGE;
	if (grow((void **)&p->funcs, &p->funccap, n, sizeof *p->funcs) || fn_index_ready(p) ||
	    cg_hashmap_reserve(&p->fn_index, n))
		return CG_ENOMEM;
	return 0;
}

int cg_profile_add_function_interned(cg_profile *p, const cg_function *fn, cg_fid *out)
{
	if (!fn->name || p->nfuncs >= CG_NO_FUNC - 1)
		return CG_EUSAGE;
	return add_interned_function(p, fn, fn_identity_hash(fn->name, fn->object, fn->file), out);
}

int cg_profile_intern_function_interned(cg_profile *p, const char *n, const char *o,
					const char *fl, cg_fid *out)
{
	size_t cursor = 0;
	uint32_t f;
	if (fn_index_ready(p))
		return CG_ENOMEM;
	uint64_t h = fn_identity_hash(n, o, fl);
	while (cg_hashmap_next(&p->fn_index, h, &cursor, &f)) {
		const cg_function *c = &p->funcs[f];
		if (c->name == n && c->object == o && c->file == fl) {
			*out = f;
			return 0;
		}
	}
	cg_function fn = { .name = n, .object = o, .file = fl };
	return add_interned_function(p, &fn, h, out);
}

int cg_profile_intern_function(cg_profile *p, const char *name, const char *object,
			       const char *file, cg_fid *out)
{
	const char *n = cg_profile_intern(p, name);
	const char *o = cg_profile_intern(p, object);
	const char *fl = cg_profile_intern(p, file);
	if (!n || (object && !o) || (file && !fl))
		return CG_ENOMEM;
	return cg_profile_intern_function_interned(p, n, o, fl, out);
}

size_t cg_profile_function_count(const cg_profile *p)
{
	return p->nfuncs;
}

cg_function *cg_profile_function(const cg_profile *p, cg_fid f)
{
	return f < p->nfuncs ? &p->funcs[f] : NULL;
}

/* ---- parts ------------------------------------------------------------------------ */

size_t cg_profile_part_count(const cg_profile *p)
{
	return p->nparts;
}

int cg_profile_add_part(cg_profile *p, const char *name, unsigned *out)
{
	if (grow((void **)&p->parts, &p->partcap, p->nparts + 1, sizeof *p->parts))
		return CG_ENOMEM;
	struct part *pt = &p->parts[p->nparts];
	memset(pt, 0, sizeof *pt);
	pt->name = cg_profile_intern(p, name ? name : "");
	if (!pt->name)
		return CG_ENOMEM;
	if (out)
		*out = (unsigned)p->nparts;
	p->nparts++;
	return 0;
}

const char *cg_profile_part_name(const cg_profile *p, unsigned part)
{
	return part < p->nparts ? p->parts[part].name : NULL;
}

int cg_profile_set_part_name(cg_profile *p, unsigned part, const char *name)
{
	if (part >= p->nparts)
		return CG_EUSAGE;
	const char *n = cg_profile_intern(p, name ? name : "");
	if (!n)
		return CG_ENOMEM;
	p->parts[part].name = n;
	return 0;
}

int cg_profile_set_part_meta(cg_profile *p, unsigned part, const char *key, const char *value)
{
	if (part >= p->nparts || !key)
		return CG_EUSAGE;
	struct part *pt = &p->parts[part];
	const char *k = cg_profile_intern(p, key);
	const char *v = cg_profile_intern(p, value ? value : "");
	if (!k || !v)
		return CG_ENOMEM;
	for (size_t i = 0; i < pt->nmeta; i++)
		if (pt->meta[i].key == k) {
			pt->meta[i].value = v;
			return 0;
		}
	if (grow((void **)&pt->meta, &pt->metacap, pt->nmeta + 1, sizeof *pt->meta))
		return CG_ENOMEM;
	pt->meta[pt->nmeta].key = k;
	pt->meta[pt->nmeta].value = v;
	pt->nmeta++;
	return 0;
}

const char *cg_profile_part_meta(const cg_profile *p, unsigned part, const char *key)
{
	if (part >= p->nparts)
		return NULL;
	const struct part *pt = &p->parts[part];
	for (size_t i = 0; i < pt->nmeta; i++)
		if (strcmp(pt->meta[i].key, key) == 0)
			return pt->meta[i].value;
	return NULL;
}

size_t cg_profile_part_meta_count(const cg_profile *p, unsigned part)
{
	return part < p->nparts ? p->parts[part].nmeta : 0;
}

void cg_profile_part_meta_at(const cg_profile *p, unsigned part, size_t i, const char **key,
			     const char **value)
{
	*key = p->parts[part].meta[i].key;
	*value = p->parts[part].meta[i].value;
}

/* Makes the per-function arrays of a part cover every function. */
static int part_cover(cg_profile *p, struct part *pt)
{
	if (pt->fcap >= p->nfuncs && pt->self)
		return 0;
	size_t cap = pt->fcap, nev = p->nev ? p->nev : 1;
	size_t need = p->nfuncs ? p->nfuncs : 1;
	size_t n = cap ? cap : 64, bytes;
	while (n < need)
		n *= 2;
	/* n * nev * sizeof(cg_cost) bounds every array below */
	if (n < cap || cg_checked_mul_size(n, nev * sizeof(cg_cost), &bytes))
		return CG_ENOMEM;
	/* the self array, and as much again for the optional ones */
	if (cg_budget_take(2 * (n - cap) * nev * sizeof(cg_cost)))
		return CG_ENOMEM;
	cg_cost *self = realloc(pt->self, bytes);
	if (!self)
		return CG_ENOMEM;
	memset(self + cap * nev, 0, (n - cap) * nev * sizeof *self);
	pt->self = self;
	if (pt->exact) {
		double *e = realloc(pt->exact, n * sizeof *e);
		if (!e)
			return CG_ENOMEM;
		memset(e + cap, 0, (n - cap) * sizeof *e);
		pt->exact = e;
	}
	if (pt->incl) {
		cg_cost *in = realloc(pt->incl, bytes);
		unsigned char *k = realloc(pt->incl_known, n);
		if (in)
			pt->incl = in;
		if (k)
			pt->incl_known = k;
		if (!in || !k)
			return CG_ENOMEM;
		memset(in + cap * nev, 0, (n - cap) * nev * sizeof *in);
		memset(k + cap, 0, n - cap);
	}
	if (pt->calls) {
		uint64_t *c = realloc(pt->calls, n * sizeof *c);
		if (!c)
			return CG_ENOMEM;
		for (size_t i = cap; i < n; i++)
			c[i] = UINT64_MAX;
		pt->calls = c;
	}
	pt->fcap = n;
	p->frozen = 1;
	return 0;
}

static struct part *part_for_write(cg_profile *p, unsigned part, cg_fid f)
{
	if (part >= p->nparts || f >= p->nfuncs)
		return NULL;
	struct part *pt = &p->parts[part];
	return part_cover(p, pt) == 0 ? pt : NULL;
}

int cg_profile_add_self(cg_profile *p, unsigned part, cg_fid f, const cg_cost *costs)
{
	struct part *pt = part_for_write(p, part, f);
	if (!pt)
		return part < p->nparts && f < p->nfuncs ? CG_ENOMEM : CG_EUSAGE;
	/* exact or refused: a sum past 2^63-1 leaves the costs as they were */
	if (cg_checked_add_costs(pt->self + (size_t)f * p->nev, costs, p->nev))
		return CG_EFORMAT;
	return 0;
}

const cg_cost *cg_profile_self(const cg_profile *p, unsigned part, cg_fid f)
{
	if (part >= p->nparts)
		return zero_costs;
	const struct part *pt = &p->parts[part];
	if (!pt->self || f >= pt->fcap || f >= p->nfuncs)
		return zero_costs;
	return pt->self + (size_t)f * p->nev;
}

int cg_profile_set_self_exact(cg_profile *p, unsigned part, cg_fid f, double v)
{
	struct part *pt = part_for_write(p, part, f);
	if (!pt)
		return part < p->nparts && f < p->nfuncs ? CG_ENOMEM : CG_EUSAGE;
	if (!pt->exact && !(pt->exact = calloc(pt->fcap, sizeof *pt->exact)))
		return CG_ENOMEM;
	pt->exact[f] = v;
	return 0;
}

double cg_profile_self_exact(const cg_profile *p, unsigned part, cg_fid f)
{
	if (part < p->nparts && p->parts[part].exact && f < p->parts[part].fcap)
		return p->parts[part].exact[f];
	return p->nev ? (double)cg_profile_self(p, part, f)[0] : 0.0;
}

int cg_profile_has_self_exact(const cg_profile *p, unsigned part)
{
	return part < p->nparts && p->parts[part].exact != NULL;
}

int cg_profile_set_inclusive(cg_profile *p, unsigned part, cg_fid f, const cg_cost *costs)
{
	struct part *pt = part_for_write(p, part, f);
	if (!pt)
		return part < p->nparts && f < p->nfuncs ? CG_ENOMEM : CG_EUSAGE;
	if (!pt->incl) {
		cg_cost *incl = calloc(pt->fcap * (p->nev ? p->nev : 1), sizeof *incl);
		unsigned char *known = calloc(pt->fcap, 1);
		if (!incl || !known) {
			/* both or neither: readers test pt->incl alone */
			free(incl);
			free(known);
			return CG_ENOMEM;
		}
		pt->incl = incl;
		pt->incl_known = known;
	}
	memcpy(pt->incl + (size_t)f * p->nev, costs, p->nev * sizeof *costs);
	pt->incl_known[f] = 1;
	return 0;
}

const cg_cost *cg_profile_inclusive(const cg_profile *p, unsigned part, cg_fid f)
{
	if (part >= p->nparts)
		return NULL;
	const struct part *pt = &p->parts[part];
	if (!pt->incl || f >= pt->fcap || !pt->incl_known[f])
		return NULL;
	return pt->incl + (size_t)f * p->nev;
}

int cg_profile_set_calls(cg_profile *p, unsigned part, cg_fid f, uint64_t calls)
{
	struct part *pt = part_for_write(p, part, f);
	if (!pt)
		return part < p->nparts && f < p->nfuncs ? CG_ENOMEM : CG_EUSAGE;
	if (!pt->calls) {
		if (!(pt->calls = malloc(pt->fcap * sizeof *pt->calls)))
			return CG_ENOMEM;
		for (size_t i = 0; i < pt->fcap; i++)
			pt->calls[i] = UINT64_MAX;
	}
	pt->calls[f] = calls;
	return 0;
}

uint64_t cg_profile_calls(const cg_profile *p, unsigned part, cg_fid f)
{
	if (part >= p->nparts)
		return UINT64_MAX;
	const struct part *pt = &p->parts[part];
	return pt->calls && f < pt->fcap ? pt->calls[f] : UINT64_MAX;
}

int cg_profile_checked_totals(const cg_profile *p, unsigned part, cg_cost *totals)
{
	memset(totals, 0, p->nev * sizeof *totals);
	for (cg_fid f = 0; f < p->nfuncs; f++)
		if (cg_checked_add_costs(totals, cg_profile_self(p, part, f), p->nev))
			return CG_EFORMAT;
	return 0;
}

/* The readers refuse profiles whose totals do not fit
 * (cg_profile_check_sums), so on a profile read from a file this is
 * exact; on one built by hand past 2^63-1 it saturates instead of
 * overflowing. */
void cg_profile_part_totals(const cg_profile *p, unsigned part, cg_cost *totals)
{
	if (cg_profile_checked_totals(p, part, totals) == 0)
		return;
	memset(totals, 0, p->nev * sizeof *totals);
	for (cg_fid f = 0; f < p->nfuncs; f++) {
		const cg_cost *s = cg_profile_self(p, part, f);
		for (size_t e = 0; e < p->nev; e++)
			if (cg_checked_add_cost(&totals[e], s[e]))
				totals[e] = s[e] < 0 ? INT64_MIN : INT64_MAX;
	}
}

int cg_profile_check_sums(const cg_profile *p, const char *name, cg_error *err)
{
	for (unsigned part = 0; part < p->nparts; part++) {
		for (size_t e = 0; e < p->nev; e++) {
			cg_cost sum = 0;
			cg_fid f = 0;
			while (f < p->nfuncs && !cg_checked_add_cost(&sum, cg_profile_self(p, part, f)[e]))
				f++;
			if (f < p->nfuncs)
				return cg_error_set(err, CG_EFORMAT,
						    "%s: %s costs sum past 2^63-1 at function %s; "
						    "refusing a total that cannot be exact",
						    name ? name : "profile", p->events[e].name,
						    p->funcs[f].name ? p->funcs[f].name : "?");
		}
	}
	return 0;
}

/* ---- arcs ---------------------------------------------------------------------------- */

static cg_cost *new_cost_vector(cg_profile *p)
{
	p->frozen = 1;
	return cg_arena_alloc(&p->arena, (p->nev ? p->nev : 1) * sizeof(cg_cost));
}

/* Rebuilds a part's arc index after cg_profile_compact. */
static int arc_index_ready(struct part *pt)
{
	if (pt->arc_index.count == pt->narcs)
		return 0;
	cg_hashmap_release(&pt->arc_index);
	for (size_t i = 0; i < pt->narcs; i++)
		if (cg_hashmap_put(&pt->arc_index,
				   (uint64_t)pt->arcs[i].caller << 32 | pt->arcs[i].callee, (uint32_t)i)) {
			cg_hashmap_release(&pt->arc_index);
			return CG_ENOMEM;
		}
	return 0;
}

void cg_profile_compact(cg_profile *p)
{
	cg_hashmap_release(&p->fn_index);
	for (size_t i = 0; i < p->nparts; i++) {
		struct part *pt = &p->parts[i];
		cg_hashmap_release(&pt->arc_index);
		cg_hashmap_release(&pt->node_index);
		pt->node_indexed = 0;
	}
}

int cg_profile_add_arc(cg_profile *p, unsigned part, cg_fid caller, cg_fid callee,
		       uint64_t count, const cg_cost *inclusive, size_t *out_index)
{
	if (part >= p->nparts || caller >= p->nfuncs || callee >= p->nfuncs)
		return CG_EUSAGE;
	struct part *pt = &p->parts[part];
	uint64_t key = (uint64_t)caller << 32 | callee;
	uint32_t idx;
	cg_arc *a;
	if (arc_index_ready(pt))
		return CG_ENOMEM;
	if (cg_hashmap_get(&pt->arc_index, key, &idx)) {
		a = &pt->arcs[idx];
	} else {
		if (grow((void **)&pt->arcs, &pt->arccap, pt->narcs + 1, sizeof *pt->arcs))
			return CG_ENOMEM;
		idx = (uint32_t)pt->narcs;
		if (cg_hashmap_put(&pt->arc_index, key, idx))
			return CG_ENOMEM;
		a = &pt->arcs[pt->narcs++];
		memset(a, 0, sizeof *a);
		a->caller = caller;
		a->callee = callee;
	}
	/* exact or refused: check both sums before changing either */
	uint64_t sum = a->count;
	cg_cost incl[CG_MAX_EVENTS];
	if (cg_checked_add_u64(&sum, count) ||
	    (inclusive && a->inclusive &&
	     cg_checked_sum_costs(incl, a->inclusive, inclusive, p->nev)))
		return CG_EFORMAT;
	if (inclusive) {
		if (!a->inclusive && !(a->inclusive = new_cost_vector(p)))
			return CG_ENOMEM;
		if (cg_checked_add_costs(a->inclusive, inclusive, p->nev))
			return CG_EFORMAT;
	}
	a->count = sum;
	if (out_index)
		*out_index = idx;
	return 0;
}

int cg_profile_add_arc_self(cg_profile *p, unsigned part, size_t index, const cg_cost *self)
{
	if (part >= p->nparts || index >= p->parts[part].narcs || !self)
		return CG_EUSAGE;
	cg_arc *a = &p->parts[part].arcs[index];
	if (!a->self && !(a->self = new_cost_vector(p)))
		return CG_ENOMEM;
	for (size_t e = 0; e < p->nev; e++)
		a->self[e] += self[e];
	return 0;
}

size_t cg_profile_arc_count(const cg_profile *p, unsigned part)
{
	return part < p->nparts ? p->parts[part].narcs : 0;
}

cg_arc *cg_profile_arc(const cg_profile *p, unsigned part, size_t i)
{
	if (part >= p->nparts || i >= p->parts[part].narcs)
		return NULL;
	return &p->parts[part].arcs[i];
}

long cg_profile_find_arc(const cg_profile *p, unsigned part, cg_fid caller, cg_fid callee)
{
	uint32_t idx;
	if (part >= p->nparts)
		return -1;
	/* A reader: the lock guards the rebuild after cg_profile_compact
	 * against readers in other threads. */
	cg_profile *mp = (cg_profile *)p;
	struct part *pt = &mp->parts[part];
	pthread_mutex_lock(&mp->index_lock);
	int found = !arc_index_ready(pt) &&
		    cg_hashmap_get(&pt->arc_index, (uint64_t)caller << 32 | callee, &idx);
	pthread_mutex_unlock(&mp->index_lock);
	return found ? (long)idx : -1;
}

/* ---- call tree ------------------------------------------------------------------------ */

size_t cg_profile_node_count(const cg_profile *p, unsigned part)
{
	return part < p->nparts ? p->parts[part].nnodes : 0;
}

cg_node *cg_profile_node(const cg_profile *p, unsigned part, cg_nid n)
{
	if (part >= p->nparts || n >= p->parts[part].nnodes)
		return NULL;
	return &p->parts[part].nodes[n];
}

static int node_new(cg_profile *p, struct part *pt, cg_nid parent, cg_fid f, cg_nid *out)
{
	if (grow((void **)&pt->nodes, &pt->nodecap, pt->nnodes + 1, sizeof *pt->nodes) ||
	    grow((void **)&pt->last_child, &pt->lastcap, pt->nnodes + 1, sizeof *pt->last_child))
		return CG_ENOMEM;
	cg_nid id = (cg_nid)pt->nnodes;
	cg_node *n = &pt->nodes[id];
	memset(n, 0, sizeof *n);
	n->func = f;
	n->parent = parent;
	n->first_child = n->next_sibling = n->recursion_target = CG_NO_NODE;
	if (!(n->self = new_cost_vector(p)))
		return CG_ENOMEM;
	pt->last_child[id] = CG_NO_NODE;
	pt->nnodes++;
	if (parent != CG_NO_NODE) {
		cg_nid last = pt->last_child[parent];
		if (last == CG_NO_NODE)
			pt->nodes[parent].first_child = id;
		else
			pt->nodes[last].next_sibling = id;
		pt->last_child[parent] = id;
	}
	*out = id;
	return 0;
}

static int ensure_root(cg_profile *p, struct part *pt)
{
	cg_nid root;
	return pt->nnodes ? 0 : node_new(p, pt, CG_NO_NODE, CG_NO_FUNC, &root);
}

int cg_profile_node_add(cg_profile *p, unsigned part, cg_nid parent, cg_fid f, cg_nid *out)
{
	if (part >= p->nparts || f >= p->nfuncs)
		return CG_EUSAGE;
	struct part *pt = &p->parts[part];
	if (ensure_root(p, pt))
		return CG_ENOMEM;
	if (parent >= pt->nnodes)
		return CG_EUSAGE;
	return node_new(p, pt, parent, f, out);
}

int cg_profile_node_child(cg_profile *p, unsigned part, cg_nid parent, cg_fid f, cg_nid *out)
{
	if (part >= p->nparts || f >= p->nfuncs)
		return CG_EUSAGE;
	struct part *pt = &p->parts[part];
	if (ensure_root(p, pt))
		return CG_ENOMEM;
	if (parent >= pt->nnodes)
		return CG_EUSAGE;
	/* the first node of each (parent, function) is the one found */
	for (; pt->node_indexed < pt->nnodes; pt->node_indexed++) {
		size_t n = pt->node_indexed;
		if (n == 0)
			continue;
		uint64_t key = (uint64_t)pt->nodes[n].parent << 32 | pt->nodes[n].func;
		uint32_t existing;
		if (!cg_hashmap_get(&pt->node_index, key, &existing) &&
		    cg_hashmap_put(&pt->node_index, key, (uint32_t)n))
			return CG_ENOMEM;
	}
	uint32_t idx;
	if (cg_hashmap_get(&pt->node_index, (uint64_t)parent << 32 | f, &idx)) {
		*out = idx;
		return 0;
	}
	return node_new(p, pt, parent, f, out);
}

/* ---- data derived from the call tree ---------------------------------------------- */

/* Marks in outermost[n] whether node n's function does not appear among
 * its ancestors.  Iterative walk: trees from deep recursion can be far
 * deeper than the C stack allows. */
static int mark_outermost(const cg_profile *p, const struct part *pt, unsigned char *outermost)
{
	uint32_t *onstack = calloc(p->nfuncs ? p->nfuncs : 1, sizeof *onstack);
	if (!onstack)
		return CG_ENOMEM;
	const cg_node *nodes = pt->nodes;
	cg_nid n = nodes[0].first_child;
	while (n != CG_NO_NODE) {
		outermost[n] = onstack[nodes[n].func]++ == 0;
		if (nodes[n].first_child != CG_NO_NODE) {
			n = nodes[n].first_child;
			continue;
		}
		while (n != CG_NO_NODE) {
			onstack[nodes[n].func]--;
			if (nodes[n].next_sibling != CG_NO_NODE) {
				n = nodes[n].next_sibling;
				break;
			}
			n = nodes[n].parent;
			if (n == 0)
				n = CG_NO_NODE;
		}
	}
	free(onstack);
	return 0;
}

static int derive_part(cg_profile *p, unsigned part, cg_error *err)
{
	struct part *pt = &p->parts[part];
	size_t nev = p->nev, nn = pt->nnodes;
	if (part_cover(p, pt))
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	memset(pt->self, 0, pt->fcap * (nev ? nev : 1) * sizeof *pt->self);
	/* self costs and arcs are rebuilt without positions */
	cg_pos_part_free(pt->pos);
	pt->pos = NULL;
	pt->narcs = 0;
	cg_hashmap_release(&pt->arc_index);
	if (pt->incl_known)
		memset(pt->incl_known, 0, pt->fcap);

	cg_cost *incl = calloc(nn * (nev ? nev : 1), sizeof *incl);
	cg_cost *fincl = calloc((p->nfuncs ? p->nfuncs : 1) * (nev ? nev : 1), sizeof *fincl);
	uint64_t *calls = calloc(p->nfuncs ? p->nfuncs : 1, sizeof *calls);
	unsigned char *seen = calloc(p->nfuncs ? p->nfuncs : 1, 1);
	unsigned char *outermost = calloc(nn, 1);
	int rc = CG_ENOMEM;
	if (!incl || !fincl || !calls || !seen || !outermost || mark_outermost(p, pt, outermost))
		goto out;
	/* Children always have larger indexes than their parent, so one
	 * backwards pass sums subtrees. */
	rc = CG_EFORMAT;   /* a sum that does not fit, until the end */
	for (size_t n = nn; n-- > 1;) {
		const cg_node *node = &pt->nodes[n];
		if (cg_checked_add_costs(incl + n * nev, node->self, nev) ||
		    (node->parent != 0 &&
		     cg_checked_add_costs(incl + (size_t)node->parent * nev, incl + n * nev, nev)))
			goto out;
	}
	for (size_t n = 1; n < nn; n++) {
		const cg_node *node = &pt->nodes[n];
		cg_fid f = node->func;
		if (cg_checked_add_costs(pt->self + (size_t)f * nev, node->self, nev))
			goto out;
		const cg_cost *charged = outermost[n] ? incl + n * nev : zero_costs;
		if (node->parent != 0 &&
		    (rc = cg_profile_add_arc(p, part, pt->nodes[node->parent].func, f, node->calls,
					     charged, NULL)))
			goto out;
		if (node->recursive &&
		    (rc = cg_profile_add_arc(p, part, f, f, node->recursive, zero_costs, NULL)))
			goto out;
		rc = CG_EFORMAT;
		if (outermost[n] &&
		    cg_checked_add_costs(fincl + (size_t)f * nev, incl + n * nev, nev))
			goto out;
		if (cg_checked_add_u64(&calls[f], node->calls) ||
		    cg_checked_add_u64(&calls[f], node->recursive))
			goto out;
		seen[f] = 1;
	}
	rc = CG_ENOMEM;
	for (cg_fid f = 0; f < p->nfuncs; f++) {
		if (!seen[f])
			continue;
		if (cg_profile_set_inclusive(p, part, f, fincl + (size_t)f * nev) ||
		    cg_profile_set_calls(p, part, f, calls[f]))
			goto out;
	}
	rc = 0;
out:
	free(incl);
	free(fincl);
	free(calls);
	free(seen);
	free(outermost);
	if (rc == CG_EFORMAT)
		cg_error_set(err, rc, "costs or call counts of the call tree sum past 2^63-1; "
			     "refusing totals that cannot be exact");
	else if (rc)
		cg_error_set(err, rc, "out of memory");
	return rc;
}

int cg_profile_derive_from_tree(cg_profile *p, cg_error *err)
{
	for (unsigned part = 0; part < p->nparts; part++) {
		if (p->parts[part].nnodes == 0)
			continue;
		int rc = derive_part(p, part, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- merging parts ------------------------------------------------------------------ */

int cg_profile_merge_parts(cg_profile **out, const cg_profile *src, cg_error *err)
{
	cg_profile *dst;
	if (cg_profile_new(&dst))
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	for (size_t e = 0; e < src->nev; e++)
		if (cg_profile_add_event(dst, src->events[e].name, src->events[e].description,
					 src->events[e].unit_seconds) < 0)
			goto oom;
	for (size_t i = 0; i < src->nmeta; i++)
		if (cg_profile_set_meta(dst, src->meta[i].key, src->meta[i].value))
			goto oom;
	if (cg_profile_set_gmon_info(dst, src->gmon) || cg_profile_add_run_info(dst, src->run))
		goto oom;
	dst->pos_kinds = src->pos_kinds;
	for (cg_fid f = 0; f < src->nfuncs; f++)
		if (cg_profile_add_function(dst, &src->funcs[f], NULL))
			goto oom;
	if (src->nparts == 1 && cg_profile_set_part_name(dst, 0, src->parts[0].name))
		goto oom;
	/* one part's own pairs still describe the merged part; several
	 * parts' do not */
	for (size_t i = 0; src->nparts == 1 && i < src->parts[0].nmeta; i++)
		if (cg_profile_set_part_meta(dst, 0, src->parts[0].meta[i].key,
					     src->parts[0].meta[i].value))
			goto oom;
	/* Parts without exact values contribute their integer self cost. */
	for (unsigned part = 0; part < src->nparts; part++) {
		int rc = cg_profile_merge_part_same(dst, 0, src, part);
		if (rc == CG_EFORMAT) {
			cg_profile_free(dst);
			return cg_error_set(err, rc, "merging the parts: costs or call counts sum "
					    "past 2^63-1; refusing totals that cannot be exact");
		}
		if (rc)
			goto oom;
	}
	*out = dst;
	return 0;
oom:
	cg_profile_free(dst);
	return cg_error_set(err, CG_ENOMEM, "out of memory");
}
