/*
 * diff.c — matching two profiles (events, functions, arcs, parts) and the
 * per-scope values the rules and writers read.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "checked.h"
#include "diff_internal.h"
#include "options.h"

/* ---- small helpers ----------------------------------------------------------- */

static int str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return a == b || strcmp(a, b) == 0;
}

/* NULL and "" hash differently, and the NUL ends each field. */
static uint64_t hash_str(uint64_t h, const char *s)
{
	return s ? cg_hash_bytes(h, s, strlen(s) + 1) : cg_hash_bytes(h, "\xff", 1);
}

static uint64_t identity_hash(const char *name, const char *object, const char *file)
{
	return hash_str(hash_str(hash_str(CG_HASH_INIT, name), object), file);
}

static int grow_array(void **ptr, size_t *cap, size_t need, size_t elem)
{
	return cg_array_grow(ptr, cap, need, elem, 64);
}

static const char *own_string(cg_diff *d, const char *prefix, const char *name,
			      const char *suffix)
{
	if (grow_array((void **)&d->owned, &d->ownedcap, d->nowned + 1, sizeof *d->owned))
		return NULL;
	size_t n = strlen(prefix) + strlen(name) + strlen(suffix) + 1;
	char *s = malloc(n);
	if (!s)
		return NULL;
	snprintf(s, n, "%s%s%s", prefix, name, suffix);
	d->owned[d->nowned++] = s;
	return s;
}

/* ---- function items -------------------------------------------------------------- */

static int intern_item(cg_diff *d, const char *name, const char *object, const char *file,
		       uint32_t line, int side, uint32_t *out)
{
	uint64_t h = identity_hash(name, object, file);
	size_t cursor = 0;
	uint32_t item;
	while (cg_hashmap_next(&d->func_index, h, &cursor, &item)) {
		cg_diff_function *f = &d->funcs[item];
		if (str_eq(f->name, name) && str_eq(f->object, object) && str_eq(f->file, file)) {
			*(side ? &f->in_new : &f->in_base) = 1;
			if (line && (side || !f->line))
				f->line = line;
			*out = item;
			return 0;
		}
	}
	if (d->nfuncs >= UINT32_MAX - 1 ||
	    grow_array((void **)&d->funcs, &d->funccap, d->nfuncs + 1, sizeof *d->funcs) ||
	    cg_hashmap_add(&d->func_index, h, (uint32_t)d->nfuncs))
		return CG_ENOMEM;
	cg_diff_function *f = &d->funcs[d->nfuncs];
	f->name = name;
	f->object = object;
	f->file = file;
	f->in_base = side == 0;
	f->in_new = side == 1;
	f->line = line;
	*out = (uint32_t)d->nfuncs++;
	return 0;
}

static const char *mapped_name(const cg_diff *d, int side, const char *name)
{
	if (side == 0)
		for (size_t i = 0; i < d->opts.nmap; i++)
			if (strcmp(d->opts.map_old[i], name) == 0)
				return d->opts.map_new[i];
	return name;
}

/* The name a cycle item gets: "<cycle M>" with M the smallest member name
 * (after renaming), so both profiles name the same cycle alike. */
static int cycle_names(cg_diff *d, int side, const char ***out)
{
	const cg_profile *p = d->side[side].p;
	size_t n = cg_profile_function_count(p);
	uint32_t ncyc = 0;
	for (size_t f = 0; f < n; f++)
		if (d->side[side].cycle_of[f] > ncyc)
			ncyc = d->side[side].cycle_of[f];
	const char **min = calloc(ncyc + 1, sizeof *min);
	if (!min)
		return CG_ENOMEM;
	for (size_t f = 0; f < n; f++) {
		uint32_t c = d->side[side].cycle_of[f];
		const char *name = mapped_name(d, side, cg_profile_function(p, (cg_fid)f)->name);
		if (c && (!min[c] || strcmp(name, min[c]) < 0))
			min[c] = name;
	}
	for (uint32_t c = 1; c <= ncyc; c++)
		if (min[c] && !(min[c] = own_string(d, "<cycle ", min[c], ">"))) {
			free(min);
			return CG_ENOMEM;
		}
	*out = min;
	return 0;
}

/* The object holding most functions: the profiled program, whose path
 * usually differs between two builds being compared. */
static const char *main_object(const cg_profile *p)
{
	enum { MAX_OBJECTS = 64 };
	const char *obj[MAX_OBJECTS];
	size_t count[MAX_OBJECTS], nobj = 0, n = cg_profile_function_count(p);
	for (size_t f = 0; f < n; f++) {
		const char *o = cg_profile_function(p, (cg_fid)f)->object;
		if (!o)
			continue;
		size_t i = 0;
		while (i < nobj && !str_eq(obj[i], o))
			i++;
		if (i == nobj) {
			if (nobj == MAX_OBJECTS)
				continue;
			obj[nobj] = o;
			count[nobj++] = 0;
		}
		count[i]++;
	}
	size_t best = 0;
	for (size_t i = 1; i < nobj; i++)
		if (count[i] > count[best])
			best = i;
	return nobj ? obj[best] : NULL;
}

static const char *matched_object(const cg_diff *d, int side, const char *object)
{
	if (d->opts.ignore_object)
		return NULL;
	if (side == 1 && object && str_eq(object, d->main_object[1]))
		return d->main_object[0];
	return object;
}

static int cmp_item_name(const void *a, const void *b, void *ctx)
{
	const cg_diff *d = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(d->funcs[x].name, d->funcs[y].name);
	return c ? c : (x > y) - (x < y);
}

static int mark_duplicate_names(cg_diff *d)
{
	size_t n = d->nfuncs;
	uint32_t *order = malloc((n ? n : 1) * sizeof *order);
	d->dupname = calloc(n ? n : 1, 1);
	if (!order || !d->dupname) {
		free(order);
		return CG_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, n, sizeof *order, cmp_item_name, d);
	for (size_t i = 1; i < n; i++)
		if (strcmp(d->funcs[order[i]].name, d->funcs[order[i - 1]].name) == 0)
			d->dupname[order[i]] = d->dupname[order[i - 1]] = 1;
	free(order);
	return 0;
}

static int match_functions(cg_diff *d, int side, cg_error *err)
{
	struct diff_side *s = &d->side[side];
	size_t n = cg_profile_function_count(s->p);
	s->item_of = malloc((n ? n : 1) * sizeof *s->item_of);
	if (!s->item_of)
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	const char **cycname = NULL;
	if (d->opts.cycles) {
		s->cycle_of = calloc(n ? n : 1, sizeof *s->cycle_of);
		if (!s->cycle_of)
			return cg_error_set(err, CG_ENOMEM, "out of memory");
		int rc = cg_diff_cycles(s->p, s->cycle_of, err);
		if (rc)
			return rc;
		if (cycle_names(d, side, &cycname))
			return cg_error_set(err, CG_ENOMEM, "out of memory");
	}
	int rc = 0;
	for (size_t f = 0; f < n && !rc; f++) {
		const cg_function *fn = cg_profile_function(s->p, (cg_fid)f);
		if (cycname && s->cycle_of[f]) {
			rc = intern_item(d, cycname[s->cycle_of[f]], NULL, NULL, 0, side,
					 &s->item_of[f]);
			continue;
		}
		rc = intern_item(d, mapped_name(d, side, fn->name),
				 matched_object(d, side, fn->object),
				 d->opts.ignore_file ? NULL : fn->file,
				 d->opts.ignore_file ? 0 : fn->line, side, &s->item_of[f]);
	}
	free(cycname);
	return rc ? cg_error_set(err, rc, "out of memory") : 0;
}

/* An arc whose ends fell on the same item by merging (a cycle, ignored
 * files) is internal to it; only true self-recursion stays an arc. */
static int arc_item(cg_diff *d, const struct diff_side *s, const cg_arc *a, uint32_t *out)
{
	uint32_t c = s->item_of[a->caller], e = s->item_of[a->callee];
	if (c == e && a->caller != a->callee)
		return 1;
	uint64_t key = (uint64_t)c << 32 | e;
	uint32_t idx;
	if (cg_hashmap_get(&d->arc_index, key, &idx)) {
		*out = idx;
		return 0;
	}
	if (grow_array((void **)&d->arcs, &d->arccap, d->narcs + 1, sizeof *d->arcs))
		return CG_ENOMEM;
	idx = (uint32_t)d->narcs;
	if (cg_hashmap_put(&d->arc_index, key, idx))
		return CG_ENOMEM;
	d->arcs[d->narcs].caller = c;
	d->arcs[d->narcs].callee = e;
	d->narcs++;
	*out = idx;
	return 0;
}

static int match_arcs(cg_diff *d, int side)
{
	const struct diff_side *s = &d->side[side];
	size_t np = cg_profile_part_count(s->p);
	for (unsigned part = 0; part < np; part++) {
		size_t na = cg_profile_arc_count(s->p, part);
		for (size_t i = 0; i < na; i++) {
			uint32_t idx;
			int rc = arc_item(d, s, cg_profile_arc(s->p, part, i), &idx);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/* ---- events -------------------------------------------------------------------------- */

static int classify_event(const cg_event *e)
{
	if (e->unit_seconds <= 0)
		return CG_DIFF_EXACT;
	return e->unit_seconds >= 1e-4 ? CG_DIFF_SAMPLED : CG_DIFF_MEASURED;
}

static int match_events(cg_diff *d, cg_error *err)
{
	const cg_profile *b = d->side[0].p, *n = d->side[1].p;
	for (size_t e = 0; e < cg_profile_event_count(b); e++) {
		const cg_event *ev = cg_profile_event(b, e);
		int j = cg_profile_find_event(n, ev->name);
		if (j < 0)
			continue;
		/* fail closed: a NaN or infinite unit would make every
		 * threshold comparison false, so no rule could ever fire */
		for (int s = 0; s < 2; s++) {
			double u = cg_profile_event(s ? n : b, s ? (size_t)j : e)->unit_seconds;
			if (!isfinite(u) || u < 0)
				return cg_error_set(err, CG_EFORMAT,
						    "%s profile: event %s has unit %g seconds; a diff needs "
						    "a finite, non-negative unit",
						    s ? "new" : "base", ev->name, u);
		}
		d->side[0].ev[d->nev] = (int)e;
		d->side[1].ev[d->nev] = j;
		d->events[d->nev] = ev;
		d->kind[d->nev] = classify_event(ev);
		d->nev++;
	}
	if (!d->nev)
		return cg_error_set(err, CG_EMISMATCH, "the two profiles have no event in common");
	return 0;
}

/* ---- scopes ---------------------------------------------------------------------------- */

static int scope_alloc(cg_diff *d, struct diff_scope *sc)
{
	size_t nf = d->nfuncs ? d->nfuncs : 1, na = d->narcs ? d->narcs : 1, nev = d->nev;
	for (int s = 0; s < 2; s++) {
		sc->self[s] = calloc(nf * nev, sizeof(cg_cost));
		sc->incl[s] = calloc(nf * nev, sizeof(cg_cost));
		sc->incl_known[s] = calloc(nf, 1);
		sc->calls[s] = calloc(nf, sizeof(uint64_t));
		sc->acount[s] = calloc(na, sizeof(uint64_t));
		sc->aincl[s] = calloc(na * nev, sizeof(cg_cost));
		sc->aincl_known[s] = calloc(na, 1);
		if (!sc->self[s] || !sc->incl[s] || !sc->incl_known[s] || !sc->calls[s] ||
		    !sc->acount[s] || !sc->aincl[s] || !sc->aincl_known[s])
			return CG_ENOMEM;
	}
	return 0;
}

static void scope_release(struct diff_scope *sc)
{
	for (int s = 0; s < 2; s++) {
		free(sc->self[s]);
		free(sc->incl[s]);
		free(sc->incl_known[s]);
		free(sc->calls[s]);
		free(sc->acount[s]);
		free(sc->aincl[s]);
		free(sc->aincl_known[s]);
	}
}

static int part_has_inclusive(const cg_profile *p, unsigned part)
{
	size_t n = cg_profile_function_count(p);
	for (size_t f = 0; f < n; f++)
		if (cg_profile_inclusive(p, part, (cg_fid)f))
			return 1;
	return 0;
}

/* Adds one part of one side into the scope's arrays. */
/* Values are compared as signed 64-bit numbers: a sum that does not fit
 * is refused (docs/reliability.md, "Numbers"), never wrapped. */
static int overflow(cg_error *err, int side, const char *function)
{
	return cg_error_set(err, CG_EFORMAT,
			    "%s profile: the costs or counts of %s sum past 2^63-1; "
			    "refusing a comparison that cannot be exact",
			    side ? "new" : "base", function);
}

/* Every value a reader can ask for (cg_diff_value_get) and its delta fit
 * in an int64_t. */
static int pair_fits(int64_t b, int64_t n)
{
	int64_t delta;
	return b != INT64_MIN && !__builtin_sub_overflow(n, b, &delta);
}

static int check_values(const cg_diff *d, cg_error *err)
{
	size_t nev = d->nev;
	for (unsigned k = 0; k < d->nscopes; k++) {
		const struct diff_scope *sc = &d->scopes[k];
		for (size_t i = 0; i < d->nfuncs; i++) {
			int ok = sc->calls[0][i] <= INT64_MAX && sc->calls[1][i] <= INT64_MAX;
			for (size_t e = 0; e < nev && ok; e++)
				ok = pair_fits(sc->self[0][i * nev + e], sc->self[1][i * nev + e]) &&
				     pair_fits(sc->incl[0][i * nev + e], sc->incl[1][i * nev + e]);
			if (!ok)
				return cg_error_set(err, CG_EFORMAT,
						    "%s: a cost or call count past 2^63-1, or a change "
						    "that does not fit in 64 bits; refusing to compare",
						    d->funcs[i].name);
		}
		for (size_t i = 0; i < d->narcs; i++) {
			int ok = sc->acount[0][i] <= INT64_MAX && sc->acount[1][i] <= INT64_MAX;
			for (size_t e = 0; e < nev && ok; e++)
				ok = pair_fits(sc->aincl[0][i * nev + e], sc->aincl[1][i * nev + e]);
			if (!ok)
				return cg_error_set(err, CG_EFORMAT,
						    "%s -> %s: a call count or cost past 2^63-1; "
						    "refusing to compare",
						    d->funcs[d->arcs[i].caller].name,
						    d->funcs[d->arcs[i].callee].name);
		}
		for (size_t e = 0; e < nev; e++)
			if (!pair_fits(sc->total[0][e], sc->total[1][e]))
				return cg_error_set(err, CG_EFORMAT,
						    "%s: totals whose change does not fit in 64 bits",
						    d->events[e]->name);
	}
	return 0;
}

static int accumulate_part(cg_diff *d, struct diff_scope *sc, int side, unsigned part,
			   cg_error *err)
{
	const struct diff_side *s = &d->side[side];
	const cg_profile *p = s->p;
	size_t nf = cg_profile_function_count(p), pev = cg_profile_event_count(p);
	size_t nev = d->nev;
	cg_cost *prop = NULL;
	if (!part_has_inclusive(p, part)) {
		prop = malloc((nf ? nf : 1) * (pev ? pev : 1) * sizeof *prop);
		if (!prop)
			return cg_error_set(err, CG_ENOMEM, "out of memory");
		int rc = cg_diff_propagate(p, part, prop, err);
		if (rc) {
			free(prop);
			return rc;
		}
	}
	uint64_t *incoming = calloc(nf ? nf : 1, sizeof *incoming);
	if (!incoming) {
		free(prop);
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	}
	size_t na = cg_profile_arc_count(p, part);
	for (size_t i = 0; i < na; i++) {
		const cg_arc *a = cg_profile_arc(p, part, i);
		uint32_t idx;
		int over = a->caller != a->callee && cg_checked_add_u64(&incoming[a->callee], a->count);
		if (!over && arc_item(d, s, a, &idx))
			continue;
		over = over || cg_checked_add_u64(&sc->acount[side][idx], a->count);
		if (a->inclusive && !over) {
			sc->aincl_known[side][idx] = 1;
			for (size_t e = 0; e < nev && !over; e++)
				over = cg_checked_add_cost(&sc->aincl[side][idx * nev + e],
							   a->inclusive[s->ev[e]]);
		}
		if (over) {
			free(incoming);
			free(prop);
			return overflow(err, side, cg_profile_function(p, a->caller)->name);
		}
	}
	for (size_t f = 0; f < nf; f++) {
		uint32_t it = s->item_of[f];
		const cg_cost *self = cg_profile_self(p, part, (cg_fid)f);
		const cg_cost *inc = prop ? prop + f * pev : cg_profile_inclusive(p, part, (cg_fid)f);
		int over = 0;
		for (size_t e = 0; e < nev && !over; e++)
			over = cg_checked_add_cost(&sc->self[side][it * nev + e], self[s->ev[e]]) ||
			       cg_checked_add_cost(&sc->total[side][e], self[s->ev[e]]) ||
			       (inc && cg_checked_add_cost(&sc->incl[side][it * nev + e], inc[s->ev[e]]));
		if (inc)
			sc->incl_known[side][it] = 1;
		uint64_t calls = cg_profile_calls(p, part, (cg_fid)f);
		if (over || cg_checked_add_u64(&sc->calls[side][it],
					       calls == UINT64_MAX ? incoming[f] : calls)) {
			free(incoming);
			free(prop);
			return overflow(err, side, cg_profile_function(p, (cg_fid)f)->name);
		}
	}
	free(incoming);
	free(prop);
	return 0;
}

/* Parts are matched by name, then the rest pairwise in order (thread ids
 * and pids differ from run to run). */
static int match_parts(cg_diff *d)
{
	const cg_profile *b = d->side[0].p, *n = d->side[1].p;
	size_t nb = cg_profile_part_count(b), nn = cg_profile_part_count(n);
	size_t max = 1 + (d->opts.parts && nb > 1 && nn > 1 ? (nb < nn ? nb : nn) : 0);
	d->scopes = calloc(max, sizeof *d->scopes);
	if (!d->scopes)
		return CG_ENOMEM;
	d->scopes[0].name = "";
	d->scopes[0].part[0] = d->scopes[0].part[1] = -1;
	d->nscopes = 1;
	if (max == 1)
		return 0;
	unsigned char *used = calloc(nn, 1), *done = calloc(nb, 1);
	if (!used || !done) {
		free(used);
		free(done);
		return CG_ENOMEM;
	}
	for (unsigned i = 0; i < nb; i++)
		for (unsigned j = 0; j < nn; j++)
			if (!used[j] && strcmp(cg_profile_part_name(b, i), cg_profile_part_name(n, j)) == 0) {
				struct diff_scope *sc = &d->scopes[d->nscopes++];
				sc->name = cg_profile_part_name(b, i);
				sc->part[0] = (int)i;
				sc->part[1] = (int)j;
				used[j] = done[i] = 1;
				break;
			}
	unsigned j = 0;
	for (unsigned i = 0; i < nb; i++) {
		if (done[i])
			continue;
		while (j < nn && used[j])
			j++;
		if (j >= nn)
			break;
		struct diff_scope *sc = &d->scopes[d->nscopes++];
		sc->name = cg_profile_part_name(b, i);
		sc->part[0] = (int)i;
		sc->part[1] = (int)j++;
	}
	free(used);
	free(done);
	return 0;
}

static int fill_scopes(cg_diff *d, cg_error *err)
{
	if (match_parts(d))
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	for (unsigned k = 0; k < d->nscopes; k++) {
		struct diff_scope *sc = &d->scopes[k];
		if (scope_alloc(d, sc))
			return cg_error_set(err, CG_ENOMEM, "out of memory");
		for (int s = 0; s < 2; s++) {
			size_t np = cg_profile_part_count(d->side[s].p);
			for (unsigned part = 0; part < np; part++) {
				if (sc->part[s] >= 0 && (unsigned)sc->part[s] != part)
					continue;
				int rc = accumulate_part(d, sc, s, part, err);
				if (rc)
					return rc;
			}
		}
	}
	return 0;
}

/* ---- life cycle ------------------------------------------------------------------------ */

int cg_diff_new(cg_diff **out, const cg_profile *base, const cg_profile *new_profile,
		const cg_diff_options *opts, cg_error *err)
{
	*out = NULL;
	if (CG_CHECK_OPTIONS(opts, CG_DIFF_OPTIONS_VERSION, "cg_diff_options", err))
		return CG_EUSAGE;
	if (!base || !new_profile)
		return cg_error_set(err, CG_EUSAGE, "cg_diff_new: missing profile");
	if (opts && opts->version != CG_DIFF_OPTIONS_VERSION)
		return cg_error_set(err, CG_EUSAGE, "cg_diff_new: unknown options version %u",
				    opts->version);
	if (opts && (isnan(opts->z) || isinf(opts->z) || opts->z < 0))
		return cg_error_set(err, CG_EUSAGE, "noise z %g: expected a finite positive number "
				    "(0 for the default)", opts->z);
	cg_diff *d = calloc(1, sizeof *d);
	if (!d)
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	cg_diff_options defaults = CG_DIFF_OPTIONS_INIT;
	d->opts = opts ? *opts : defaults;
	d->z = d->opts.z > 0 ? d->opts.z : CG_DIFF_DEFAULT_Z;
	d->side[0].p = base;
	d->side[1].p = new_profile;
	d->main_object[0] = main_object(base);
	d->main_object[1] = main_object(new_profile);
	int rc = match_events(d, err);
	for (int s = 0; s < 2 && !rc; s++)
		rc = match_functions(d, s, err);
	for (int s = 0; s < 2 && !rc; s++)
		if ((rc = match_arcs(d, s)))
			cg_error_set(err, rc, "out of memory");
	if (!rc && mark_duplicate_names(d))
		rc = cg_error_set(err, CG_ENOMEM, "out of memory");
	if (!rc)
		rc = fill_scopes(d, err);
	if (!rc)
		rc = check_values(d, err);
	if (rc) {
		cg_diff_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void cg_diff_free(cg_diff *d)
{
	if (!d)
		return;
	for (int s = 0; s < 2; s++) {
		free(d->side[s].item_of);
		free(d->side[s].cycle_of);
	}
	for (unsigned k = 0; k < d->nscopes; k++)
		scope_release(&d->scopes[k]);
	free(d->scopes);
	free(d->funcs);
	cg_hashmap_release(&d->func_index);
	free(d->dupname);
	free(d->arcs);
	cg_hashmap_release(&d->arc_index);
	for (size_t i = 0; i < d->nowned; i++)
		free(d->owned[i]);
	free(d->owned);
	cg_diff_clear_rules(d);
	free(d->reasons);
	free(d->findings);
	free(d);
}

/* ---- accessors -------------------------------------------------------------------------- */

size_t cg_diff_event_count(const cg_diff *d) { return d->nev; }

const cg_event *cg_diff_event(const cg_diff *d, size_t e)
{
	return e < d->nev ? d->events[e] : NULL;
}

int cg_diff_event_kind(const cg_diff *d, size_t e)
{
	return e < d->nev ? d->kind[e] : CG_DIFF_EXACT;
}

const char *cg_diff_event_kind_name(int kind)
{
	switch (kind) {
	case CG_DIFF_SAMPLED: return "sampled";
	case CG_DIFF_MEASURED: return "measured";
	default: return "exact";
	}
}

int cg_diff_find_event(const cg_diff *d, const char *name)
{
	for (size_t e = 0; e < d->nev; e++)
		if (strcmp(d->events[e]->name, name) == 0)
			return (int)e;
	return -1;
}

unsigned cg_diff_scope_count(const cg_diff *d) { return d->nscopes; }

const char *cg_diff_scope_name(const cg_diff *d, unsigned scope)
{
	return scope < d->nscopes ? d->scopes[scope].name : NULL;
}

size_t cg_diff_function_count(const cg_diff *d) { return d->nfuncs; }

void cg_diff_function_at(const cg_diff *d, size_t i, cg_diff_function *out)
{
	*out = d->funcs[i];
}

long cg_diff_find_function(const cg_diff *d, const char *name)
{
	for (size_t i = 0; i < d->nfuncs; i++)
		if (strcmp(d->funcs[i].name, name) == 0)
			return (long)i;
	return -1;
}

size_t cg_diff_arc_count(const cg_diff *d) { return d->narcs; }

void cg_diff_arc_at(const cg_diff *d, size_t i, cg_diff_arc *out)
{
	*out = d->arcs[i];
}

long cg_diff_find_arc(const cg_diff *d, size_t caller, size_t callee)
{
	uint32_t idx;
	if (caller >= d->nfuncs || callee >= d->nfuncs ||
	    !cg_hashmap_get(&d->arc_index, (uint64_t)caller << 32 | callee, &idx))
		return -1;
	return (long)idx;
}

const char *cg_diff_metric_name(int metric)
{
	static const char *const names[CG_DIFF_NMETRICS] = {
		"self", "inclusive", "calls", "arcs", "arc-inclusive", "total"
	};
	return metric >= 0 && metric < CG_DIFF_NMETRICS ? names[metric] : "?";
}

static void set_value(cg_diff_value *v, int64_t b, int64_t n, int known)
{
	v->base = b;
	v->new_value = n;
	v->delta = n - b;
	v->known = known;
	if (b != 0)
		v->relative = (double)v->delta / (double)(b < 0 ? -b : b);
	else
		v->relative = v->delta > 0 ? INFINITY : v->delta < 0 ? -INFINITY : 0.0;
}

int cg_diff_value_get(const cg_diff *d, unsigned scope, int metric, size_t item, size_t event,
		      cg_diff_value *out)
{
	memset(out, 0, sizeof *out);
	if (scope >= d->nscopes || metric < 0 || metric >= CG_DIFF_NMETRICS)
		return CG_EUSAGE;
	const struct diff_scope *sc = &d->scopes[scope];
	int fn = metric == CG_DIFF_SELF || metric == CG_DIFF_INCLUSIVE || metric == CG_DIFF_CALLS;
	int arc = metric == CG_DIFF_ARC_CALLS || metric == CG_DIFF_ARC_INCLUSIVE;
	if ((fn && item >= d->nfuncs) || (arc && item >= d->narcs) ||
	    (metric != CG_DIFF_CALLS && metric != CG_DIFF_ARC_CALLS && event >= d->nev))
		return CG_EUSAGE;
	size_t nev = d->nev, k = item * nev + event;
	switch (metric) {
	case CG_DIFF_SELF:
		set_value(out, sc->self[0][k], sc->self[1][k], 1);
		break;
	case CG_DIFF_INCLUSIVE:
		set_value(out, sc->incl[0][k], sc->incl[1][k],
			  sc->incl_known[0][item] || sc->incl_known[1][item]);
		break;
	case CG_DIFF_CALLS:
		set_value(out, (int64_t)sc->calls[0][item], (int64_t)sc->calls[1][item], 1);
		break;
	case CG_DIFF_ARC_CALLS:
		set_value(out, (int64_t)sc->acount[0][item], (int64_t)sc->acount[1][item], 1);
		break;
	case CG_DIFF_ARC_INCLUSIVE:
		set_value(out, sc->aincl[0][k], sc->aincl[1][k],
			  sc->aincl_known[0][item] || sc->aincl_known[1][item]);
		break;
	case CG_DIFF_TOTAL:
		set_value(out, sc->total[0][event], sc->total[1][event], 1);
		break;
	}
	return 0;
}

void cg_diff_item_label(const cg_diff *d, size_t item, char *buf, size_t size)
{
	const cg_diff_function *f = &d->funcs[item];
	if (!d->dupname[item])
		snprintf(buf, size, "%s", f->name);
	else if (f->file && f->object)
		snprintf(buf, size, "%s (%s, %s)", f->name, f->file, f->object);
	else if (f->file || f->object)
		snprintf(buf, size, "%s (%s)", f->name, f->file ? f->file : f->object);
	else
		snprintf(buf, size, "%s", f->name);
}
