/*
 * transparent.c — transparent functions (SWI-Prolog's noprofile/1).
 *
 * With a call tree the removal is exact: a transparent node's self cost
 * goes to its parent node and its children are re-hung under the parent
 * (merging with the parent's children for the same function).  Without a
 * tree only arcs are known, so the cost and the outgoing calls of the
 * removed function are split among its callers in proportion to how often
 * each one called it.
 *
 * Positions (core/positions.c): a kept function keeps its self cost per
 * position and what it takes over from a removed callee goes to its own
 * line; an arc that comes out with its count unchanged keeps its call
 * sites, the others (rebuilt) lose them.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "callgraph.h"
#include "hashmap.h"
#include "positions.h"

#pragma weak cg_demangle

/* ---- integer splitting ------------------------------------------------------ */

/* out[i] = total * w[i] / sum(w), rounded by largest remainder so the
 * parts add up to total exactly (ties go to the lower index). */
struct remainder {
	unsigned __int128 rem;
	size_t index;
};

static int by_remainder(const void *a, const void *b)
{
	const struct remainder *x = a, *y = b;
	if (x->rem != y->rem)
		return x->rem > y->rem ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int split(int64_t total, const uint64_t *w, size_t n, int64_t *out)
{
	unsigned __int128 sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += w[i];
	int neg = total < 0;
	unsigned __int128 t = neg ? (unsigned __int128)(-(total + 1)) + 1 : (unsigned __int128)total;
	if (sum == 0) {
		memset(out, 0, n * sizeof *out);
		return 0;
	}
	struct remainder *rem = malloc((n ? n : 1) * sizeof *rem);
	if (!rem)
		return CG_ENOMEM;
	unsigned __int128 given = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned __int128 x = t * w[i];
		out[i] = (int64_t)(x / sum);
		rem[i].rem = x % sum;
		rem[i].index = i;
		given += (unsigned __int128)out[i];
	}
	unsigned __int128 left = t - given;   /* < n */
	if (left > 0) {
		qsort(rem, n, sizeof *rem, by_remainder);
		for (size_t k = 0; k < n && left > 0 && rem[k].rem > 0; k++, left--)
			out[rem[k].index]++;
	}
	free(rem);
	if (neg)
		for (size_t i = 0; i < n; i++)
			out[i] = -out[i];
	return 0;
}

/* ---- matching ------------------------------------------------------------------ */

static int matches(const cg_function *fn, const char *const *patterns, size_t count)
{
	if (fn->flags & CG_FN_TRANSPARENT)
		return 1;
	char *dem = cg_demangle ? cg_demangle(fn->name) : NULL;
	int hit = 0;
	for (size_t i = 0; i < count && !hit; i++)
		hit = fnmatch(patterns[i], fn->name, 0) == 0 ||
		      (dem && fnmatch(patterns[i], dem, 0) == 0);
	free(dem);
	return hit;
}

/* ---- parts with a call tree ------------------------------------------------------ */

static int copy_tree(cg_profile *q, const cg_profile *p, unsigned part,
		     const unsigned char *mark, unsigned char *removed)
{
	size_t nn = cg_profile_node_count(p, part), nev = cg_profile_event_count(p);
	cg_nid *map = malloc(nn * sizeof *map);
	if (!map)
		return CG_ENOMEM;
	int rc = 0;
	map[0] = 0;
	for (size_t n = 1; n < nn && !rc; n++) {
		const cg_node *sn = cg_profile_node(p, part, (cg_nid)n);
		cg_nid dparent = map[sn->parent];
		if (mark[sn->func] && dparent != 0) {
			/* spliced out: the parent context absorbs its cost
			 * and adopts its children */
			map[n] = dparent;
			cg_node *dn = cg_profile_node(q, part, dparent);
			for (size_t e = 0; e < nev; e++)
				dn->self[e] += sn->self[e];
			removed[sn->func] |= 1;
			continue;
		}
		if (mark[sn->func])
			removed[sn->func] |= 2;   /* a root: kept here */
		if ((rc = cg_profile_node_child(q, part, dparent, sn->func, &map[n])))
			break;
		cg_node *dn = cg_profile_node(q, part, map[n]);
		dn->calls += sn->calls;
		dn->redos += sn->redos;
		dn->recursive += sn->recursive;
		for (size_t e = 0; e < nev; e++)
			dn->self[e] += sn->self[e];
	}
	for (size_t n = 1; n < nn && !rc; n++) {
		const cg_node *sn = cg_profile_node(p, part, (cg_nid)n);
		if (sn->recursion_target == CG_NO_NODE || map[n] == map[sn->parent])
			continue;
		cg_node *dn = cg_profile_node(q, part, map[n]);
		cg_nid t = map[sn->recursion_target];
		if (cg_profile_node(q, part, t)->func == dn->func)
			dn->recursion_target = t;
	}
	free(map);
	return rc;
}

/* ---- parts with arcs only ------------------------------------------------------------ */

struct warc {
	cg_fid caller, callee;
	uint64_t count;
	uint32_t line;
	int alive, has_incl;
	cg_cost incl[CG_MAX_EVENTS];
};

struct ilist {
	uint32_t *v;
	size_t n, cap;
};

/* The working call graph of one part: arcs, and per function the arcs
 * into and out of it (dead arcs stay listed, marked not alive). */
struct wpart {
	struct warc *arcs;
	size_t n, cap;
	struct cg_hashmap index;
	struct ilist *in, *out;   /* per function */
};

static int ilist_push(struct ilist *l, uint32_t x)
{
	if (cg_array_grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v, 4))
		return CG_ENOMEM;
	l->v[l->n++] = x;
	return 0;
}

static int warc_add(struct wpart *w, cg_fid caller, cg_fid callee, struct warc **out)
{
	uint64_t key = (uint64_t)caller << 32 | callee;
	uint32_t idx;
	if (cg_hashmap_get(&w->index, key, &idx) && w->arcs[idx].alive) {
		*out = &w->arcs[idx];
		return 0;
	}
	if (cg_array_grow((void **)&w->arcs, &w->cap, w->n + 1, sizeof *w->arcs, 64))
		return CG_ENOMEM;
	if (cg_hashmap_put(&w->index, key, (uint32_t)w->n) ||
	    ilist_push(&w->out[caller], (uint32_t)w->n) || ilist_push(&w->in[callee], (uint32_t)w->n))
		return CG_ENOMEM;
	struct warc *a = &w->arcs[w->n++];
	memset(a, 0, sizeof *a);
	a->caller = caller;
	a->callee = callee;
	a->alive = 1;
	*out = a;
	return 0;
}

/* Removes t from the working graph; 1 when it has no caller to give its
 * cost to (then nothing changes). */
static int remove_function(const cg_profile *p, struct wpart *w, cg_fid t, cg_cost *self,
			   double *exact, size_t nev, int *kept)
{
	size_t ncallers = 0;
	int rc = CG_ENOMEM;
	*kept = 0;
	const struct ilist *in = &w->in[t], *outl = &w->out[t];
	for (size_t j = 0; j < in->n; j++) {
		const struct warc *a = &w->arcs[in->v[j]];
		if (!a->alive || a->callee != t || a->caller == t || !a->count)
			continue;
		if (cg_profile_function(p, a->caller)->flags & CG_FN_SPONTANEOUS) {
			*kept = 1;
			return 0;
		}
		ncallers++;
	}
	if (!ncallers) {
		*kept = 1;
		return 0;
	}
	size_t *callers = malloc(ncallers * sizeof *callers);
	uint64_t *weight = malloc(ncallers * sizeof *weight);
	int64_t *share = malloc(ncallers * sizeof *share);
	if (!callers || !weight || !share)
		goto out;
	size_t k = 0;
	uint64_t wsum = 0;
	for (size_t j = 0; j < in->n; j++) {
		uint32_t i = in->v[j];
		const struct warc *a = &w->arcs[i];
		if (!a->alive || a->callee != t || a->caller == t || !a->count)
			continue;
		callers[k] = i;
		weight[k++] = a->count;
		wsum += a->count;
	}
	for (size_t e = 0; e < nev; e++) {
		if ((rc = split(self[(size_t)t * nev + e], weight, ncallers, share)))
			goto out;
		for (k = 0; k < ncallers; k++)
			self[(size_t)w->arcs[callers[k]].caller * nev + e] += share[k];
		self[(size_t)t * nev + e] = 0;
	}
	if (exact) {
		for (k = 0; k < ncallers; k++)
			exact[w->arcs[callers[k]].caller] += exact[t] * (double)weight[k] / (double)wsum;
		exact[t] = 0;
	}
	/* t's own lists do not grow below: new arcs go from its callers
	 * (never t) to its callees (never t) */
	for (size_t j = 0; j < outl->n; j++) {
		uint32_t i = outl->v[j];
		if (!w->arcs[i].alive || w->arcs[i].caller != t || w->arcs[i].callee == t)
			continue;
		struct warc out_arc = w->arcs[i];
		int64_t *cshare = malloc(ncallers * sizeof *cshare);
		int64_t *ishare = malloc(ncallers * nev * sizeof *ishare + 1);
		if (!cshare || !ishare) {
			free(cshare);
			free(ishare);
			rc = CG_ENOMEM;
			goto out;
		}
		rc = split((int64_t)out_arc.count, weight, ncallers, cshare);
		for (size_t e = 0; e < nev && !rc && out_arc.has_incl; e++)
			rc = split(out_arc.incl[e], weight, ncallers, ishare + e * ncallers);
		for (k = 0; k < ncallers && !rc; k++) {
			cg_fid caller = w->arcs[callers[k]].caller;
			uint32_t line = w->arcs[callers[k]].line;
			struct warc *na;
			if ((rc = warc_add(w, caller, out_arc.callee, &na)))
				break;
			na->count += (uint64_t)cshare[k];
			if (!na->line)
				na->line = line;
			if (out_arc.has_incl) {
				na->has_incl = 1;
				/* a self arc never carries cost: the caller's
				 * own inclusive cost already holds it */
				if (caller != out_arc.callee)
					for (size_t e = 0; e < nev; e++)
						na->incl[e] += ishare[e * ncallers + k];
			}
		}
		free(cshare);
		free(ishare);
		if (rc)
			goto out;
	}
	for (size_t j = 0; j < in->n; j++)
		w->arcs[in->v[j]].alive = 0;
	for (size_t j = 0; j < outl->n; j++)
		w->arcs[outl->v[j]].alive = 0;
	rc = 0;
out:
	free(callers);
	free(weight);
	free(share);
	return rc;
}

static int copy_arcs(cg_profile *q, const cg_profile *p, unsigned part,
		     const unsigned char *mark, unsigned char *removed)
{
	size_t nf = cg_profile_function_count(p), nev = cg_profile_event_count(p);
	struct wpart w = { 0 };
	cg_cost *self = calloc((nf ? nf : 1) * (nev ? nev : 1), sizeof *self);
	double *exact = NULL;
	int has_exact = cg_profile_has_self_exact(p, part);
	int rc = CG_ENOMEM;
	w.in = calloc(nf ? nf : 1, sizeof *w.in);
	w.out = calloc(nf ? nf : 1, sizeof *w.out);
	if (!self || !w.in || !w.out || (has_exact && !(exact = calloc(nf ? nf : 1, sizeof *exact))))
		goto out;
	for (size_t f = 0; f < nf; f++) {
		memcpy(self + f * nev, cg_profile_self(p, part, (cg_fid)f), nev * sizeof *self);
		if (exact)
			exact[f] = cg_profile_self_exact(p, part, (cg_fid)f);
	}
	for (size_t i = 0; i < cg_profile_arc_count(p, part); i++) {
		const cg_arc *a = cg_profile_arc(p, part, i);
		struct warc *wa;
		if ((rc = warc_add(&w, a->caller, a->callee, &wa)))
			goto out;
		wa->count += a->count;
		wa->line = a->line;
		if (a->inclusive) {
			wa->has_incl = 1;
			memcpy(wa->incl, a->inclusive, nev * sizeof *a->inclusive);
		}
	}
	for (size_t f = 0; f < nf; f++) {
		if (!mark[f])
			continue;
		int kept;
		if ((rc = remove_function(p, &w, (cg_fid)f, self, exact, nev, &kept)))
			goto out;
		removed[f] |= kept ? 2 : 1;
	}
	for (size_t f = 0; f < nf && !rc; f++) {
		int any = 0;
		for (size_t e = 0; e < nev; e++)
			any |= self[f * nev + e] != 0;
		if (any)
			rc = cg_profile_add_self(q, part, (cg_fid)f, self + f * nev);
		if (!rc && exact)
			rc = cg_profile_set_self_exact(q, part, (cg_fid)f, exact[f]);
		if (rc || (removed[f] & 1 && !(removed[f] & 2)))
			continue;
		const cg_cost *in = cg_profile_inclusive(p, part, (cg_fid)f);
		if (in)
			rc = cg_profile_set_inclusive(q, part, (cg_fid)f, in);
		uint64_t calls = cg_profile_calls(p, part, (cg_fid)f);
		if (!rc && calls != UINT64_MAX)
			rc = cg_profile_set_calls(q, part, (cg_fid)f, calls);
	}
	for (size_t i = 0; i < w.n && !rc; i++) {
		const struct warc *a = &w.arcs[i];
		if (!a->alive)
			continue;
		size_t idx;
		if ((rc = cg_profile_add_arc(q, part, a->caller, a->callee, a->count,
					     a->has_incl ? a->incl : NULL, &idx)))
			break;
		cg_profile_arc(q, part, idx)->line = a->line;
	}
out:
	for (size_t f = 0; f < nf && w.in && w.out; f++) {
		free(w.in[f].v);
		free(w.out[f].v);
	}
	free(w.in);
	free(w.out);
	free(w.arcs);
	cg_hashmap_release(&w.index);
	free(self);
	free(exact);
	return rc;
}

/* ---- the transform ----------------------------------------------------------------- */

static int copy_skeleton(cg_profile *q, const cg_profile *p)
{
	for (size_t e = 0; e < cg_profile_event_count(p); e++) {
		const cg_event *ev = cg_profile_event(p, e);
		if (cg_profile_add_event(q, ev->name, ev->description, ev->unit_seconds) < 0)
			return CG_ENOMEM;
	}
	for (size_t i = 0; i < cg_profile_meta_count(p); i++) {
		const char *k, *v;
		cg_profile_meta_at(p, i, &k, &v);
		if (cg_profile_set_meta(q, k, v))
			return CG_ENOMEM;
	}
	if (cg_profile_set_gmon_info(q, cg_profile_gmon_info(p)) ||
	    cg_profile_add_run_info(q, cg_profile_run_info(p)))
		return CG_ENOMEM;
	for (size_t f = 0; f < cg_profile_function_count(p); f++)
		if (cg_profile_add_function(q, cg_profile_function(p, (cg_fid)f), NULL))
			return CG_ENOMEM;
	for (unsigned part = 0; part < cg_profile_part_count(p); part++) {
		unsigned idx;
		const char *name = cg_profile_part_name(p, part);
		if (part == 0 ? cg_profile_set_part_name(q, 0, name ? name : "")
			      : cg_profile_add_part(q, name ? name : "", &idx))
			return CG_ENOMEM;
		for (size_t i = 0; i < cg_profile_part_meta_count(p, part); i++) {
			const char *k, *v;
			cg_profile_part_meta_at(p, part, i, &k, &v);
			if (cg_profile_set_part_meta(q, part, k, v))
				return CG_ENOMEM;
		}
	}
	return 0;
}

int cg_transparent_apply(cg_profile **out, const cg_profile *p, const char *const *patterns,
			 size_t count, cg_error *err)
{
	size_t nf = cg_profile_function_count(p);
	cg_profile *q = NULL;
	unsigned char *mark = calloc(nf ? nf : 1, 1), *removed = calloc(nf ? nf : 1, 1);
	int rc = CG_ENOMEM, trees = 0;
	*out = NULL;
	if (!mark || !removed || cg_profile_new(&q) || copy_skeleton(q, p))
		goto out;
	for (size_t f = 0; f < nf; f++)
		mark[f] = (unsigned char)matches(cg_profile_function(p, (cg_fid)f), patterns, count);
	for (unsigned part = 0; part < cg_profile_part_count(p); part++) {
		if (cg_profile_node_count(p, part) > 1) {
			trees = 1;
			rc = copy_tree(q, p, part, mark, removed);
		} else {
			rc = copy_arcs(q, p, part, mark, removed);
		}
		if (rc)
			goto out;
	}
	if (trees && (rc = cg_profile_derive_from_tree(q, err)))
		goto out;
	/* kept functions keep their positions; cost taken over from a
	 * removed callee goes to the caller's own line */
	if ((rc = cg_pos_carry(q, p)))
		goto out;
	for (size_t f = 0; f < nf; f++) {
		cg_function *fn = cg_profile_function(q, (cg_fid)f);
		if (removed[f] == 1 || (mark[f] && !removed[f]))
			fn->flags |= CG_FN_TRANSPARENT;
		else
			fn->flags &= ~(uint32_t)CG_FN_TRANSPARENT;
	}
	*out = q;
	q = NULL;
	rc = 0;
out:
	cg_profile_free(q);
	free(mark);
	free(removed);
	if (rc && !(err && err->code == rc))
		return cg_error_set(err, rc, "transparent: %s", cg_strerror(rc));
	return rc;
}
