/*
 * diff_write.c — the human outputs of a diff: the table sorted by impact
 * and TAP (one test per checked item), plus the format dispatcher.
 */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "diff_internal.h"
#include "options.h"

int cg_diff_format_from_name(const char *name)
{
	static const char *const names[] = { "table", "tap", "xml", "callgrind",
					     "junit", "github", "markdown", "bmf", "svg" };
	for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

int cg_diff_write(const cg_diff *d, int format, FILE *out, const cg_diff_write_options *opts,
		  cg_error *err)
{
	/* Version 2 lacks only the names, which have defaults. */
	if (opts && opts->version == 2) {
		cg_diff_write_options v3 = CG_DIFF_WRITE_OPTIONS_INIT;
		memcpy(&v3, opts, offsetof(cg_diff_write_options, names));
		v3.version = CG_DIFF_WRITE_OPTIONS_VERSION;
		return cg_diff_write(d, format, out, &v3, err);
	}
	if (CG_CHECK_OPTIONS(opts, CG_DIFF_WRITE_OPTIONS_VERSION, "cg_diff_write_options", err))
		return CG_EUSAGE;
	cg_diff_write_options defaults = CG_DIFF_WRITE_OPTIONS_INIT;
	if (!opts)
		opts = &defaults;
	int rc;
	switch (format) {
	case CG_DIFF_TABLE: rc = cg_diff_write_table(d, out, opts); break;
	case CG_DIFF_TAP: rc = cg_diff_write_tap(d, out); break;
	case CG_DIFF_XML: rc = cg_diff_write_xml(d, out, err); break;
	case CG_DIFF_CALLGRIND: rc = cg_diff_write_callgrind(d, out); break;
	case CG_DIFF_JUNIT: rc = cg_diff_write_junit(d, out); break;
	case CG_DIFF_GITHUB: rc = cg_diff_write_github(d, out); break;
	case CG_DIFF_MARKDOWN: rc = cg_diff_write_markdown(d, out); break;
	case CG_DIFF_BMF: rc = cg_diff_write_bmf(d, out); break;
	case CG_DIFF_SVG: rc = cg_diff_write_svg(d, out, opts, err); break;
	default: return cg_error_set(err, CG_EUSAGE, "unknown diff output format %d", format);
	}
	if (rc == 0 && (fflush(out) != 0 || ferror(out)))
		rc = CG_EIO;
	if (rc == CG_EIO)
		return cg_error_set(err, CG_EIO, "write error");
	if (rc)
		return err && err->code ? rc : cg_error_set(err, rc, "%s", cg_strerror(rc));
	return 0;
}

/* ---- numbers ------------------------------------------------------------------- */

static void fmt_delta(char *buf, size_t n, int64_t v)
{
	snprintf(buf, n, "%+lld", (long long)v);
}

static void fmt_relative(char *buf, size_t n, const cg_diff_value *v)
{
	if (!v->delta)
		snprintf(buf, n, "0%%");
	else if (isinf(v->relative))
		snprintf(buf, n, "new");
	else
		snprintf(buf, n, "%+.1f%%", v->relative * 100.0);
}

/* ---- table ------------------------------------------------------------------------ */

struct row {
	size_t item;
	int flagged, noise;
	uint64_t impact;
};

static uint64_t mag(int64_t v)
{
	return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

static int cmp_rows(const void *a, const void *b, void *ctx)
{
	const cg_diff *d = ctx;
	const struct row *x = a, *y = b;
	if (x->flagged != y->flagged)
		return y->flagged - x->flagged;
	if (x->impact != y->impact)
		return x->impact < y->impact ? 1 : -1;
	int c = strcmp(d->funcs[x->item].name, d->funcs[y->item].name);
	return c ? c : (x->item > y->item) - (x->item < y->item);
}

/* flag[item] |= 1 when a finding on it failed, 2 when one was noise; for
 * functions only findings of event `ev` (or call counts) count. */
static void verdict_marks(const cg_diff *d, int metric_is_arc, size_t ev, unsigned char *flag,
			  size_t n)
{
	memset(flag, 0, n);
	for (size_t i = 0; i < d->nfindings; i++) {
		const cg_diff_finding *f = diff_finding(d, i);
		int is_arc = f->metric == CG_DIFF_ARC_CALLS || f->metric == CG_DIFF_ARC_INCLUSIVE;
		if (f->metric == CG_DIFF_TOTAL || is_arc != metric_is_arc || f->item >= n)
			continue;
		if (!is_arc && f->metric != CG_DIFF_CALLS && f->event != ev)
			continue;
		if (f->flagged)
			flag[f->item] |= 1;
		else if (f->noise)
			flag[f->item] |= 2;
	}
}

static const char *mark_text(unsigned char m)
{
	return m & 1 ? "FAIL" : m & 2 ? "noise" : "";
}

static void print_name(FILE *out, const char *name, int room)
{
	int len = (int)strlen(name);
	if (room < 4 || len <= room || room == INT_MAX)
		fprintf(out, "%s\n", name);
	else
		fprintf(out, "%.*s...\n", room - 3, name);
}

/* The changed functions for one event, sorted by impact. */
static int write_function_rows(const cg_diff *d, FILE *out, const cg_diff_write_options *o,
			       size_t ev, unsigned char *flag, struct row *rows, size_t *hidden)
{
	int width = o->width ? (int)o->width : 80;
	size_t limit = o->limit ? o->limit : 20;
	char a[32], b[32], c[32], e[32], g[32], h[32], label[512];
	size_t n = d->nfuncs, nrows = 0;
	verdict_marks(d, 0, ev, flag, n);
	for (size_t i = 0; i < n; i++) {
		cg_diff_value s, in, cl;
		cg_diff_value_get(d, 0, CG_DIFF_SELF, i, ev, &s);
		cg_diff_value_get(d, 0, CG_DIFF_INCLUSIVE, i, ev, &in);
		cg_diff_value_get(d, 0, CG_DIFF_CALLS, i, ev, &cl);
		if (!s.delta && !in.delta && !cl.delta && !flag[i])
			continue;
		uint64_t impact = mag(s.delta) > mag(in.delta) ? mag(s.delta) : mag(in.delta);
		rows[nrows++] = (struct row){ i, flag[i] & 1, (flag[i] & 2) != 0,
					      impact ? impact : mag(cl.delta) };
	}
	qsort_r(rows, nrows, sizeof *rows, cmp_rows, (void *)d);

	/* Below 110 columns the new values make way for the function name. */
	int wide = width >= 110;
	if (d->nchecked_ev > 1)
		fprintf(out, "\nevent %s:", d->events[ev]->name);
	if (wide)
		fprintf(out, "\n%-5s %10s %8s %12s %10s %8s %8s %10s  %s\n", "", "d.self", "d.self%",
			"self(new)", "d.incl", "d.incl%", "d.calls", "calls(new)", "function");
	else
		fprintf(out, "\n%-5s %10s %8s %10s %8s %8s  %s\n", "", "d.self", "d.self%",
			"d.incl", "d.incl%", "d.calls", "function");
	int room = width - (wide ? 80 : 56);
	size_t shown = 0;
	for (size_t r = 0; r < nrows; r++) {
		size_t i = rows[r].item;
		if (!rows[r].flagged && !o->all && shown >= limit) {
			(*hidden)++;
			continue;
		}
		if (!rows[r].flagged)
			shown++;
		cg_diff_value s, in, cl;
		cg_diff_value_get(d, 0, CG_DIFF_SELF, i, ev, &s);
		cg_diff_value_get(d, 0, CG_DIFF_INCLUSIVE, i, ev, &in);
		cg_diff_value_get(d, 0, CG_DIFF_CALLS, i, ev, &cl);
		fmt_delta(a, sizeof a, s.delta);
		fmt_relative(b, sizeof b, &s);
		if (in.known) {
			fmt_delta(c, sizeof c, in.delta);
			fmt_relative(e, sizeof e, &in);
		} else {
			snprintf(c, sizeof c, "?");
			snprintf(e, sizeof e, "?");
		}
		fmt_delta(g, sizeof g, cl.delta);
		snprintf(h, sizeof h, "%lld", (long long)cl.new_value);
		cg_diff_item_label(d, i, label, sizeof label);
		if (wide)
			fprintf(out, "%-5s %10s %8s %12lld %10s %8s %8s %10s  ", mark_text(flag[i]), a,
				b, (long long)s.new_value, c, e, g, h);
		else
			fprintf(out, "%-5s %10s %8s %10s %8s %8s  ", mark_text(flag[i]), a, b, c, e, g);
		print_name(out, label, o->full_names ? INT_MAX : room > 10 ? room : 10);
	}
	if (*hidden)
		fprintf(out, "(%zu more changed functions; --all shows them)\n", *hidden);
	return 0;
}

/* Whether any value of the whole profile differs (or any finding failed). */
static int any_change(const cg_diff *d)
{
	cg_diff_value v;
	for (size_t i = 0; i < d->nfindings; i++)
		if (diff_finding(d, i)->flagged || diff_finding(d, i)->noise)
			return 1;
	for (size_t e = 0; e < d->nev; e++) {
		cg_diff_value_get(d, 0, CG_DIFF_TOTAL, 0, e, &v);
		if (v.delta)
			return 1;
		for (size_t i = 0; i < d->nfuncs; i++) {
			cg_diff_value_get(d, 0, CG_DIFF_SELF, i, e, &v);
			if (v.delta)
				return 1;
			cg_diff_value_get(d, 0, CG_DIFF_INCLUSIVE, i, e, &v);
			if (v.delta)
				return 1;
		}
	}
	for (size_t i = 0; i < d->nfuncs; i++) {
		cg_diff_value_get(d, 0, CG_DIFF_CALLS, i, 0, &v);
		if (v.delta)
			return 1;
	}
	for (size_t i = 0; i < d->narcs; i++) {
		cg_diff_value_get(d, 0, CG_DIFF_ARC_CALLS, i, 0, &v);
		if (v.delta)
			return 1;
	}
	return 0;
}

int cg_diff_write_table(const cg_diff *d, FILE *out, const cg_diff_write_options *o)
{
	size_t ev = d->nchecked_ev ? d->checked_ev[0] : 0;
	int width = o->width ? (int)o->width : 80;
	size_t limit = o->limit ? o->limit : 20;
	char a[32], label[512];
	cg_diff_value v;

	fprintf(out, "cgdiff:");
	for (size_t k = 0; k < d->nchecked_ev; k++) {
		size_t x = d->checked_ev[k];
		fprintf(out, "%s event %s (%s", k ? "," : "", d->events[x]->name,
			cg_diff_event_kind_name(d->kind[x]));
		if (d->kind[x] == CG_DIFF_SAMPLED)
			fprintf(out, ", noise z=%g", d->z);
		fprintf(out, ")");
	}
	fprintf(out, "\n");
	if (d->nruns[0] > 1 || d->nruns[1] > 1)
		fprintf(out, "runs: %zu base, %zu new (values are medians; Mann-Whitney test, "
			     "false-alarm rate %g)\n", d->nruns[0], d->nruns[1], d->alpha);
	for (size_t k = 0; k < d->nchecked_ev; k++) {
		size_t x = d->checked_ev[k];
		cg_diff_value_get(d, 0, CG_DIFF_TOTAL, 0, x, &v);
		fmt_relative(a, sizeof a, &v);
		fprintf(out, "total %s: %lld -> %lld (%+lld, %s)\n", d->events[x]->name,
			(long long)v.base, (long long)v.new_value, (long long)v.delta, a);
	}

	size_t n = d->nfuncs, hidden = 0;
	unsigned char *flag = malloc(n ? n : 1);
	struct row *rows = malloc((n ? n : 1) * sizeof *rows);
	if (!flag || !rows) {
		free(flag);
		free(rows);
		return CG_ENOMEM;
	}
	if (!any_change(d)) {
		fprintf(out, "no differences: %zu function%s and %zu arc%s compared, all equal\n", n,
			n == 1 ? "" : "s", d->narcs, d->narcs == 1 ? "" : "s");
		free(flag);
		free(rows);
		fprintf(out, "\nPASS: 0 limits exceeded\n");
		return ferror(out) ? CG_EIO : 0;
	}
	for (size_t k = 0; k < d->nchecked_ev || k == 0; k++) {
		hidden = 0;
		write_function_rows(d, out, o, d->nchecked_ev ? d->checked_ev[k] : ev, flag, rows,
				    &hidden);
	}
	hidden = 0;

	/* Arcs whose call count changed, flagged first. */
	free(flag);
	flag = malloc(d->narcs ? d->narcs : 1);
	if (!flag) {
		free(rows);
		return CG_ENOMEM;
	}
	verdict_marks(d, 1, 0, flag, d->narcs);
	size_t arcs_shown = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < d->narcs; i++) {
			cg_diff_value_get(d, 0, CG_DIFF_ARC_CALLS, i, 0, &v);
			if (!v.delta || (pass == 0) != ((flag[i] & 1) != 0))
				continue;
			if (pass == 1 && !o->all && arcs_shown >= limit) {
				hidden++;
				continue;
			}
			if (!arcs_shown++)
				fprintf(out, "\n%-5s %10s %11s %11s  %s\n", "", "d.calls", "calls(base)",
					"calls(new)", "arc");
			char l2[256];
			cg_diff_item_label(d, d->arcs[i].caller, label, sizeof label);
			cg_diff_item_label(d, d->arcs[i].callee, l2, sizeof l2);
			fmt_delta(a, sizeof a, v.delta);
			fprintf(out, "%-5s %10s %11lld %11lld  ", mark_text(flag[i]), a,
				(long long)v.base, (long long)v.new_value);
			size_t used = strlen(label);
			snprintf(label + used, sizeof label - used, " -> %s", l2);
			print_name(out, label, o->full_names ? INT_MAX : width - 43 > 10 ? width - 43 : 10);
		}
	free(flag);
	free(rows);

	size_t nflag = 0;
	for (size_t i = 0; i < d->nfindings; i++)
		nflag += diff_finding(d, i)->flagged;
	if (nflag)
		fprintf(out, "\nLimits exceeded:\n");
	for (size_t i = 0; i < d->nfindings; i++) {
		const cg_diff_finding *f = diff_finding(d, i);
		if (!f->flagged)
			continue;
		if (f->metric == CG_DIFF_TOTAL)
			snprintf(label, sizeof label, "total");
		else if (f->metric == CG_DIFF_ARC_CALLS || f->metric == CG_DIFF_ARC_INCLUSIVE) {
			char l1[200], l2[200];
			cg_diff_item_label(d, d->arcs[f->item].caller, l1, sizeof l1);
			cg_diff_item_label(d, d->arcs[f->item].callee, l2, sizeof l2);
			snprintf(label, sizeof label, "%s -> %s", l1, l2);
		} else
			cg_diff_item_label(d, f->item, label, sizeof label);
		fprintf(out, "  %s%s%s: %s\n", label, f->scope ? " in " : "",
			f->scope ? d->scopes[f->scope].name : "", f->reason);
	}
	fprintf(out, "\n%s: %zu limit%s exceeded\n", nflag ? "FAIL" : "PASS", nflag,
		nflag == 1 ? "" : "s");
	return ferror(out) ? CG_EIO : 0;
}

/* ---- TAP ------------------------------------------------------------------------------ */

/* A finding's test: total, a function or an arc, in one scope. */
static int finding_kind(const cg_diff_finding *f)
{
	if (f->metric == CG_DIFF_TOTAL)
		return 0;
	return f->metric == CG_DIFF_ARC_CALLS || f->metric == CG_DIFF_ARC_INCLUSIVE ? 2 : 1;
}

static int cmp_findings(const void *a, const void *b, void *ctx)
{
	const cg_diff *d = ctx;
	const cg_diff_finding *x = diff_finding(d, *(const size_t *)a);
	const cg_diff_finding *y = diff_finding(d, *(const size_t *)b);
	if (x->scope != y->scope)
		return x->scope < y->scope ? -1 : 1;
	int kx = finding_kind(x), ky = finding_kind(y);
	if (kx != ky)
		return kx - ky;
	if (x->item != y->item)
		return x->item < y->item ? -1 : 1;
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	return (ia > ib) - (ia < ib);
}

size_t *cg_diff_sorted_findings(const cg_diff *d)
{
	size_t n = d->nfindings;
	size_t *order = malloc((n ? n : 1) * sizeof *order);
	if (!order)
		return NULL;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof *order, cmp_findings, (void *)d);
	return order;
}

int cg_diff_same_subject(const cg_diff_finding *a, const cg_diff_finding *b)
{
	return a->scope == b->scope && finding_kind(a) == finding_kind(b) && a->item == b->item;
}

int cg_diff_finding_kind(const cg_diff_finding *f)
{
	return finding_kind(f);
}

static void tap_label(const cg_diff *d, const cg_diff_finding *f, char *buf, size_t n)
{
	char l1[200], l2[200];
	switch (finding_kind(f)) {
	case 0:
		snprintf(buf, n, "total");
		break;
	case 1:
		cg_diff_item_label(d, f->item, l1, sizeof l1);
		snprintf(buf, n, "function %s", l1);
		break;
	default:
		cg_diff_item_label(d, d->arcs[f->item].caller, l1, sizeof l1);
		cg_diff_item_label(d, d->arcs[f->item].callee, l2, sizeof l2);
		snprintf(buf, n, "arc %s -> %s", l1, l2);
	}
	/* '#' would start a TAP directive in the description. */
	for (char *c = buf; *c; c++)
		if (*c == '#')
			*c = '_';
}

int cg_diff_write_tap(const cg_diff *d, FILE *out)
{
	size_t n = d->nfindings;
	size_t *order = malloc((n ? n : 1) * sizeof *order);
	if (!order)
		return CG_ENOMEM;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof *order, cmp_findings, (void *)d);
	fprintf(out, "TAP version 13\n");
	size_t test = 0;
	char label[512];
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int bad = 0;
		const cg_diff_finding *first = diff_finding(d, order[i]);
		while (j < n) {
			const cg_diff_finding *f = diff_finding(d, order[j]);
			if (f->scope != first->scope || finding_kind(f) != finding_kind(first) ||
			    f->item != first->item)
				break;
			bad |= f->flagged;
			j++;
		}
		tap_label(d, first, label, sizeof label);
		fprintf(out, "%sok %zu - %s%s%s\n", bad ? "not " : "", ++test, label,
			first->scope ? " in " : "", first->scope ? d->scopes[first->scope].name : "");
		for (size_t k = i; k < j; k++) {
			const cg_diff_finding *f = diff_finding(d, order[k]);
			if (!f->flagged && !f->noise)
				continue;
			const char *ev = f->metric == CG_DIFF_CALLS || f->metric == CG_DIFF_ARC_CALLS
					 ? "" : d->events[f->event]->name;
			fprintf(out, "#   %s%s%s: %lld -> %lld: %s\n", cg_diff_metric_name(f->metric),
				*ev ? " " : "", ev,
				(long long)f->value.base, (long long)f->value.new_value, f->reason);
		}
		i = j;
	}
	fprintf(out, "1..%zu\n", test);
	free(order);
	return ferror(out) ? CG_EIO : 0;
}
