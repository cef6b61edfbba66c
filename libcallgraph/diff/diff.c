/*
 * diff.c — matching two profiles (events, functions, arcs, parts) and the
 * per-scope values the rules and writers read.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "budget.h"
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

static int same_item(const cg_diff_function *f, const char *name, const char *object,
		     const char *file)
{
	return str_eq(f->name, name) && str_eq(f->object, object) && str_eq(f->file, file);
}

static void found_item(cg_diff_function *f, uint32_t line, int side)
{
	*(side ? &f->in_new : &f->in_base) = 1;
	if (line && (side || !f->line))
		f->line = line;
}

/* The item of a function, added when new.  `guess` is the item tried
 * first (UINT32_MAX: none): two profiles of one program mostly list their
 * functions in the same order, so the item after the previous function's
 * is usually the one, found without hashing the names or a cache miss in
 * the index.  An item is unique to its name, object and file, so a right
 * guess is the item the index would give. */
static int intern_item(cg_diff *d, uint32_t guess, const char *name, const char *object,
		       const char *file, uint32_t line, int side, uint32_t *out)
{
	if (guess < d->nfuncs && same_item(&d->funcs[guess], name, object, file)) {
		found_item(&d->funcs[guess], line, side);
		*out = guess;
		return 0;
	}
	uint64_t h = identity_hash(name, object, file);
	size_t cursor = 0;
	uint32_t item;
	while (cg_hashmap_next(&d->func_index, h, &cursor, &item)) {
		cg_diff_function *f = &d->funcs[item];
		if (same_item(f, name, object, file)) {
			found_item(f, line, side);
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
static int cycle_names(cg_diff *d, int side, const struct diff_side *s, const char ***out)
{
	const cg_profile *p = s->p;
	size_t n = cg_profile_function_count(p);
	uint32_t ncyc = 0;
	for (size_t f = 0; f < n; f++)
		if (s->cycle_of[f] > ncyc)
			ncyc = s->cycle_of[f];
	const char **min = calloc(ncyc + 1, sizeof *min);
	if (!min)
		return CG_ENOMEM;
	for (size_t f = 0; f < n; f++) {
		uint32_t c = s->cycle_of[f];
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

static const char *matched_object(const cg_diff *d, const struct diff_side *s,
				  const char *object)
{
	if (d->opts.ignore_object)
		return NULL;
	if (object && str_eq(object, s->main_object))
		return d->side[0].main_object;
	return object;
}

/* ---- source roots ------------------------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The distinct absolute source paths of p, sorted. */
static const char **absolute_files(const cg_profile *p, size_t *count)
{
	size_t n = cg_profile_function_count(p), k = 0;
	const char **files = malloc((n ? n : 1) * sizeof *files);
	if (!files)
		return NULL;
	for (size_t f = 0; f < n; f++) {
		const char *file = cg_profile_function(p, (cg_fid)f)->file;
		if (file && file[0] == '/')
			files[k++] = file;
	}
	qsort(files, k, sizeof *files, cmp_str_ptr);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || strcmp(files[u - 1], files[i]))
			files[u++] = files[i];
	*count = u;
	return files;
}

static int cmp_base_name(const void *a, const void *b)
{
	return strcmp(base_name(*(const char *const *)a), base_name(*(const char *const *)b));
}

struct root_vote {
	const char *a, *b;   /* paths the roots are prefixes of */
	size_t alen, blen;
	size_t votes;
};

/* Roots (directory prefixes) of p's and ref's source paths under which
 * most paths of the two agree: every pair of different absolute paths
 * with the same file name votes for the directories above their longest
 * common tail of whole components.  Paths equal on both sides (system
 * headers, one checkout) do not vote, so nothing is stripped when the
 * checkouts are the same.  Sets *root (p's side) and *ref_root, or
 * leaves them NULL. */
static int vote_roots(cg_diff *d, const cg_profile *p, const cg_profile *ref, const char **root,
		      const char **ref_root)
{
	enum { MAX_CANDIDATES = 32 };
	struct root_vote cand[MAX_CANDIDATES];
	size_t ncand = 0, np = 0, nr = 0;
	const char **pf = absolute_files(p, &np), **rf = absolute_files(ref, &nr);
	if (!pf || !rf) {
		free(pf);
		free(rf);
		return CG_ENOMEM;
	}
	/* Sorted by file name, paths with one name pair up in one pass. */
	qsort(pf, np, sizeof *pf, cmp_base_name);
	qsort(rf, nr, sizeof *rf, cmp_base_name);
	size_t j0 = 0;
	for (size_t i = 0; i < np; i++) {
		const char *a = pf[i], *an = base_name(a);
		while (j0 < nr && strcmp(base_name(rf[j0]), an) < 0)
			j0++;
		for (size_t j = j0; j < nr && strcmp(base_name(rf[j]), an) == 0; j++) {
			const char *b = rf[j];
			if (strcmp(a, b) == 0)
				continue;
			size_t la = strlen(a), lb = strlen(b);
			while (la && lb && a[la - 1] == b[lb - 1])
				la--, lb--;
			/* Back to a component boundary: both roots end with '/'. */
			while (la && lb && !(a[la - 1] == '/' && b[lb - 1] == '/'))
				la++, lb++;
			if (!la || !lb)
				continue;
			size_t c = 0;
			while (c < ncand && !(cand[c].alen == la && cand[c].blen == lb &&
					      memcmp(cand[c].a, a, la) == 0 &&
					      memcmp(cand[c].b, b, lb) == 0))
				c++;
			if (c == ncand) {
				if (ncand == MAX_CANDIDATES)
					continue;
				cand[ncand++] = (struct root_vote){ a, b, la, lb, 0 };
			}
			cand[c].votes++;
		}
	}
	size_t best = 0;
	for (size_t c = 1; c < ncand; c++)
		if (cand[c].votes > cand[best].votes)
			best = c;
	int rc = 0;
	if (ncand) {
		char *x = malloc(cand[best].alen + 1), *y = malloc(cand[best].blen + 1);
		if (!x || !y || grow_array((void **)&d->owned, &d->ownedcap, d->nowned + 2,
					   sizeof *d->owned)) {
			free(x);
			free(y);
			rc = CG_ENOMEM;
		} else {
			memcpy(x, cand[best].a, cand[best].alen);
			x[cand[best].alen] = '\0';
			memcpy(y, cand[best].b, cand[best].blen);
			y[cand[best].blen] = '\0';
			d->owned[d->nowned++] = x;
			d->owned[d->nowned++] = y;
			*root = x;
			if (ref_root)
				*ref_root = y;
		}
	}
	free(pf);
	free(rf);
	return rc;
}

/* A directory given by the user, as a prefix ending in '/'. */
static const char *root_prefix(cg_diff *d, const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	char *r = malloc(n + 2);
	if (!r || grow_array((void **)&d->owned, &d->ownedcap, d->nowned + 1, sizeof *d->owned)) {
		free(r);
		return NULL;
	}
	memcpy(r, dir, n);
	if (r[n - 1] != '/')
		r[n++] = '/';
	r[n] = '\0';
	d->owned[d->nowned++] = r;
	return r;
}

/* Whether some source path of p lies under root. */
static int holds_root(const cg_profile *p, const char *root)
{
	size_t n = cg_profile_function_count(p), len = strlen(root);
	for (size_t f = 0; f < n; f++) {
		const char *file = cg_profile_function(p, (cg_fid)f)->file;
		if (file && strncmp(file, root, len) == 0)
			return 1;
	}
	return 0;
}

/* A given root applies to the runs of its side whose paths lie under it
 * (a baseline from another checkout does not); every other run gets the
 * root detected against the other side's first run, else, when nothing
 * was detected (same checkout), the other side's given root. */
static int set_roots(cg_diff *d, cg_error *err)
{
	if (d->opts.absolute_paths || d->opts.ignore_file)
		return 0;
	const char *given[2] = { NULL, NULL };
	for (int side = 0; side < 2; side++)
		if (d->opts.source_root[side] &&
		    !(given[side] = root_prefix(d, d->opts.source_root[side])))
			return cg_error_set(err, CG_ENOMEM, "out of memory");
	for (int side = 0; side < 2; side++)
		for (size_t k = 0; k < d->nruns[side]; k++) {
			struct diff_side *s = (struct diff_side *)cg_diff_run_side(d, side, k);
			if (given[side] && holds_root(s->p, given[side])) {
				s->root = given[side];
				continue;
			}
			const struct diff_side *ref = &d->side[!side];
			if (vote_roots(d, s->p, ref->p, &s->root, NULL))
				return cg_error_set(err, CG_ENOMEM, "out of memory");
			if (!s->root && given[!side] && holds_root(s->p, given[!side]))
				s->root = given[!side];
		}
	return 0;
}

static const char *relative_file(const struct diff_side *s, const char *file)
{
	if (file && s->root) {
		size_t n = strlen(s->root);
		if (strncmp(file, s->root, n) == 0 && file[n])
			return file + n;
	}
	if (file && file[0] == '.' && file[1] == '/' && file[2])
		return file + 2;
	return file;
}

/* Items that share a name (same function in different files or objects)
 * are marked so reports can tell them apart.  Hashed rather than sorted:
 * with 200k functions the name sort was a twentieth of the comparison. */
static int mark_duplicate_names(cg_diff *d)
{
	size_t n = d->nfuncs;
	struct cg_hashmap by_name = { 0 };
	d->dupname = calloc(n ? n : 1, 1);
	if (!d->dupname || cg_hashmap_reserve(&by_name, n))
		return CG_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *name = d->funcs[i].name;
		uint64_t h = hash_str(CG_HASH_INIT, name);
		size_t cursor = 0;
		uint32_t other;
		while (cg_hashmap_next(&by_name, h, &cursor, &other))
			if (strcmp(d->funcs[other].name, name) == 0)
				d->dupname[other] = d->dupname[i] = 1;
		if (cg_hashmap_add(&by_name, h, (uint32_t)i)) {
			cg_hashmap_release(&by_name);
			return CG_ENOMEM;
		}
	}
	cg_hashmap_release(&by_name);
	return 0;
}

static int match_functions(cg_diff *d, int side, struct diff_side *s, cg_error *err)
{
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
		if (cycle_names(d, side, s, &cycname))
			return cg_error_set(err, CG_ENOMEM, "out of memory");
	}
	/* the first run has the most items to add: room for them at once */
	int rc = s == &d->side[0] && cg_hashmap_reserve(&d->func_index, n) ? CG_ENOMEM : 0;
	uint32_t guess = UINT32_MAX;
	for (size_t f = 0; f < n && !rc; f++) {
		const cg_function *fn = cg_profile_function(s->p, (cg_fid)f);
		if (cycname && s->cycle_of[f]) {
			rc = intern_item(d, UINT32_MAX, cycname[s->cycle_of[f]], NULL, NULL, 0, side,
					 &s->item_of[f]);
			continue;
		}
		rc = intern_item(d, guess, mapped_name(d, side, fn->name),
				 matched_object(d, s, fn->object),
				 d->opts.ignore_file ? NULL : relative_file(s, fn->file),
				 d->opts.ignore_file ? 0 : fn->line, side, &s->item_of[f]);
		guess = s->item_of[f] + 1;
	}
	free(cycname);
	return rc ? cg_error_set(err, rc, "out of memory") : 0;
}

/* An arc whose ends fell on the same item by merging (a cycle, ignored
 * files) is internal to it; only true self-recursion stays an arc.
 * `guess` is tried first, as in intern_item (an arc item is unique to
 * its two ends). */
static int arc_item(cg_diff *d, const struct diff_side *s, const cg_arc *a, uint32_t guess,
		    uint32_t *out)
{
	uint32_t c = s->item_of[a->caller], e = s->item_of[a->callee];
	if (c == e && a->caller != a->callee)
		return 1;
	if (guess < d->narcs && d->arcs[guess].caller == c && d->arcs[guess].callee == e) {
		*out = guess;
		return 0;
	}
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

static int match_arcs(cg_diff *d, struct diff_side *s)
{
	size_t np = cg_profile_part_count(s->p);
	s->arc_items = calloc(np ? np : 1, sizeof *s->arc_items);
	if (!s->arc_items)
		return CG_ENOMEM;
	s->nparts = np;
	if (s == &d->side[0]) {
		/* the first run has the most items to add: room for them at once */
		size_t all = 0;
		for (unsigned part = 0; part < np; part++)
			all += cg_profile_arc_count(s->p, part);
		if (cg_hashmap_reserve(&d->arc_index, all))
			return CG_ENOMEM;
	}
	for (unsigned part = 0; part < np; part++) {
		size_t na = cg_profile_arc_count(s->p, part);
		uint32_t *items = malloc((na ? na : 1) * sizeof *items);
		if (!items)
			return CG_ENOMEM;
		s->arc_items[part] = items;
		uint32_t guess = UINT32_MAX;
		for (size_t i = 0; i < na; i++) {
			int rc = arc_item(d, s, cg_profile_arc(s->p, part, i), guess, &items[i]);
			if (rc < 0)
				return rc;
			if (rc)
				items[i] = DIFF_NO_ITEM;
			else
				guess = items[i] + 1;
		}
	}
	return 0;
}

static void release_arc_items(struct diff_side *s)
{
	for (size_t part = 0; s->arc_items && part < s->nparts; part++)
		free(s->arc_items[part]);
	free(s->arc_items);
	s->arc_items = NULL;
}

/* ---- events -------------------------------------------------------------------------- */

static int same_unit(double a, double b)
{
	return a == b || fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

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
	/* Counts of different units are not comparable (a sampling rate
	 * changed, or two different kinds of event share a name). */
	for (size_t e = 0; e < d->nev; e++) {
		const cg_event *x = d->events[e];
		const cg_event *y = cg_profile_event(n, (size_t)d->side[1].ev[e]);
		if (!same_unit(x->unit_seconds, y->unit_seconds))
			return cg_error_set(err, CG_EMISMATCH,
					    "event '%s': the base counts units of %g s, the new "
					    "profile %g s: not comparable",
					    x->name, x->unit_seconds, y->unit_seconds);
	}
	return 0;
}

/* The events of a further run, matched by name with the first run's. */
static int match_run_events(cg_diff *d, int side, size_t run, struct diff_side *s, cg_error *err)
{
	for (size_t e = 0; e < d->nev; e++) {
		int j = cg_profile_find_event(s->p, d->events[e]->name);
		if (j < 0)
			return cg_error_set(err, CG_EMISMATCH, "%s run %zu has no event '%s'",
					    side ? "new" : "base", run + 1, d->events[e]->name);
		if (!same_unit(d->events[e]->unit_seconds, cg_profile_event(s->p, (size_t)j)->unit_seconds))
			return cg_error_set(err, CG_EMISMATCH,
					    "%s run %zu: event '%s' has another unit than in the first run",
					    side ? "new" : "base", run + 1, d->events[e]->name);
		s->ev[e] = j;
	}
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

static int accumulate_part(cg_diff *d, struct diff_scope *sc, int side,
			   const struct diff_side *s, unsigned part, cg_error *err)
{
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
		uint32_t idx = s->arc_items[part][i];
		int over = a->caller != a->callee && cg_checked_add_u64(&incoming[a->callee], a->count);
		if (!over && idx == DIFF_NO_ITEM)
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

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The median of v[0], v[stride], ... (n values; the mean of the middle two,
 * rounded down, for even n). */
static int64_t median(int64_t *tmp, const int64_t *const *v, size_t n, size_t at)
{
	for (size_t r = 0; r < n; r++)
		tmp[r] = v[r][at];
	qsort(tmp, n, sizeof *tmp, cmp_i64);
	if (n % 2)
		return tmp[n / 2];
	int64_t lo = tmp[n / 2 - 1], hi = tmp[n / 2];
	return lo + (hi - lo) / 2;
}

/* Repeated runs: every run into its own run scope, the scope's values
 * become the medians over the runs of each side. */
static int fill_run_scopes(cg_diff *d, struct diff_scope *sc, cg_error *err)
{
	size_t nrun = d->nruns[0] > d->nruns[1] ? d->nruns[0] : d->nruns[1];
	sc->run = calloc(nrun, sizeof *sc->run);
	if (!sc->run)
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	sc->nrun = (unsigned)nrun;
	for (size_t r = 0; r < nrun; r++) {
		struct diff_scope *rs = &sc->run[r];
		rs->part[0] = rs->part[1] = -1;
		if (scope_alloc(d, rs))
			return cg_error_set(err, CG_ENOMEM, "out of memory");
		for (int s = 0; s < 2; s++) {
			if (r >= d->nruns[s])
				continue;
			const struct diff_side *side = cg_diff_run_side(d, s, r);
			size_t np = cg_profile_part_count(side->p);
			for (unsigned part = 0; part < np; part++) {
				int rc = accumulate_part(d, rs, s, side, part, err);
				if (rc)
					return rc;
			}
		}
	}
	size_t nf = d->nfuncs, na = d->narcs, nev = d->nev;
	int64_t *tmp = malloc(nrun * sizeof *tmp);
	const int64_t **v = malloc(nrun * sizeof *v);
	if (!tmp || !v) {
		free(tmp);
		free(v);
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	}
	for (int s = 0; s < 2; s++) {
		size_t n = d->nruns[s];
#define MEDIAN_OF(field, count, type)                                          \
		do {                                                           \
			for (size_t r = 0; r < n; r++)                         \
				v[r] = (const int64_t *)sc->run[r].field[s];   \
			for (size_t i = 0; i < (count); i++)                   \
				sc->field[s][i] = (type)median(tmp, v, n, i);  \
		} while (0)
		MEDIAN_OF(self, nf * nev, cg_cost);
		MEDIAN_OF(incl, nf * nev, cg_cost);
		MEDIAN_OF(calls, nf, uint64_t);
		MEDIAN_OF(acount, na, uint64_t);
		MEDIAN_OF(aincl, na * nev, cg_cost);
#undef MEDIAN_OF
		for (size_t e = 0; e < nev; e++) {
			for (size_t r = 0; r < n; r++)
				v[r] = sc->run[r].total[s];
			sc->total[s][e] = median(tmp, v, n, e);
		}
		for (size_t r = 0; r < n; r++) {
			for (size_t i = 0; i < nf; i++)
				sc->incl_known[s][i] |= sc->run[r].incl_known[s][i];
			for (size_t i = 0; i < na; i++)
				sc->aincl_known[s][i] |= sc->run[r].aincl_known[s][i];
		}
	}
	free(tmp);
	free(v);
	return 0;
}

/* One side's parts into a scope of one run each. */
static int fill_side(cg_diff *d, struct diff_scope *sc, int s, cg_error *err)
{
	size_t np = cg_profile_part_count(d->side[s].p);
	for (unsigned part = 0; part < np; part++) {
		if (sc->part[s] >= 0 && (unsigned)sc->part[s] != part)
			continue;
		int rc = accumulate_part(d, sc, s, &d->side[s], part, err);
		if (rc)
			return rc;
	}
	return 0;
}

struct side_fill {
	cg_diff *d;
	struct diff_scope *sc;
	int side, rc;
	cg_error err;
	pthread_t thread;
};

static void *fill_side_main(void *arg)
{
	struct side_fill *f = arg;
	f->rc = fill_side(f->d, f->sc, f->side, &f->err);
	return NULL;
}

static int fill_scopes(cg_diff *d, cg_error *err)
{
	if (match_parts(d))
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	if (d->nruns[0] > 1 || d->nruns[1] > 1) {
		if (scope_alloc(d, &d->scopes[0]))
			return cg_error_set(err, CG_ENOMEM, "out of memory");
		return fill_run_scopes(d, &d->scopes[0], err);
	}
	for (unsigned k = 0; k < d->nscopes; k++) {
		struct diff_scope *sc = &d->scopes[k];
		if (scope_alloc(d, sc))
			return cg_error_set(err, CG_ENOMEM, "out of memory");
		/* the new side in a second thread: the sides write apart, and
		 * propagating inclusive costs through 200k functions is a
		 * tenth of a large comparison */
		struct side_fill fill = { .d = d, .sc = sc, .side = 1, .err = CG_ERROR_INIT };
		int threaded = pthread_create(&fill.thread, NULL, fill_side_main, &fill) == 0;
		int rc = fill_side(d, sc, 0, err);
		if (threaded)
			pthread_join(fill.thread, NULL);
		else
			fill_side_main(&fill);
		if (rc)
			return rc;
		if (fill.rc) {
			*err = fill.err;
			return fill.rc;
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
	d->alpha = d->opts.alpha > 0 ? d->opts.alpha : CG_DIFF_DEFAULT_ALPHA;
	d->side[0].p = base;
	d->side[1].p = new_profile;
	int rc = 0;
	for (int s = 0; s < 2 && !rc; s++) {
		d->nruns[s] = 1 + d->opts.nmore_runs[s];
		if (d->opts.nmore_runs[s] && !(d->more[s] = calloc(d->opts.nmore_runs[s], sizeof *d->more[s])))
			rc = cg_error_set(err, CG_ENOMEM, "out of memory");
		for (size_t r = 0; r < d->opts.nmore_runs[s] && !rc; r++) {
			d->more[s][r].p = d->opts.more_runs[s][r];
			if (!d->more[s][r].p)
				rc = cg_error_set(err, CG_EUSAGE, "cg_diff_new: missing profile");
		}
	}
	if (!rc && d->opts.parts && (d->nruns[0] > 1 || d->nruns[1] > 1))
		rc = cg_error_set(err, CG_EUSAGE, "parts cannot be compared over repeated runs");
	for (int s = 0; s < 2 && !rc; s++)
		for (size_t r = 0; r < d->nruns[s]; r++) {
			struct diff_side *sd = (struct diff_side *)cg_diff_run_side(d, s, r);
			sd->main_object = main_object(sd->p);
		}
	if (!rc)
		rc = match_events(d, err);
	for (int s = 0; s < 2 && !rc; s++)
		for (size_t r = 1; r < d->nruns[s] && !rc; r++)
			rc = match_run_events(d, s, r, &d->more[s][r - 1], err);
	if (!rc)
		rc = set_roots(d, err);
	for (int s = 0; s < 2 && !rc; s++)
		for (size_t r = 0; r < d->nruns[s] && !rc; r++)
			rc = match_functions(d, s, (struct diff_side *)cg_diff_run_side(d, s, r), err);
	for (int s = 0; s < 2 && !rc; s++)
		for (size_t r = 0; r < d->nruns[s] && !rc; r++)
			if ((rc = match_arcs(d, (struct diff_side *)cg_diff_run_side(d, s, r))))
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
	/* every function is matched: the index would only take room */
	cg_hashmap_release(&d->func_index);
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
		release_arc_items(&d->side[s]);
		for (size_t r = 0; d->more[s] && r + 1 < d->nruns[s]; r++) {
			release_arc_items(&d->more[s][r]);
			free(d->more[s][r].item_of);
			free(d->more[s][r].cycle_of);
		}
		free(d->more[s]);
	}
	for (unsigned k = 0; k < d->nscopes; k++) {
		for (unsigned r = 0; r < d->scopes[k].nrun; r++)
			scope_release(&d->scopes[k].run[r]);
		free(d->scopes[k].run);
		scope_release(&d->scopes[k]);
	}
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
	for (size_t i = 0; i < d->nfinding_chunks; i++)
		free(d->finding_chunks[i]);
	cg_budget_give(d->nfinding_chunks * DIFF_FINDING_CHUNK * sizeof(cg_diff_finding));
	free(d->finding_chunks);
	free(d->exceeded);
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

static int scope_value(const cg_diff *d, const struct diff_scope *sc, int metric, size_t item,
		       size_t event, cg_diff_value *out);

int cg_diff_value_get(const cg_diff *d, unsigned scope, int metric, size_t item, size_t event,
		      cg_diff_value *out)
{
	memset(out, 0, sizeof *out);
	if (scope >= d->nscopes || metric < 0 || metric >= CG_DIFF_NMETRICS)
		return CG_EUSAGE;
	return scope_value(d, &d->scopes[scope], metric, item, event, out);
}

const struct diff_side *cg_diff_run_side(const cg_diff *d, int s, size_t r)
{
	return r == 0 ? &d->side[s] : &d->more[s][r - 1];
}

size_t cg_diff_run_count(const cg_diff *d, int side)
{
	return side == 0 || side == 1 ? d->nruns[side] : 0;
}

int cg_diff_run_value(const cg_diff *d, unsigned scope, int metric, size_t item, size_t event,
		      int side, size_t run, int64_t *out)
{
	*out = 0;
	if (scope >= d->nscopes || metric < 0 || metric >= CG_DIFF_NMETRICS ||
	    (side != 0 && side != 1) || run >= d->nruns[side])
		return CG_EUSAGE;
	const struct diff_scope *sc = &d->scopes[scope];
	cg_diff_value v;
	memset(&v, 0, sizeof v);
	int rc = scope_value(d, sc->nrun ? &sc->run[run] : sc, metric, item, event, &v);
	*out = side ? v.new_value : v.base;
	return rc;
}

static int scope_value(const cg_diff *d, const struct diff_scope *sc, int metric, size_t item,
		       size_t event, cg_diff_value *out)
{
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
