/*
 * fprof_model.c — fprof's table into the model (from a replayed trace)
 * and back out of any profile (for the analysis writer).
 */
#include <stdlib.h>
#include <string.h>

#include "fprof_model.h"
#include "hashmap.h"

int cg_fprof_model_function(cg_profile *p, const char *name, cg_fid *out)
{
	int rc = cg_profile_intern_function(p, name, NULL, NULL, out);
	if (rc)
		return rc;
	uint32_t flags = 0;
	if (strcmp(name, "undefined") == 0)
		flags = CG_FN_SYNTHETIC | CG_FN_SPONTANEOUS;
	else if (strcmp(name, "suspend") == 0 || strcmp(name, "garbage_collect") == 0)
		flags = CG_FN_SYNTHETIC;
	if (flags)
		cg_profile_function(p, *out)->flags |= flags;
	return 0;
}

void cg_fprof_rows_add(fprof_buf *b, const char *caller, const char *func, uint64_t cnt, int64_t acc,
		    int64_t own)
{
	cg_fprof_buf_adds(b, caller);
	cg_fprof_buf_addc(b, '\t');
	cg_fprof_buf_adds(b, func);
	cg_fprof_buf_addf(b, "\t%llu\t%lld\t%lld\n", (unsigned long long)cnt, (long long)acc,
		       (long long)own);
}

int cg_fprof_rows_store(cg_profile *p, unsigned part, const char *rows)
{
	char key[64];
	snprintf(key, sizeof key, "fprof.part.%u.rows", part);
	return cg_profile_set_meta(p, key, rows);
}

static int model_fid(fp_state *st, cg_profile *p, uint32_t fid, cg_fid *out)
{
	fp_func *f = &st->funcs[fid];
	if (f->model_fid == FP_NONE) {
		cg_fid m;
		int rc = cg_fprof_model_function(p, f->name, &m);
		if (rc)
			return rc;
		f->model_fid = m;
	}
	*out = f->model_fid;
	return 0;
}

static int set_meta_part(cg_profile *p, unsigned part, const char *what, const char *value)
{
	char key[96];
	snprintf(key, sizeof key, "fprof.part.%u.%s", part, what);
	return cg_profile_set_meta(p, key, value);
}

/* Process record metadata: Erlang term text, printed flat. */
static int store_record(fp_state *st, cg_profile *p, unsigned part, const fp_proc *pr)
{
	if (!pr->has_record)
		return 0;
	fprof_buf b = { 0 };
	int rc = set_meta_part(p, part, "spawned_by", st->procs[pr->parent].pid);
	if (!rc && pr->spawned_as) {
		cg_fprof_term_write(&b, pr->spawned_as);
		rc = b.oom ? CG_ENOMEM : set_meta_part(p, part, "spawned_as", cg_fprof_buf_cstr(&b));
	}
	if (!rc && pr->init_n > 0) {
		b.len = 0;
		cg_fprof_buf_addc(&b, '[');
		for (int i = 0; i < pr->init_n; i++) {
			const fp_func *f = &st->funcs[pr->init_log[i]];
			if (i)
				cg_fprof_buf_addc(&b, ',');
			if (!f->module) {
				cg_fprof_buf_adds(&b, f->name);
				continue;
			}
			cg_fprof_buf_addc(&b, '{');
			cg_fprof_atom_write(&b, f->module, f->mlen);
			cg_fprof_buf_addc(&b, ',');
			cg_fprof_atom_write(&b, f->function, f->flen);
			cg_fprof_buf_addf(&b, ",%u}", f->arity);
		}
		cg_fprof_buf_addc(&b, ']');
		rc = b.oom ? CG_ENOMEM : set_meta_part(p, part, "initial_calls", cg_fprof_buf_cstr(&b));
	}
	cg_fprof_buf_release(&b);
	return rc;
}

int cg_fp_to_model(fp_state *st, cg_profile *p, int suspend_self, cg_error *err)
{
	int rc = 0;
	int ev = cg_profile_find_event(p, "us");
	if (ev < 0)
		ev = cg_profile_add_event(p, "us", "Time in microseconds (fprof OWN/ACC)", 1e-6);
	if (ev < 0)
		return cg_error_set(err, ev, "fprof: cannot add the event \"us\" to a profile that already has costs");
	size_t nev = cg_profile_event_count(p);
	int fresh = cg_profile_function_count(p) == 0 && cg_profile_part_count(p) == 1;

	unsigned *part_of = malloc((st->nprocs + 1) * sizeof *part_of);
	size_t *order = malloc((st->nrows + 1) * sizeof *order);
	size_t *start = calloc(st->nprocs + 2, sizeof *start);
	int64_t *own = calloc(st->nfuncs + 1, sizeof *own), *acc = calloc(st->nfuncs + 1, sizeof *acc);
	uint64_t *cnt = calloc(st->nfuncs + 1, sizeof *cnt);
	unsigned char *seen = calloc(st->nfuncs + 1, 1);
	uint32_t *touched = malloc((st->nfuncs + 1) * sizeof *touched);
	cg_nid *nmap = malloc((st->nnodes + 1) * sizeof *nmap);
	if (!part_of || !order || !start || !own || !acc || !cnt || !seen || !touched || !nmap) {
		rc = CG_ENOMEM;
		goto out;
	}
	/* parts, in order of first appearance */
	int used0 = 0;
	for (size_t i = 0; i < st->nprocs; i++) {
		part_of[i] = UINT32_MAX;
		if (!st->procs[i].has_rows)
			continue;
		unsigned part;
		if (fresh && !used0) {
			part = 0;
			used0 = 1;
			rc = cg_profile_set_part_name(p, 0, st->procs[i].pid);
		} else {
			rc = cg_profile_add_part(p, st->procs[i].pid, &part);
		}
		if (rc || (rc = store_record(st, p, part, &st->procs[i])))
			goto out;
		part_of[i] = part;
	}
	/* rows grouped by process, creation order kept */
	for (size_t r = 0; r < st->nrows; r++)
		start[st->rows[r].proc + 1]++;
	for (size_t i = 1; i <= st->nprocs; i++)
		start[i] += start[i - 1];
	for (size_t r = 0; r < st->nrows; r++)
		order[start[st->rows[r].proc]++] = r;
	size_t r0 = 0;
	fprof_buf rows = { 0 };
	cg_cost vec[CG_MAX_EVENTS];
	memset(vec, 0, sizeof vec);
	for (size_t i = 0; i < st->nprocs; i++) {
		size_t ntouched = 0;
		for (; r0 < st->nrows && st->rows[order[r0]].proc == i; r0++) {
			const fp_row *row = &st->rows[order[r0]];
			cg_fid c, f;
			if ((rc = model_fid(st, p, row->caller, &c)) || (rc = model_fid(st, p, row->func, &f)))
				goto out;
			vec[ev] = row->acc;
			if ((rc = cg_profile_add_arc(p, part_of[i], c, f, row->cnt, vec, NULL)))
				goto out;
			cg_fprof_rows_add(&rows, st->funcs[row->caller].name, st->funcs[row->func].name,
				       row->cnt, row->acc, row->own);
			if (!seen[row->func]) {
				seen[row->func] = 1;
				touched[ntouched++] = row->func;
			}
			fprof_add_sat(&own[row->func], row->own);
			fprof_add_sat(&acc[row->func], row->acc);
			cnt[row->func] += row->cnt;
		}
		if (rows.len) {
			if (rows.oom || (rc = cg_fprof_rows_store(p, part_of[i], cg_fprof_buf_cstr(&rows))))
				goto out;
			rows.len = 0;
		}
		for (size_t k = 0; k < ntouched; k++) {
			uint32_t fid = touched[k];
			cg_fid f = st->funcs[fid].model_fid;
			vec[ev] = own[fid];
			if (suspend_self && fid == FP_SUSPEND)
				fprof_add_sat(&vec[ev], acc[fid]);
			if ((rc = cg_profile_add_self(p, part_of[i], f, vec)))
				goto out;
			vec[ev] = acc[fid];
			if ((rc = cg_profile_set_inclusive(p, part_of[i], f, vec)) ||
			    (rc = cg_profile_set_calls(p, part_of[i], f, cnt[fid])))
				goto out;
			own[fid] = acc[fid] = 0;
			cnt[fid] = 0;
			seen[fid] = 0;
		}
	}
	/* the calling-context trees */
	for (size_t n = 0; n < st->nnodes; n++) {
		const fp_node *nd = &st->nodes[n];
		unsigned part = part_of[nd->proc];
		if (part == UINT32_MAX)
			continue;
		if (nd->parent == FP_NONE) {
			nmap[n] = 0;
			continue;
		}
		cg_fid f;
		if ((rc = model_fid(st, p, nd->fid, &f)) ||
		    (rc = cg_profile_node_add(p, part, nmap[nd->parent], f, &nmap[n])))
			goto out;
		cg_node *mn = cg_profile_node(p, part, nmap[n]);
		mn->calls = nd->calls;
		mn->self[ev] = nd->self;
		if (suspend_self && nd->fid == FP_SUSPEND)
			fprof_add_sat(&mn->self[ev], nd->wait);
	}
	(void)nev;
	char num[32];
	if (st->have_first) {
		snprintf(num, sizeof num, "%lld", (long long)st->first_ts);
		if ((rc = cg_profile_set_meta(p, "fprof.first_ts", num)))
			goto out;
		snprintf(num, sizeof num, "%lld", (long long)st->last_ts);
		if ((rc = cg_profile_set_meta(p, "fprof.last_ts", num)))
			goto out;
	}
	snprintf(num, sizeof num, "%llu", (unsigned long long)st->handled);
	rc = cg_profile_set_meta(p, "fprof.messages", num);
out:
	cg_fprof_buf_release(&rows);
	free(part_of);
	free(order);
	free(start);
	free(own);
	free(acc);
	free(cnt);
	free(seen);
	free(touched);
	free(nmap);
	if (rc)
		return cg_error_set(err, rc, "fprof: %s while building the profile", cg_strerror(rc));
	return 0;
}

/* ---- back out: fprof's table from a profile ------------------------------------------- */

static cg_fid find_undefined(const cg_profile *p)
{
	size_t n = cg_profile_function_count(p);
	for (cg_fid f = 0; f < n; f++)
		if (strcmp(cg_profile_function(p, f)->name, "undefined") == 0)
			return f;
	return CG_NO_FUNC;
}

static uint64_t name_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

/* Function id by name; CG_NO_FUNC when absent.  `names` maps name hashes
 * to fid + 1 (collisions fall back to a scan). */
static cg_fid fid_by_name(const cg_profile *p, const struct cg_hashmap *names, const char *s, size_t n)
{
	uint32_t v;
	if (cg_hashmap_get(names, name_hash(s, n), &v)) {
		const char *nm = cg_profile_function(p, v)->name;
		if (strlen(nm) == n && memcmp(nm, s, n) == 0)
			return v;
	}
	size_t nf = cg_profile_function_count(p);
	for (cg_fid f = 0; f < nf; f++) {
		const char *nm = cg_profile_function(p, f)->name;
		if (strlen(nm) == n && memcmp(nm, s, n) == 0)
			return f;
	}
	return CG_NO_FUNC;
}

/* OWN per row from "fprof.part.N.rows" (caller, function, CNT, ACC, OWN
 * per line), trusted only when it describes exactly the part's arcs: a
 * profile changed since (merged, transformed) falls back to the tree.
 * Rows 0..narcs-1 of `out` are the part's arcs in order. */
static int rows_from_meta(const cg_profile *p, unsigned part, fprof_part_rows *out,
			  const struct cg_hashmap *names)
{
	char key[64];
	snprintf(key, sizeof key, "fprof.part.%u.rows", part);
	const char *m = cg_profile_meta(p, key);
	if (!m)
		return 0;
	size_t n = 0;
	int64_t *own = calloc(out->nrows + 1, sizeof *own);
	unsigned char *seen = calloc(out->nrows + 1, 1);
	int ok = own && seen;
	while (ok && *m) {
		const char *t1 = strchr(m, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		if (!t2) {
			ok = 0;
			break;
		}
		char *e;
		unsigned long long cnt = strtoull(t2 + 1, &e, 10);
		long long acc = strtoll(e, &e, 10), o = strtoll(e, &e, 10);
		cg_fid c = fid_by_name(p, names, m, (size_t)(t1 - m));
		cg_fid f = fid_by_name(p, names, t1 + 1, (size_t)(t2 - t1 - 1));
		long r = c == CG_NO_FUNC || f == CG_NO_FUNC ? -1 : cg_profile_find_arc(p, part, c, f);
		if (*e != '\n' || r < 0 || (size_t)r >= out->nrows || seen[r] ||
		    out->rows[r].cnt != cnt || out->rows[r].acc != acc) {
			ok = 0;
			break;
		}
		seen[r] = 1;
		own[r] = o;
		n++;
		m = e + 1;
	}
	ok = ok && n == out->nrows;
	if (ok)
		for (size_t r = 0; r < out->nrows; r++)
			out->rows[r].own = own[r];
	free(own);
	free(seen);
	return ok;
}

static int part_rows(const cg_profile *p, unsigned part, int ev, cg_fid undef, fprof_part_rows *out,
		     const struct cg_hashmap *names)
{
	size_t narcs = cg_profile_arc_count(p, part), nfun = cg_profile_function_count(p);
	size_t cap = narcs + nfun + 1;
	out->part = part;
	out->rows = calloc(cap, sizeof *out->rows);
	struct cg_hashmap idx = { 0 };
	if (!out->rows)
		return CG_ENOMEM;
	int rc = 0;
	for (size_t a = 0; a < narcs; a++) {
		const cg_arc *arc = cg_profile_arc(p, part, a);
		fprof_row *r = &out->rows[out->nrows];
		r->caller = arc->caller;
		r->func = arc->callee;
		r->cnt = arc->count;
		r->acc = arc->inclusive ? arc->inclusive[ev] : 0;
		uint64_t key = (uint64_t)arc->caller << 32 | arc->callee;
		if ((rc = cg_hashmap_put(&idx, key, (uint32_t)out->nrows)))
			goto done;
		out->nrows++;
	}
	size_t nn = cg_profile_node_count(p, part);
	if (rows_from_meta(p, part, out, names)) {
		/* OWN per row as fprof computed it */
	} else if (nn > 1) {
		/* OWN per (caller, function): the tree's self costs by parent */
		for (cg_nid n = 1; n < nn; n++) {
			const cg_node *nd = cg_profile_node(p, part, n);
			cg_fid parent = nd->parent == 0 || nd->parent == CG_NO_NODE
					? undef : cg_profile_node(p, part, nd->parent)->func;
			uint64_t key = (uint64_t)parent << 32 | nd->func;
			uint32_t i;
			if (!cg_hashmap_get(&idx, key, &i)) {
				if (nd->self[ev] == 0)
					continue;
				i = (uint32_t)out->nrows++;
				if (out->nrows > cap) {
					cap *= 2;
					fprof_row *nr = realloc(out->rows, cap * sizeof *nr);
					if (!nr) {
						rc = CG_ENOMEM;
						goto done;
					}
					out->rows = nr;
				}
				memset(&out->rows[i], 0, sizeof out->rows[i]);
				out->rows[i].caller = parent;
				out->rows[i].func = nd->func;
				if ((rc = cg_hashmap_put(&idx, key, i)))
					goto done;
			}
			fprof_add_sat(&out->rows[i].own, nd->self[ev]);
		}
	} else {
		/* no tree: share each function's self cost out by call counts.
		 * Per-function totals first, so that this is O(arcs + functions)
		 * (a scan of every row per function took 38 s at 40k functions). */
		size_t narc_rows = out->nrows;
		uint64_t *total = calloc(nfun ? nfun : 1, sizeof *total);
		size_t *first = malloc((nfun ? nfun : 1) * sizeof *first);
		cg_cost *given = calloc(nfun ? nfun : 1, sizeof *given);
		if (!total || !first || !given) {
			free(total);
			free(first);
			free(given);
			rc = CG_ENOMEM;
			goto done;
		}
		for (cg_fid f = 0; f < nfun; f++)
			first[f] = SIZE_MAX;
		for (size_t r = 0; r < narc_rows; r++) {
			cg_fid f = out->rows[r].func;
			total[f] += out->rows[r].cnt;
			if (first[f] == SIZE_MAX)
				first[f] = r;
		}
		for (cg_fid f = 0; f < nfun; f++) {
			if (first[f] != SIZE_MAX)
				continue;
			/* known only by its sums (e.g. a no_callers analysis) */
			cg_cost self = cg_profile_self(p, part, f)[ev];
			const cg_cost *inc = cg_profile_inclusive(p, part, f);
			uint64_t calls = cg_profile_calls(p, part, f);
			if (calls == UINT64_MAX)
				calls = 0;
			if (self == 0 && calls == 0 && !(inc && inc[ev]))
				continue;
			fprof_row *r = &out->rows[out->nrows++];
			memset(r, 0, sizeof *r);
			r->caller = undef;
			r->func = f;
			r->cnt = calls;
			r->acc = inc ? inc[ev] : self;
			r->own = self;
		}
		for (size_t r = 0; r < narc_rows; r++) {
			cg_fid f = out->rows[r].func;
			cg_cost self = cg_profile_self(p, part, f)[ev];
			if (self == 0 || !total[f])
				continue;
			double d = (double)self * (double)out->rows[r].cnt / (double)total[f];
			cg_cost share = d >= 9e18 ? INT64_MAX : d <= -9e18 ? INT64_MIN : (cg_cost)d;
			out->rows[r].own = share;
			fprof_add_sat(&given[f], -share);
		}
		/* given holds minus the shares: the first row takes the rest */
		for (cg_fid f = 0; f < nfun; f++) {
			cg_cost self = cg_profile_self(p, part, f)[ev];
			if (first[f] == SIZE_MAX || self == 0)
				continue;
			fprof_add_sat(&given[f], self);
			fprof_add_sat(&out->rows[first[f]].own, given[f]);
		}
		free(total);
		free(first);
		free(given);
	}
	for (size_t r = 0; r < out->nrows; r++) {
		out->cnt += out->rows[r].cnt;
		fprof_add_sat(&out->own, out->rows[r].own);
	}
done:
	cg_hashmap_release(&idx);
	return rc;
}

int cg_fprof_rows_from_profile(const cg_profile *p, fprof_part_rows **out, size_t *nparts,
			    cg_fid *undef, cg_error *err)
{
	int ev = cg_profile_find_event(p, "us");
	if (ev < 0)
		ev = 0;
	if (cg_profile_event_count(p) == 0)
		return cg_error_set(err, CG_EFORMAT, "fprof: the profile has no events");
	*undef = find_undefined(p);
	size_t n = cg_profile_part_count(p);
	fprof_part_rows *parts = calloc(n ? n : 1, sizeof *parts);
	if (!parts)
		return cg_error_set(err, CG_ENOMEM, "fprof: out of memory");
	struct cg_hashmap names = { 0 };
	size_t nf = cg_profile_function_count(p);
	int rc = 0;
	for (cg_fid f = 0; f < nf && !rc; f++) {
		const char *nm = cg_profile_function(p, f)->name;
		rc = cg_hashmap_put(&names, name_hash(nm, strlen(nm)), f);
	}
	for (unsigned i = 0; i < n && !rc; i++)
		rc = part_rows(p, i, ev, *undef, &parts[i], &names);
	cg_hashmap_release(&names);
	if (rc) {
		cg_fprof_rows_release(parts, n);
		return cg_error_set(err, rc, "fprof: out of memory");
	}
	*out = parts;
	*nparts = n;
	return 0;
}

void cg_fprof_rows_release(fprof_part_rows *parts, size_t nparts)
{
	if (!parts)
		return;
	for (size_t i = 0; i < nparts; i++)
		free(parts[i].rows);
	free(parts);
}
