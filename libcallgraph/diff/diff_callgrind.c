/*
 * diff_callgrind.c — the diff as a Callgrind file for KCachegrind.
 *
 * Callgrind costs cannot be negative, so every event E of the diff becomes
 * two events: E_up = max(new - base, 0) and E_down = max(base - new, 0).
 * Self costs are per function; each call line carries the arc's inclusive
 * delta split the same way when the inputs know arc inclusive costs (else
 * zeros), and calls= gives the new profile's call count (the base count
 * for an arc that disappeared).  Only scope 0 (all parts) is written.
 */
#include <stdlib.h>
#include <string.h>

#include "diff_internal.h"

struct names {
	unsigned char *fn_done;
	/* Compressed ids of files and objects, keyed by the string's address:
	 * equal strings of the two profiles may get two ids, which readers
	 * accept. */
	struct cg_hashmap ids;
	uint32_t next_id;
	int oom;
};

static void put_string(FILE *out, const char *key, struct names *nm, const char *s)
{
	uint32_t id;
	if (cg_hashmap_get(&nm->ids, (uint64_t)(uintptr_t)s, &id)) {
		fprintf(out, "%s=(%u)\n", key, id);
		return;
	}
	id = ++nm->next_id;
	if (cg_hashmap_put(&nm->ids, (uint64_t)(uintptr_t)s, id))
		nm->oom = 1;
	fprintf(out, "%s=(%u) %s\n", key, id, s);
}

static void put_file(FILE *out, const char *key, struct names *nm, const char *file)
{
	put_string(out, key, nm, file ? file : "???");
}

static void put_object(FILE *out, const char *key, struct names *nm, const char *obj)
{
	if (obj)
		put_string(out, key, nm, obj);
}

static void put_fn(FILE *out, const char *key, struct names *nm, const cg_diff *d, size_t i)
{
	if (nm->fn_done[i]) {
		fprintf(out, "%s=(%zu)\n", key, i + 1);
		return;
	}
	nm->fn_done[i] = 1;
	fprintf(out, "%s=(%zu) %s\n", key, i + 1, d->funcs[i].name);
}

static void put_split(FILE *out, const cg_diff_value *v)
{
	int64_t up = v->delta > 0 ? v->delta : 0, down = v->delta < 0 ? -v->delta : 0;
	fprintf(out, " %lld %lld", (long long)up, (long long)down);
}

static int cmp_arc_caller(const void *a, const void *b, void *ctx)
{
	const cg_diff *d = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	if (d->arcs[x].caller != d->arcs[y].caller)
		return d->arcs[x].caller < d->arcs[y].caller ? -1 : 1;
	return (x > y) - (x < y);
}

static int function_present(const cg_diff *d, size_t i)
{
	cg_diff_value v;
	for (size_t e = 0; e < d->nev; e++) {
		cg_diff_value_get(d, 0, CG_DIFF_SELF, i, e, &v);
		if (v.base || v.new_value)
			return 1;
	}
	cg_diff_value_get(d, 0, CG_DIFF_CALLS, i, 0, &v);
	return v.base || v.new_value;
}

int cg_diff_write_callgrind(const cg_diff *d, FILE *out)
{
	struct names nm = { 0 };
	size_t na = d->narcs, nf = d->nfuncs;
	size_t *order = malloc((na ? na : 1) * sizeof *order);
	nm.fn_done = calloc(nf ? nf : 1, 1);
	if (!order || !nm.fn_done) {
		free(order);
		free(nm.fn_done);
		return CG_ENOMEM;
	}
	for (size_t i = 0; i < na; i++)
		order[i] = i;
	qsort_r(order, na, sizeof *order, cmp_arc_caller, (void *)d);

	fprintf(out, "# differential profile written by cgdiff: new minus base,\n"
		     "# split into E_up (increase) and E_down (decrease) per event E.\n"
		     "version: 1\ncreator: cgdiff\npositions: line\nevents:");
	for (size_t e = 0; e < d->nev; e++)
		fprintf(out, " %s_up %s_down", d->events[e]->name, d->events[e]->name);
	fprintf(out, "\n");
	/* (callgrind_annotate does not take "event:" description lines) */
	for (size_t e = 0; e < d->nev; e++)
		fprintf(out, "# %s_up: %s increase; %s_down: %s decrease\n",
			d->events[e]->name, d->events[e]->description,
			d->events[e]->name, d->events[e]->description);
	fprintf(out, "summary:");
	for (size_t e = 0; e < d->nev; e++) {
		int64_t up = 0, down = 0;
		for (size_t i = 0; i < nf; i++) {
			cg_diff_value v;
			cg_diff_value_get(d, 0, CG_DIFF_SELF, i, e, &v);
			if (v.delta > 0)
				up += v.delta;
			else
				down -= v.delta;
		}
		fprintf(out, " %lld %lld", (long long)up, (long long)down);
	}
	fprintf(out, "\n\n");

	size_t k = 0;
	for (size_t i = 0; i < nf; i++) {
		int has_arcs = k < na && d->arcs[order[k]].caller == i;
		if (!function_present(d, i) && !has_arcs)
			continue;
		const cg_diff_function *f = &d->funcs[i];
		put_object(out, "ob", &nm, f->object);
		put_file(out, "fl", &nm, f->file);
		put_fn(out, "fn", &nm, d, i);
		fprintf(out, "%u", f->line);
		for (size_t e = 0; e < d->nev; e++) {
			cg_diff_value v;
			cg_diff_value_get(d, 0, CG_DIFF_SELF, i, e, &v);
			put_split(out, &v);
		}
		fprintf(out, "\n");
		for (; k < na && d->arcs[order[k]].caller == i; k++) {
			size_t a = order[k];
			cg_diff_value c;
			cg_diff_value_get(d, 0, CG_DIFF_ARC_CALLS, a, 0, &c);
			if (!c.base && !c.new_value)
				continue;
			const cg_diff_function *g = &d->funcs[d->arcs[a].callee];
			put_object(out, "cob", &nm, g->object);
			put_file(out, "cfi", &nm, g->file);
			put_fn(out, "cfn", &nm, d, d->arcs[a].callee);
			fprintf(out, "calls=%lld %u\n%u", (long long)(c.new_value ? c.new_value : c.base),
				g->line, f->line);
			for (size_t e = 0; e < d->nev; e++) {
				cg_diff_value v;
				cg_diff_value_get(d, 0, CG_DIFF_ARC_INCLUSIVE, a, e, &v);
				put_split(out, &v);
			}
			fprintf(out, "\n");
		}
		fprintf(out, "\n");
	}
	free(order);
	free(nm.fn_done);
	cg_hashmap_release(&nm.ids);
	if (nm.oom)
		return CG_ENOMEM;
	return ferror(out) ? CG_EIO : 0;
}
