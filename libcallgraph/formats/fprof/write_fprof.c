/*
 * write_fprof.c — the text fprof:analyse/1 prints (docs/fprof.md, "fprof:analyse text"), from any
 * profile; byte for byte for profiles read from fprof traces.
 *
 * Layout, sorting and number formatting follow fprof's do_analyse_1:
 * a totals section, then (details) one section per process sorted by
 * descending OWN; in each, one paragraph per function (callers, the
 * marked sum, called) sorted by descending ACC or OWN, ties broken by
 * descending Erlang term order of the function.
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "callgraph.h"
#include "fprof_model.h"
#include "fprof_term.h"
#include "hashmap.h"
#include "options.h"

/* ---- options ---------------------------------------------------------------------- */

static int word_is(const char *w, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(w, lit, n) == 0;
}

int cg_fprof_analyse_options_parse(cg_fprof_analyse_options *out, const char *list, cg_error *err)
{
	cg_fprof_analyse_options def = CG_FPROF_ANALYSE_OPTIONS_INIT;
	*out = def;
	if (!list)
		return 0;
	/* Split at top-level commas; drop spaces; accept {a,b} and a=b. */
	const char *p = list;
	while (*p) {
		char w[64];
		size_t n = 0;
		int depth = 0;
		while (*p && (depth > 0 || *p != ',')) {
			if (*p == '{')
				depth++;
			else if (*p == '}')
				depth--;
			if (*p != ' ' && *p != '\t' && n + 1 < sizeof w)
				w[n++] = *p == '{' || *p == '}' ? '\0' : *p == ',' ? '=' : *p;
			p++;
		}
		if (*p == ',')
			p++;
		/* compact the braces away */
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (w[i])
				w[m++] = w[i];
		w[m] = '\0';
		if (m == 0)
			continue;
		if (word_is(w, m, "callers") || word_is(w, m, "callers=true"))
			out->callers = 1;
		else if (word_is(w, m, "no_callers") || word_is(w, m, "callers=false"))
			out->callers = 0;
		else if (word_is(w, m, "sort=own"))
			out->sort_own = 1;
		else if (word_is(w, m, "sort=acc"))
			out->sort_own = 0;
		else if (word_is(w, m, "totals") || word_is(w, m, "totals=true"))
			out->totals = 1;
		else if (word_is(w, m, "no_totals") || word_is(w, m, "totals=false"))
			out->totals = 0;
		else if (word_is(w, m, "details") || word_is(w, m, "details=true"))
			out->details = 1;
		else if (word_is(w, m, "no_details") || word_is(w, m, "details=false"))
			out->details = 0;
		else if (m > 5 && memcmp(w, "cols=", 5) == 0) {
			char *e;
			long c = strtol(w + 5, &e, 10);
			if (*e || c < 1 || c > 10000)
				return cg_error_set(err, CG_EUSAGE, "fprof: bad analyse option '%s'", w);
			out->cols = (int)c;
		} else {
			return cg_error_set(err, CG_EUSAGE,
					    "fprof: unknown analyse option '%s' (known: no_callers, sort=own, totals, no_details, cols=N)",
					    w);
		}
	}
	return 0;
}

/* ---- functions as fprof prints them -------------------------------------------------- */

struct names {
	fprof_arena arena;
	fprof_term **term;   /* per model function, lazily; [nf] is `undefined` */
	char **text;         /* printed form */
	size_t nf;
	fprof_term undefined;
};

static size_t fix(const struct names *nm, cg_fid f)
{
	return f == CG_NO_FUNC || f >= nm->nf ? nm->nf : f;
}

static const fprof_term *name_term(struct names *nm, const cg_profile *p, cg_fid f)
{
	size_t i = fix(nm, f);
	if (!nm->term[i]) {
		if (i == nm->nf)
			nm->term[i] = &nm->undefined;
		else if (cg_fprof_name_term(&nm->arena, cg_profile_function(p, (cg_fid)i)->name, &nm->term[i]))
			return NULL;
	}
	return nm->term[i];
}

static const char *name_text(struct names *nm, const cg_profile *p, cg_fid f)
{
	size_t i = fix(nm, f);
	if (!nm->text[i]) {
		const fprof_term *t = name_term(nm, p, f);
		if (!t)
			return NULL;
		fprof_buf b = { 0 };
		cg_fprof_term_write(&b, t);
		nm->text[i] = b.oom ? NULL : cg_fprof_arena_strdup(&nm->arena, b.data, b.len);
		cg_fprof_buf_release(&b);
	}
	return nm->text[i];
}

/* ---- rows and paragraphs --------------------------------------------------------------- */

struct clocks {
	cg_fid id;
	uint64_t cnt;
	int64_t own, acc;
};

struct funcstat {
	struct clocks sum;          /* callers_sum: the marked row */
	struct clocks *callers, *called;
	size_t ncallers, ncalled, capcallers, capcalled;
};

struct group {
	struct funcstat *fs;
	size_t n, cap;
	int32_t *index;             /* per function (+ undefined): fs index or -1 */
	struct cg_hashmap sub;      /* (fs index, 0|1, fid) -> list position */
};

struct writer {
	const cg_profile *p;
	FILE *out;
	struct names nm;
	int w1, w2, w3, w4;
	int sort_own;
	int oom;
};

static int add_to_list(struct group *g, size_t fsi, int which, const struct clocks *c)
{
	struct funcstat *fs = &g->fs[fsi];
	struct clocks **list = which ? &fs->called : &fs->callers;
	size_t *n = which ? &fs->ncalled : &fs->ncallers;
	size_t *cap = which ? &fs->capcalled : &fs->capcallers;
	uint64_t key = ((uint64_t)fsi << 33) | ((uint64_t)which << 32) | c->id;
	uint32_t pos;
	if (cg_hashmap_get(&g->sub, key, &pos)) {
		(*list)[pos].cnt += c->cnt;
		fprof_add_sat(&(*list)[pos].own, c->own);
		fprof_add_sat(&(*list)[pos].acc, c->acc);
		return 0;
	}
	if (cg_array_grow((void **)list, cap, *n + 1, sizeof **list, 4))
		return CG_ENOMEM;
	(*list)[*n] = *c;
	if (cg_hashmap_put(&g->sub, key, (uint32_t)*n))
		return CG_ENOMEM;
	(*n)++;
	return 0;
}

static int stat_of(struct group *g, size_t slot, cg_fid id, size_t *out)
{
	if (g->index[slot] >= 0) {
		*out = (size_t)g->index[slot];
		return 0;
	}
	if (cg_array_grow((void **)&g->fs, &g->cap, g->n + 1, sizeof *g->fs, 64))
		return CG_ENOMEM;
	memset(&g->fs[g->n], 0, sizeof g->fs[g->n]);
	g->fs[g->n].sum.id = id;
	g->index[slot] = (int32_t)g->n;
	*out = g->n++;
	return 0;
}

/* fprof's funcstat_pd for one row. */
static int group_add(struct writer *w, struct group *g, const fprof_row *r)
{
	size_t fi, ci;
	cg_fid func = r->func, caller = r->caller;
	if (stat_of(g, fix(&w->nm, func), func, &fi) || stat_of(g, fix(&w->nm, caller), caller, &ci))
		return CG_ENOMEM;
	struct funcstat *fs = &g->fs[fi];
	fs->sum.cnt += r->cnt;
	fprof_add_sat(&fs->sum.own, r->own);
	fprof_add_sat(&fs->sum.acc, r->acc);
	struct clocks as_caller = { caller, r->cnt, r->own, r->acc };
	struct clocks as_called = { func, r->cnt, r->own, r->acc };
	if (add_to_list(g, fi, 0, &as_caller) || add_to_list(g, ci, 1, &as_called))
		return CG_ENOMEM;
	return 0;
}

static void group_release(struct group *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->fs[i].callers);
		free(g->fs[i].called);
	}
	free(g->fs);
	free(g->index);
	cg_hashmap_release(&g->sub);
	memset(g, 0, sizeof *g);
}

/* ---- sorting: descending (key, name, cnt, own, acc) in Erlang term order ---------------- */

static int cmp_clocks_desc(struct writer *w, const struct clocks *a, const struct clocks *b)
{
	int64_t ka = w->sort_own ? a->own : a->acc, kb = w->sort_own ? b->own : b->acc;
	if (ka != kb)
		return ka > kb ? -1 : 1;
	const fprof_term *ta = name_term(&w->nm, w->p, a->id);
	const fprof_term *tb = name_term(&w->nm, w->p, b->id);
	int c = ta && tb ? cg_fprof_term_compare(ta, tb) : 0;
	if (c)
		return -c;
	if (a->cnt != b->cnt)
		return a->cnt > b->cnt ? -1 : 1;
	if (a->own != b->own)
		return a->own > b->own ? -1 : 1;
	if (a->acc != b->acc)
		return a->acc > b->acc ? -1 : 1;
	return 0;
}

static int cmp_clocks_qs(const void *x, const void *y, void *ctx)
{
	return cmp_clocks_desc(ctx, x, y);
}

static int cmp_fs_qs(const void *x, const void *y, void *ctx)
{
	const struct funcstat *a = x, *b = y;
	return cmp_clocks_desc(ctx, &a->sum, &b->sum);
}

/* ---- printing ------------------------------------------------------------------------- */

static void pad_right(fprof_buf *b, const char *s, size_t len, int width)
{
	cg_fprof_buf_add(b, s, len);
	/* widths count characters, not bytes */
	size_t chars = 0;
	for (size_t i = 0; i < len; i++)
		chars += ((unsigned char)s[i] & 0xC0) != 0x80;
	for (int i = (int)chars; i < width; i++)
		cg_fprof_buf_addc(b, ' ');
}

static void pad_left(fprof_buf *b, const char *s, int width)
{
	int len = (int)strlen(s);
	for (int i = len; i < width; i++)
		cg_fprof_buf_addc(b, ' ');
	cg_fprof_buf_adds(b, s);
}

/* Microseconds as fprof's `~.3f` of ms, from the integer. */
static void ms_text(char *buf, size_t n, int64_t us)
{
	uint64_t a = us < 0 ? (uint64_t)0 - (uint64_t)us : (uint64_t)us;
	snprintf(buf, n, "%s%llu.%03llu", us < 0 ? "-" : "", (unsigned long long)(a / 1000),
		 (unsigned long long)(a % 1000));
}

static void emit(struct writer *w, fprof_buf *b)
{
	if (b->oom)
		w->oom = 1;
	else
		fwrite(b->data, 1, b->len, w->out);
	b->len = 0;
}

/* One row: head, name, CNT, ACC (or "undefined"), OWN, tail, comment. */
static void row_line(struct writer *w, const char *head, const char *name, uint64_t cnt,
		     const int64_t *acc, int64_t own, const char *tail, const char *comment)
{
	fprof_buf b = { 0 };
	char tmp[64];
	pad_right(&b, head, strlen(head), 3);
	fprof_buf b2 = { 0 };
	cg_fprof_buf_adds(&b2, name);
	cg_fprof_buf_addc(&b2, ',');
	pad_right(&b, cg_fprof_buf_cstr(&b2), b2.len, w->w1);
	cg_fprof_buf_release(&b2);
	snprintf(tmp, sizeof tmp, "%llu,", (unsigned long long)cnt);
	pad_left(&b, tmp, w->w2);
	if (acc) {
		char ms[48];
		ms_text(ms, sizeof ms, *acc);
		snprintf(tmp, sizeof tmp, "%s,", ms);
	} else {
		snprintf(tmp, sizeof tmp, "undefined,");
	}
	pad_left(&b, tmp, w->w3);
	ms_text(tmp, sizeof tmp, own);
	pad_left(&b, tmp, w->w4 - 1);
	pad_right(&b, tail, strlen(tail), 4);
	pad_left(&b, comment, 4);
	cg_fprof_buf_addc(&b, '\n');
	emit(w, &b);
	cg_fprof_buf_release(&b);
}

static void clocks_line(struct writer *w, const char *head, const struct clocks *c, const char *tail,
			const char *comment)
{
	const char *name = name_text(&w->nm, w->p, c->id);
	if (!name) {
		w->oom = 1;
		return;
	}
	row_line(w, head, name, c->cnt, &c->acc, c->own, tail, comment);
}

static void head_line(struct writer *w)
{
	fprof_buf b = { 0 };
	cg_fprof_buf_adds(&b, "%  ");
	pad_right(&b, " ", 1, w->w1);
	pad_left(&b, " CNT ", w->w2);
	pad_left(&b, " ACC ", w->w3);
	pad_left(&b, " OWN", w->w4 - 1);
	pad_right(&b, "", 0, 4);
	pad_left(&b, "", 4);
	cg_fprof_buf_addc(&b, '\n');
	emit(w, &b);
	cg_fprof_buf_release(&b);
}

static void paragraphs(struct writer *w, struct group *g, int callers)
{
	for (size_t i = 0; i < g->n; i++) {
		struct funcstat *fs = &g->fs[i];
		if (fs->ncallers > 1)
			qsort_r(fs->callers, fs->ncallers, sizeof *fs->callers, cmp_clocks_qs, w);
		if (fs->ncalled > 1)
			qsort_r(fs->called, fs->ncalled, sizeof *fs->called, cmp_clocks_qs, w);
	}
	qsort_r(g->fs, g->n, sizeof *g->fs, cmp_fs_qs, w);
	for (size_t i = 0; i < g->n && !w->oom; i++) {
		struct funcstat *fs = &g->fs[i];
		if (!callers) {
			clocks_line(w, "{  ", &fs->sum, "}.", "");
			continue;
		}
		if (fs->ncallers == 0)
			fputs("{[ ],\n", w->out);
		for (size_t k = 0; k < fs->ncallers; k++)
			clocks_line(w, k == 0 ? "{[{" : "  {", &fs->callers[k],
				    k + 1 == fs->ncallers ? "}]," : "},", "");
		clocks_line(w, " { ", &fs->sum, "},", "%");
		if (fs->ncalled == 0)
			fputs(" [ ]}.\n", w->out);
		for (size_t k = 0; k < fs->ncalled; k++)
			clocks_line(w, k == 0 ? " [{" : "  {", &fs->called[k],
				    k + 1 == fs->ncalled ? "}]}." : "},", "");
		fputs("\n", w->out);
	}
}

/* ---- process records ------------------------------------------------------------------ */

/* " { Tag, Term}" with fprof's ~tp layout for Term. */
static int tagged_line(struct writer *w, const char *tag, const char *text, const char *tail)
{
	fprof_arena a = { 0 };
	fprof_term *t;
	const char *why, *q = text;
	int rc = cg_fprof_term_parse(&a, &q, text + strlen(text), &t, &why);
	if (rc) {
		cg_fprof_arena_release(&a);
		return rc;
	}
	fprof_buf b = { 0 };
	cg_fprof_buf_adds(&b, " { ");
	cg_fprof_buf_adds(&b, tag);
	cg_fprof_buf_adds(&b, ", ");
	cg_fprof_term_pretty(&b, t, (int)(3 + strlen(tag) + 2));
	cg_fprof_buf_adds(&b, tail);
	cg_fprof_buf_addc(&b, '\n');
	emit(w, &b);
	cg_fprof_buf_release(&b);
	cg_fprof_arena_release(&a);
	return 0;
}

static int string_term_text(const char *s, fprof_buf *b)
{
	fprof_term t = { .kind = FT_STRING, .n = (uint32_t)strlen(s), .u.s = s };
	cg_fprof_term_write(b, &t);
	return b->oom ? CG_ENOMEM : 0;
}

/* The per-process header: the pid row, then spawned_by / spawned_as /
 * initial_calls when the process was spawned during the trace. */
static void process_header(struct writer *w, const fprof_part_rows *pr)
{
	const cg_profile *p = w->p;
	const char *name = cg_profile_part_name(p, pr->part);
	fprof_buf b = { 0 };
	string_term_text(name ? name : "", &b);
	const char *by = cg_profile_part_meta(p, pr->part, "spawned_by");
	const char *as = cg_profile_part_meta(p, pr->part, "spawned_as");
	const char *ic = cg_profile_part_meta(p, pr->part, "initial_calls");
	row_line(w, "[{ ", cg_fprof_buf_cstr(&b), pr->cnt, NULL, pr->own, by ? "}," : "}].", "%%");
	cg_fprof_buf_release(&b);
	if (!by)
		return;
	fprof_buf sb = { 0 };
	string_term_text(by, &sb);
	int rc = tagged_line(w, "spawned_by", cg_fprof_buf_cstr(&sb), as || ic ? "}," : "}].");
	cg_fprof_buf_release(&sb);
	if (!rc && as)
		rc = tagged_line(w, "spawned_as", as, ic ? "}," : "}].");
	if (!rc && ic)
		rc = tagged_line(w, "initial_calls", ic, "}].");
	if (rc)
		w->oom = 1;
}

/* ---- sections ------------------------------------------------------------------------- */

/* Erlang's order of pids "<A.B.C>": serial C, then id B (local pids). */
static int pid_cmp(const char *a, const char *b)
{
	unsigned long x[3] = { 0 }, y[3] = { 0 };
	if (a && b && sscanf(a, "<%lu.%lu.%lu>", &x[0], &x[1], &x[2]) == 3 &&
	    sscanf(b, "<%lu.%lu.%lu>", &y[0], &y[1], &y[2]) == 3) {
		if (x[0] != y[0])
			return x[0] < y[0] ? -1 : 1;
		if (x[2] != y[2])
			return x[2] < y[2] ? -1 : 1;
		if (x[1] != y[1])
			return x[1] < y[1] ? -1 : 1;
		return 0;
	}
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_parts(const void *x, const void *y, void *ctx)
{
	const cg_profile *pid_sort_profile = ctx;
	const fprof_part_rows *a = x, *b = y;
	if (a->own != b->own)
		return a->own > b->own ? -1 : 1;
	int c = pid_cmp(cg_profile_part_name(pid_sort_profile, a->part),
			cg_profile_part_name(pid_sort_profile, b->part));
	if (c)
		return -c;
	if (a->cnt != b->cnt)
		return a->cnt > b->cnt ? -1 : 1;
	return a->part < b->part ? -1 : a->part > b->part;
}

static int group_init(struct group *g, size_t nf)
{
	memset(g, 0, sizeof *g);
	g->index = malloc((nf + 1) * sizeof *g->index);
	if (!g->index)
		return CG_ENOMEM;
	for (size_t i = 0; i <= nf; i++)
		g->index[i] = -1;
	return 0;
}

static int64_t total_acc(const cg_profile *p, const fprof_part_rows *parts, size_t n)
{
	const char *f = cg_profile_meta(p, "fprof.first_ts"), *l = cg_profile_meta(p, "fprof.last_ts");
	if (f && l) {
		int64_t d = strtoll(l, NULL, 10), first = strtoll(f, NULL, 10);
		if (__builtin_sub_overflow(d, first, &d))
			d = first > 0 ? INT64_MIN : INT64_MAX;
		return d;
	}
	/* not from a trace: the longest-running bottom frame */
	int64_t best = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < parts[i].nrows; r++)
			if (parts[i].rows[r].acc > best)
				best = parts[i].rows[r].acc;
	return best;
}

int cg_write_fprof_analysis(const cg_profile *p, FILE *out, const cg_fprof_analyse_options *opts,
			    cg_error *err)
{
	if (CG_CHECK_OPTIONS(opts, CG_FPROF_ANALYSE_OPTIONS_VERSION, "cg_fprof_analyse_options", err))
		return CG_EUSAGE;
	cg_fprof_analyse_options o = CG_FPROF_ANALYSE_OPTIONS_INIT;
	if (opts)
		o = *opts;
	fprof_part_rows *parts;
	size_t nparts;
	cg_fid undef;
	int rc = cg_fprof_rows_from_profile(p, &parts, &nparts, &undef, err);
	if (rc)
		return rc;
	uint64_t tcnt = 0;
	int64_t town = 0;
	size_t nrows = 0;
	for (size_t i = 0; i < nparts; i++) {
		tcnt += parts[i].cnt;
		fprof_add_sat(&town, parts[i].own);
		nrows += parts[i].nrows;
	}
	if (nrows == 0) {
		cg_fprof_rows_release(parts, nparts);
		return cg_error_set(err, CG_EFORMAT, "fprof: empty trace (nothing to analyse)");
	}
	struct writer w = { 0 };
	w.p = p;
	w.out = out;
	w.sort_own = o.sort_own;
	int cols = o.cols < 23 ? 23 : o.cols;
	int width = (cols - 11) / 12;
	w.w1 = cols - 11 - 5 * width;
	w.w2 = width;
	w.w3 = w.w4 = 2 * width;
	w.nm.nf = cg_profile_function_count(p);
	w.nm.term = calloc(w.nm.nf + 1, sizeof *w.nm.term);
	w.nm.text = calloc(w.nm.nf + 1, sizeof *w.nm.text);
	w.nm.undefined = (fprof_term){ .kind = FT_ATOM, .n = 9, .u.s = "undefined" };
	struct group g = { 0 };
	if (!w.nm.term || !w.nm.text) {
		rc = CG_ENOMEM;
		goto done;
	}
	fprintf(out, "%%%% Analysis results:\n{  analysis_options,\n [{callers, %s},\n  {sort, %s},\n"
		     "  {totals, %s},\n  {details, %s}]}.\n\n",
		o.callers ? "true" : "false", o.sort_own ? "own" : "acc", o.totals ? "true" : "false",
		o.details ? "true" : "false");
	/* totals */
	head_line(&w);
	int64_t tacc = total_acc(p, parts, nparts);
	row_line(&w, "[{ ", "totals", tcnt, &tacc, town, "}].", "%%%");
	fputs("\n", out);
	if (o.totals) {
		if ((rc = group_init(&g, w.nm.nf)))
			goto done;
		for (size_t i = 0; i < nparts && !rc; i++)
			for (size_t r = 0; r < parts[i].nrows && !rc; r++)
				rc = group_add(&w, &g, &parts[i].rows[r]);
		if (rc)
			goto done;
		paragraphs(&w, &g, o.callers);
		group_release(&g);
	}
	fputs("\n", out);
	if (o.details) {
		qsort_r(parts, nparts, sizeof *parts, cmp_parts, (void *)p);
		for (size_t i = 0; i < nparts && !w.oom; i++) {
			if (parts[i].nrows == 0)
				continue;
			head_line(&w);
			process_header(&w, &parts[i]);
			fputs("\n", out);
			if ((rc = group_init(&g, w.nm.nf)))
				goto done;
			for (size_t r = 0; r < parts[i].nrows && !rc; r++)
				rc = group_add(&w, &g, &parts[i].rows[r]);
			if (rc)
				goto done;
			paragraphs(&w, &g, o.callers);
			group_release(&g);
			fputs("\n", out);
		}
	}
	if (w.oom)
		rc = CG_ENOMEM;
done:
	group_release(&g);
	cg_fprof_rows_release(parts, nparts);
	cg_fprof_arena_release(&w.nm.arena);
	free(w.nm.term);
	free(w.nm.text);
	if (rc)
		return cg_error_set(err, rc, "fprof: %s while writing the analysis", cg_strerror(rc));
	if (ferror(out))
		return cg_error_set(err, CG_EIO, "fprof: write error");
	return 0;
}
