/*
 * gprof_symspec.c — gprof's symbol specifications and option tables.
 *
 * A spec (FILE:NAME, FILE:LINE, NAME, FILE, LINE, or one of those on both
 * sides of '/') is matched against every symbol; each run of consecutive
 * matching symbols becomes one table entry, and the tables are then
 * sorted and de-duplicated by start the way gprof finalizes its symbol
 * tables.  Lookups use gprof's rule "greatest start <= symbol, symbol
 * within its range", so overlapping specs behave as in gprof.  Symbol
 * positions stand in for addresses: symbols are in address order and own
 * disjoint ranges.
 */
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "gprof_internal.h"

static const char *const default_excluded[] = {
	"_gprof_mcount", "mcount", "_mcount", "__mcount", "__mcount_internal",
	"__mcleanup", NULL
};

typedef struct pattern {
	const char *file;   /* basename to match, or NULL */
	const char *name;   /* raw name to match, or NULL */
	uint32_t line;      /* 0: any */
} pattern;

/* One parsed spec ("id" in gprof) with the tables it feeds. */
typedef struct spec_id {
	unsigned table;
	char *text;         /* private copy, cut into left/right */
	pattern left, right;
	int has_right;
	size_t left_first, left_count;    /* entries created by the left side */
	gp_range *right_runs;
	size_t nright;
} spec_id;

static uint32_t parse_line(const char *s)
{
	unsigned long v = strtoul(s, NULL, 10);
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* FILE:(NAME|LINE); without a colon a FILE if it has a dot, a LINE if it
 * starts with a digit, else a NAME; empty parts match everything. */
static void parse_pattern(char *spec, pattern *p)
{
	memset(p, 0, sizeof *p);
	char *colon = strrchr(spec, ':');
	if (colon) {
		*colon = '\0';
		if (colon > spec)
			p->file = spec;
		spec = colon + 1;
		if (*spec) {
			if (*spec >= '0' && *spec <= '9')
				p->line = parse_line(spec);
			else
				p->name = spec;
		}
	} else if (*spec) {
		if (strchr(spec, '.'))
			p->file = spec;
		else if (*spec >= '0' && *spec <= '9')
			p->line = parse_line(spec);
		else
			p->name = spec;
	}
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* A symbol whose range is empty (gprof's end address below its start,
 * e.g. data_start above .text): it never tests as "in" a table. */
static int sym_range_empty(const gp_sym *s)
{
	return (s->flags & CG_FN_HAS_ADDR) && s->end != 0 && s->end <= s->addr;
}

/* Last symbol position covered by a run ending at symbol `last`.  gprof
 * looks tables up by address, up to the last symbol's end address: with
 * -l a function symbol keeps its function's end, so a run ending at one
 * covers the line symbols that follow it inside the function. */
static int64_t run_end(const cg_gprof_analysis *a, uint32_t last)
{
	const gp_sym *l = &a->syms[last];
	if (sym_range_empty(l))
		return (int64_t)last - 1;
	uint32_t e = last;
	if ((l->flags & CG_FN_HAS_ADDR) && l->end != 0)
		while (e + 1 < a->nsyms && (a->syms[e + 1].flags & CG_FN_HAS_ADDR) &&
		       a->syms[e + 1].addr < l->end)
			e++;
	return e;
}

typedef struct entry_tmp {
	gp_range r;
	size_t id_rank;     /* position in gprof's id list (most recent first) */
	size_t id;
	size_t run;         /* index of the run among its id's left runs */
} entry_tmp;

static int cmp_entry_tmp(const void *l, const void *r)
{
	const entry_tmp *a = l, *b = r;
	if (a->r.first != b->r.first)
		return a->r.first < b->r.first ? -1 : 1;
	return a->id_rank < b->id_rank ? -1 : a->id_rank > b->id_rank;
}

/* The last string a pattern part was compared with and the outcome:
 * the symbols of one source file mostly come one after the other, and
 * the same pointer is the same string. */
typedef struct match_cache {
	const char *s;
	int known, match;
} match_cache;

/* Does s (a file: its base name) equal want?  Asked again with the same
 * pointer, the cached outcome. */
static int cached_match(match_cache *c, const char *want, const char *s, int is_file)
{
	if (!c->known || c->s != s) {
		c->s = s;
		c->known = 1;
		c->match = s && strcmp(want, is_file ? base_name(s) : s) == 0;
	}
	return c->match;
}

/* One pattern's matching: its runs so far and its caches. */
typedef struct run_search {
	const pattern *p;
	gp_range **runs;
	size_t *n, cap;
	match_cache names, files;
} run_search;

/* Symbols first..last match r's pattern. */
static int add_to_run(run_search *r, uint32_t first, uint32_t last)
{
	gp_range **runs = r->runs;
	size_t *n = r->n;

	if (*n && (*runs)[*n - 1].last + 1 == first) {
		(*runs)[*n - 1].last = last;
		return 0;
	}
	if (cg_array_grow((void **)runs, &r->cap, *n + 1, sizeof **runs, 8))
		return CG_ENOMEM;
	(*runs)[(*n)++] = (gp_range){ first, last };
	return 0;
}

/* For each search, the runs of consecutive symbols matching its pattern
 * (the file's base name, the line and the name, each when given).  One
 * pass over the symbols for all patterns, a block of consecutive symbols
 * sharing name and file (a function and its line symbols) at a time:
 * a pattern without a line matches all of the block or none of it. */
static int collect_runs(const cg_gprof_analysis *a, run_search *rs, size_t nrs)
{
	for (size_t i = 0; i < nrs; i++) {
		*rs[i].runs = NULL;
		*rs[i].n = 0;
	}
	for (uint32_t s = 0, e; s < a->nsyms; s = e) {
		const gp_sym *sym = &a->syms[s];
		for (e = s + 1; e < a->nsyms; e++)
			if (a->syms[e].name != sym->name || a->syms[e].file != sym->file)
				break;
		for (size_t i = 0; i < nrs; i++) {
			run_search *r = &rs[i];
			const pattern *p = r->p;
			if ((p->file && !cached_match(&r->files, p->file, sym->file, 1)) ||
			    (p->name && !cached_match(&r->names, p->name, sym->name, 0)))
				continue;
			if (!p->line) {
				if (add_to_run(r, s, e - 1))
					return CG_ENOMEM;
				continue;
			}
			for (uint32_t k = s; k < e; k++)
				if (a->syms[k].line == p->line && add_to_run(r, k, k))
					return CG_ENOMEM;
		}
	}
	return 0;
}

static int is_arc_table(unsigned t)
{
	return t == CG_GPROF_INCL_ARCS || t == CG_GPROF_EXCL_ARCS;
}

static void free_ids(spec_id *ids, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(ids[i].text);
		free(ids[i].right_runs);
	}
	free(ids);
}

/* gprof creates a table's entries in (start, id list) order, which is
 * already the sorted order, then compacts them; the slot of an entry
 * created at position i afterwards holds the i-th kept entry, or is left
 * as it was beyond the kept ones.  -r sees the pseudo arcs gprof adds
 * between those slots and the right-side runs of A/B specs, under the
 * name of whatever the slot holds (see gp_fake_arcs). */
static int record_slots(cg_gprof_analysis *a, const entry_tmp *tmp, size_t total,
			const uint32_t *kept_first, size_t nkept, uint32_t **left_obj)
{
	uint32_t base = a->nvobj;
	uint32_t *nv = realloc(a->vobj_sym, ((size_t)base + total + 1) * sizeof *nv);
	if (!nv)
		return CG_ENOMEM;
	a->vobj_sym = nv;
	for (size_t i = 0; i < total; i++) {
		nv[base + i] = i < nkept ? kept_first[i] : tmp[i].r.first;
		left_obj[tmp[i].id][tmp[i].run] = base + (uint32_t)i;
	}
	a->nvobj = base + (uint32_t)total;
	return 0;
}

static int build_table(cg_gprof_analysis *a, unsigned t, spec_id *ids, size_t nids,
		       gp_range **left_runs, size_t *nleft, uint32_t **left_obj)
{
	size_t total = 0;
	for (size_t i = 0; i < nids; i++)
		if (ids[i].table == t)
			total += nleft[i];
	if (!total)
		return 0;
	entry_tmp *tmp = malloc(total * sizeof *tmp);
	if (!tmp)
		return CG_ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < nids; i++) {
		if (ids[i].table != t)
			continue;
		for (size_t j = 0; j < nleft[i]; j++)
			tmp[k++] = (entry_tmp){ left_runs[i][j], nids - 1 - i, i, j };
	}
	qsort(tmp, total, sizeof *tmp, cmp_entry_tmp);

	gp_table *tab = &a->tables[t];
	tab->e = calloc(total, sizeof *tab->e);
	if (!tab->e) {
		free(tmp);
		return CG_ENOMEM;
	}
	int64_t prev_first = -1;
	for (size_t i = 0; i < total; i++) {
		/* One entry per start: the earliest in gprof's id list wins;
		 * entries with an empty range are dropped. */
		if ((int64_t)tmp[i].r.first == prev_first)
			continue;
		if (run_end(a, tmp[i].r.last) < (int64_t)tmp[i].r.first)
			continue;
		prev_first = tmp[i].r.first;
		gp_entry *e = &tab->e[tab->n++];
		e->r = tmp[i].r;
		if (is_arc_table(t) && ids[tmp[i].id].has_right) {
			e->right = ids[tmp[i].id].right_runs;  /* shared, owned by a->spec_runs */
			e->nright = ids[tmp[i].id].nright;
		}
	}
	uint32_t *kept_first = malloc((tab->n + 1) * sizeof *kept_first);
	int rc = kept_first ? 0 : CG_ENOMEM;
	for (size_t i = 0; i < tab->n && !rc; i++)
		kept_first[i] = tab->e[i].r.first;
	if (!rc)
		rc = record_slots(a, tmp, total, kept_first, tab->n, left_obj);
	free(kept_first);
	free(tmp);
	return rc;
}

/* The pseudo arcs of every A/B spec, in gprof's creation order: ids most
 * recent first, each id's left runs and right runs last first. */
static int make_fake_arcs(cg_gprof_analysis *a, spec_id *ids, size_t nids,
			  size_t *nleft, uint32_t **left_obj)
{
	size_t n = 0;
	for (size_t i = 0; i < nids; i++)
		if (ids[i].has_right)
			n += nleft[i] * ids[i].nright;
	uint32_t nright_total = 0;
	for (size_t i = 0; i < nids; i++)
		nright_total += (uint32_t)ids[i].nright;
	uint32_t *nv = realloc(a->vobj_sym, ((size_t)a->nvobj + nright_total + 1) * sizeof *nv);
	a->fake = malloc((n + 1) * sizeof *a->fake);
	if (!nv || !a->fake) {
		if (nv)
			a->vobj_sym = nv;
		return CG_ENOMEM;
	}
	a->vobj_sym = nv;
	for (size_t i = nids; i-- > 0;) {
		if (!ids[i].has_right)
			continue;
		uint32_t rbase = a->nvobj;
		for (size_t r = 0; r < ids[i].nright; r++)
			nv[rbase + r] = ids[i].right_runs[r].first;
		a->nvobj += (uint32_t)ids[i].nright;
		for (size_t j = nleft[i]; j-- > 0;)
			for (size_t r = ids[i].nright; r-- > 0;)
				a->fake[a->nfake++] = (gp_fake_arc){ left_obj[i][j], rbase + (uint32_t)r };
	}
	return 0;
}

int cg_gp_tables_build(cg_gprof_analysis *a, const cg_gprof_options *opts, cg_error *err)
{
	size_t nuser = opts->nspecs, ndef = 0;
	if (!opts->no_default_excludes)
		for (const char *const *d = default_excluded; *d; d++)
			ndef += 3;
	size_t nids = nuser + ndef;
	if (!nids)
		return 0;

	/* ids in the order gprof adds them: user specs, then the defaults. */
	spec_id *ids = calloc(nids, sizeof *ids);
	gp_range **left_runs = calloc(nids, sizeof *left_runs);
	uint32_t **left_obj = NULL;
	size_t *nleft = calloc(nids, sizeof *nleft);
	run_search *searches = NULL;
	size_t nsearches = 0;
	int rc = 0;
	if (!ids || !left_runs || !nleft) {
		rc = CG_ENOMEM;
		goto out;
	}
	size_t k = 0;
	for (size_t i = 0; i < nuser; i++, k++) {
		const cg_gprof_symspec *sp = &opts->specs[i];
		if (sp->table >= CG_GPROF_NTABLES || !sp->spec) {
			rc = cg_error_set(err, CG_EUSAGE, "gprof: bad symbol specification #%zu", i);
			goto out;
		}
		ids[k].table = sp->table;
		ids[k].text = strdup(sp->spec);
	}
	if (ndef) {
		static const unsigned def_tables[3] = {
			CG_GPROF_EXCL_TIME, CG_GPROF_EXCL_GRAPH, CG_GPROF_EXCL_FLAT
		};
		for (const char *const *d = default_excluded; *d; d++)
			for (int t = 0; t < 3; t++, k++) {
				ids[k].table = def_tables[t];
				ids[k].text = strdup(*d);
			}
	}
	for (size_t i = 0; i < nids; i++) {
		if (!ids[i].text) {
			rc = CG_ENOMEM;
			goto out;
		}
		char *slash = strchr(ids[i].text, '/');
		if (slash) {
			*slash = '\0';
			parse_pattern(slash + 1, &ids[i].right);
			ids[i].has_right = 1;
		}
		parse_pattern(ids[i].text, &ids[i].left);
	}
	searches = calloc(2 * nids, sizeof *searches);
	if (!searches) {
		rc = CG_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nids; i++) {
		searches[nsearches++] = (run_search){ .p = &ids[i].left, .runs = &left_runs[i],
						      .n = &nleft[i] };
		if (ids[i].has_right)
			searches[nsearches++] = (run_search){ .p = &ids[i].right,
							      .runs = &ids[i].right_runs,
							      .n = &ids[i].nright };
	}
	rc = collect_runs(a, searches, nsearches);
	if (rc)
		goto out;
	left_obj = calloc(nids, sizeof *left_obj);
	if (!left_obj) {
		rc = CG_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nids && !rc; i++)
		if (!(left_obj[i] = malloc((nleft[i] + 1) * sizeof *left_obj[i])))
			rc = CG_ENOMEM;
	for (unsigned t = 0; t < CG_GPROF_NTABLES && !rc; t++)
		rc = build_table(a, t, ids, nids, left_runs, nleft, left_obj);
	if (!rc)
		rc = make_fake_arcs(a, ids, nids, nleft, left_obj);
	if (rc)
		goto out;

	/* The right-side runs are shared by the arc table entries: keep them. */
	a->spec_runs = calloc(nids, sizeof *a->spec_runs);
	if (!a->spec_runs) {
		rc = CG_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nids; i++) {
		a->spec_runs[i] = ids[i].right_runs;
		ids[i].right_runs = NULL;
	}
	a->nspec_runs = nids;
out:
	if (rc == CG_ENOMEM)
		cg_error_set(err, rc, "gprof: out of memory building symbol tables");
	if (left_runs)
		for (size_t i = 0; i < nids; i++)
			free(left_runs[i]);
	if (left_obj)
		for (size_t i = 0; i < nids; i++)
			free(left_obj[i]);
	free(left_obj);
	free(left_runs);
	free(nleft);
	free(searches);
	if (ids)
		free_ids(ids, nids);
	return rc;
}

void cg_gp_tables_free(cg_gprof_analysis *a)
{
	for (unsigned t = 0; t < CG_GPROF_NTABLES; t++) {
		free(a->tables[t].e);
		a->tables[t].e = NULL;
		a->tables[t].n = 0;
	}
	for (size_t i = 0; i < a->nspec_runs; i++)
		free(a->spec_runs[i]);
	free(a->spec_runs);
	a->spec_runs = NULL;
	a->nspec_runs = 0;
	free(a->vobj_sym);
	free(a->fake);
	a->vobj_sym = NULL;
	a->fake = NULL;
	a->nvobj = 0;
	a->nfake = 0;
}

int cg_gp_in_table(const cg_gprof_analysis *a, unsigned table, uint32_t s)
{
	const gp_table *tab = &a->tables[table];
	size_t lo = 0, hi = tab->n;
	/* Greatest entry start <= s. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (tab->e[mid].r.first <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	return (int64_t)s <= run_end(a, tab->e[lo - 1].r.last);
}

int cg_gp_passes(const cg_gprof_analysis *a, unsigned incl, uint32_t s)
{
	if (cg_gp_in_table(a, incl, s))
		return 1;
	return a->tables[incl].n == 0 && !cg_gp_in_table(a, incl + 1, s);
}

static int arc_in_table(const cg_gprof_analysis *a, unsigned table, uint32_t p, uint32_t c)
{
	const gp_table *tab = &a->tables[table];
	for (size_t i = 0; i < tab->n; i++) {
		const gp_entry *e = &tab->e[i];
		if (p < e->r.first || (int64_t)p > run_end(a, e->r.last))
			continue;
		for (size_t j = 0; j < e->nright; j++)
			if (c >= e->right[j].first && c <= e->right[j].last)
				return 1;
	}
	return 0;
}

int cg_gp_arc_passes(const cg_gprof_analysis *a, uint32_t parent, uint32_t child)
{
	if (arc_in_table(a, CG_GPROF_INCL_ARCS, parent, child))
		return 1;
	return a->tables[CG_GPROF_INCL_ARCS].n == 0
		&& !arc_in_table(a, CG_GPROF_EXCL_ARCS, parent, child);
}
