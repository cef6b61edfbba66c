/*
 * model_merge.c — cg_profile_merge_into: adding one profile to another
 * (several inputs of one kind given to cgconvert or cgdiff).
 */
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "hashmap.h"
#include "model_merge.h"
#include "checked.h"
#include "positions.h"
#include "jumps.h"

struct merge {
	cg_profile *dst;
	const cg_profile *src;
	int emap[CG_MAX_EVENTS];   /* src event -> dst event */
	size_t nev_src, nev_dst;
	cg_fid *fmap;
	struct cg_hashmap parts;   /* hash of a dst part's name -> part */
};

static void map_costs(const struct merge *m, const cg_cost *in, cg_cost *out)
{
	memset(out, 0, CG_MAX_EVENTS * sizeof *out);
	for (size_t e = 0; e < m->nev_src; e++)
		out[m->emap[e]] = in[e];
}

static int map_functions(struct merge *m)
{
	size_t nf = cg_profile_function_count(m->src);
	m->fmap = malloc((nf ? nf : 1) * sizeof *m->fmap);
	if (!m->fmap)
		return CG_ENOMEM;
	for (size_t f = 0; f < nf; f++) {
		const cg_function *sf = cg_profile_function(m->src, (cg_fid)f);
		size_t before = cg_profile_function_count(m->dst);
		int rc = cg_profile_intern_function(m->dst, sf->name, sf->object, sf->file,
						    &m->fmap[f]);
		if (rc)
			return rc;
		cg_function *df = cg_profile_function(m->dst, m->fmap[f]);
		if (m->fmap[f] >= before) {
			df->line = sf->line;
			df->flags = sf->flags;
			df->addr = sf->addr;
			df->end = sf->end;
		} else if (!df->line) {
			df->line = sf->line;
		}
	}
	return 0;
}

static uint64_t part_hash(const char *name)
{
	return cg_hash_bytes(CG_HASH_INIT, name, strlen(name));
}

static int index_parts(struct merge *m)
{
	for (unsigned i = 0; i < cg_profile_part_count(m->dst); i++) {
		const char *n = cg_profile_part_name(m->dst, i);
		if (cg_hashmap_add(&m->parts, part_hash(n ? n : ""), i))
			return CG_ENOMEM;
	}
	return 0;
}

/* The dst part of that name, added if absent (hashed: an Erlang trace can
 * have tens of thousands of processes). */
static int find_part(struct merge *m, const char *name, unsigned *out)
{
	if (!name)
		name = "";
	uint64_t h = part_hash(name);
	size_t cursor = 0;
	uint32_t i;
	while (cg_hashmap_next(&m->parts, h, &cursor, &i)) {
		const char *n = cg_profile_part_name(m->dst, i);
		if (strcmp(n ? n : "", name) == 0) {
			*out = i;
			return 0;
		}
	}
	int rc = cg_profile_add_part(m->dst, name, out);
	return rc ? rc : cg_hashmap_add(&m->parts, h, *out);
}

static int merge_exact(struct merge *m, unsigned sp, unsigned dp)
{
	if (!cg_profile_has_self_exact(m->src, sp) && !cg_profile_has_self_exact(m->dst, dp))
		return 0;
	size_t ndst = cg_profile_function_count(m->dst), nsrc = cg_profile_function_count(m->src);
	double *v = malloc((ndst ? ndst : 1) * sizeof *v);
	if (!v)
		return CG_ENOMEM;
	/* exact values before the self costs were added: self_exact falls
	 * back to the integer self cost */
	for (size_t f = 0; f < ndst; f++)
		v[f] = cg_profile_self_exact(m->dst, dp, (cg_fid)f);
	int rc = 0;
	for (size_t f = 0; f < nsrc; f++)
		v[m->fmap[f]] += cg_profile_self_exact(m->src, sp, (cg_fid)f);
	for (size_t f = 0; f < ndst && !rc; f++)
		rc = cg_profile_set_self_exact(m->dst, dp, (cg_fid)f, v[f]);
	free(v);
	return rc;
}

static int merge_tree(struct merge *m, unsigned sp, unsigned dp)
{
	size_t nn = cg_profile_node_count(m->src, sp);
	if (nn == 0)
		return 0;
	cg_nid *map = malloc(nn * sizeof *map);
	if (!map)
		return CG_ENOMEM;
	cg_cost c[CG_MAX_EVENTS];
	int rc = 0;
	map[0] = 0;
	for (size_t n = 1; n < nn && !rc; n++) {
		const cg_node *sn = cg_profile_node(m->src, sp, (cg_nid)n);
		rc = cg_profile_node_child(m->dst, dp, map[sn->parent], m->fmap[sn->func], &map[n]);
		if (rc)
			break;
		cg_node *dn = cg_profile_node(m->dst, dp, map[n]);
		map_costs(m, sn->self, c);
		if (cg_checked_add_u64(&dn->calls, sn->calls) ||
		    cg_checked_add_u64(&dn->redos, sn->redos) ||
		    cg_checked_add_u64(&dn->recursive, sn->recursive) ||
		    cg_checked_add_costs(dn->self, c, m->nev_dst))
			rc = CG_EFORMAT;
	}
	for (size_t n = 1; n < nn && !rc; n++) {
		const cg_node *sn = cg_profile_node(m->src, sp, (cg_nid)n);
		if (sn->recursion_target != CG_NO_NODE)
			cg_profile_node(m->dst, dp, map[n])->recursion_target =
				map[sn->recursion_target];
	}
	free(map);
	return rc;
}

/* like the profile's metadata: the first profile's values win */
static int merge_part_meta(struct merge *m, unsigned sp, unsigned dp)
{
	int rc;
	for (size_t i = 0; i < cg_profile_part_meta_count(m->src, sp); i++) {
		const char *k, *v;
		cg_profile_part_meta_at(m->src, sp, i, &k, &v);
		if (!cg_profile_part_meta(m->dst, dp, k) &&
		    (rc = cg_profile_set_part_meta(m->dst, dp, k, v)))
			return rc;
	}
	return 0;
}

static int merge_part(struct merge *m, unsigned sp, unsigned dp)
{
	size_t nf = cg_profile_function_count(m->src);
	cg_cost c[CG_MAX_EVENTS], sum[CG_MAX_EVENTS];
	int rc;
	if ((rc = merge_exact(m, sp, dp)))
		return rc;
	/* merge_exact already set the exact values; keep them across the
	 * self-cost additions below */
	for (size_t f = 0; f < nf; f++) {
		cg_fid d = m->fmap[f];
		map_costs(m, cg_profile_self(m->src, sp, (cg_fid)f), c);
		if ((rc = cg_profile_add_self(m->dst, dp, d, c)))
			return rc;
		const cg_cost *in = cg_profile_inclusive(m->src, sp, (cg_fid)f);
		if (in) {
			const cg_cost *old = cg_profile_inclusive(m->dst, dp, d);
			map_costs(m, in, c);
			if (old ? cg_checked_sum_costs(sum, c, old, m->nev_dst)
				: (memcpy(sum, c, m->nev_dst * sizeof *sum), 0))
				return CG_EFORMAT;
			if ((rc = cg_profile_set_inclusive(m->dst, dp, d, sum)))
				return rc;
		}
		uint64_t calls = cg_profile_calls(m->src, sp, (cg_fid)f);
		if (calls != UINT64_MAX) {
			uint64_t old = cg_profile_calls(m->dst, dp, d);
			/* UINT64_MAX means "not known": a sum reaching it is refused too */
			if (old != UINT64_MAX && (cg_checked_add_u64(&calls, old) || calls == UINT64_MAX))
				return CG_EFORMAT;
			if ((rc = cg_profile_set_calls(m->dst, dp, d, calls)))
				return rc;
		}
	}
	for (size_t i = 0; i < cg_profile_arc_count(m->src, sp); i++) {
		const cg_arc *a = cg_profile_arc(m->src, sp, i);
		size_t idx;
		if (a->inclusive)
			map_costs(m, a->inclusive, c);
		if ((rc = cg_profile_add_arc(m->dst, dp, m->fmap[a->caller], m->fmap[a->callee],
					     a->count, a->inclusive ? c : NULL, &idx)))
			return rc;
		if (a->self) {
			map_costs(m, a->self, c);
			if ((rc = cg_profile_add_arc_self(m->dst, dp, idx, c)))
				return rc;
		}
		cg_arc *da = cg_profile_arc(m->dst, dp, idx);
		if (!da->line)
			da->line = a->line;
	}
	/* after the self costs and arcs, which the positions must add up to */
	if ((rc = cg_pos_merge_part(m->dst, dp, m->src, sp, m->fmap, m->emap)))
		return rc;
	if ((rc = cg_jump_merge_part(m->dst, dp, m->src, sp, m->fmap)))
		return rc;
	return merge_tree(m, sp, dp);
}

int cg_profile_merge_into(cg_profile *dst, const cg_profile *src, cg_error *err)
{
	struct merge m = { .dst = dst, .src = src };
	m.nev_src = cg_profile_event_count(src);
	m.nev_dst = cg_profile_event_count(dst);
	if (m.nev_dst == 0 && cg_profile_function_count(dst) == 0) {
		for (size_t e = 0; e < m.nev_src; e++) {
			const cg_event *ev = cg_profile_event(src, e);
			if (cg_profile_add_event(dst, ev->name, ev->description, ev->unit_seconds) < 0)
				return cg_error_set(err, CG_ENOMEM, "out of memory");
		}
		m.nev_dst = m.nev_src;
	}
	for (size_t e = 0; e < m.nev_src; e++) {
		int d = cg_profile_find_event(dst, cg_profile_event(src, e)->name);
		if (d < 0)
			return cg_error_set(err, CG_EMISMATCH,
					    "cannot merge: event '%s' is not in the first profile",
					    cg_profile_event(src, e)->name);
		m.emap[e] = d;
	}
	int rc = map_functions(&m);
	if (!rc)
		rc = index_parts(&m);
	for (unsigned sp = 0; !rc && sp < cg_profile_part_count(src); sp++) {
		unsigned dp;
		rc = find_part(&m, cg_profile_part_name(src, sp), &dp);
		if (!rc)
			rc = merge_part_meta(&m, sp, dp);
		if (!rc)
			rc = merge_part(&m, sp, dp);
	}
	for (size_t i = 0; !rc && i < cg_profile_meta_count(src); i++) {
		const char *k, *v;
		cg_profile_meta_at(src, i, &k, &v);
		if (!cg_profile_meta(dst, k))
			rc = cg_profile_set_meta(dst, k, v);
	}
	/* like metadata, the first profile's facts win (gmon files are summed
	 * by their reader, not here) */
	if (!rc && !cg_profile_gmon_info(dst) && cg_profile_gmon_info(src))
		rc = cg_profile_set_gmon_info(dst, cg_profile_gmon_info(src));
	if (!rc)
		rc = cg_profile_add_run_info(dst, cg_profile_run_info(src));
	free(m.fmap);
	cg_hashmap_release(&m.parts);
	if (rc == CG_EFORMAT)
		return cg_error_set(err, rc, "cannot merge profiles: costs or call counts sum past "
				    "2^63-1; refusing totals that cannot be exact");
	if (rc)
		return cg_error_set(err, rc, "cannot merge profiles: %s", cg_strerror(rc));
	return 0;
}

int cg_profile_merge_part_same(cg_profile *dst, unsigned dp, const cg_profile *src, unsigned sp)
{
	struct merge m = { .dst = dst, .src = src };
	m.nev_src = m.nev_dst = cg_profile_event_count(src);
	for (size_t e = 0; e < m.nev_src; e++)
		m.emap[e] = (int)e;
	size_t nf = cg_profile_function_count(src);
	m.fmap = malloc((nf ? nf : 1) * sizeof *m.fmap);
	if (!m.fmap)
		return CG_ENOMEM;
	for (size_t f = 0; f < nf; f++)
		m.fmap[f] = (cg_fid)f;
	int rc = merge_part(&m, sp, dp);
	free(m.fmap);
	return rc;
}
