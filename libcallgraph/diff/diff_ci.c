/*
 * diff_ci.c — the reports CI systems read natively: JUnit XML (test
 * report widgets of Jenkins, GitLab, Azure, GitHub test-reporter
 * actions), GitHub Actions workflow commands (annotations at the
 * function's source line), a Markdown summary ($GITHUB_STEP_SUMMARY,
 * merge-request comments) and Bencher's BMF JSON (benchmark tracking).
 *
 * Every checked subject (a function, an arc, the total, per part) is one
 * test; it fails when one of its findings exceeded a limit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff_internal.h"

/* ---- escaping ------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s, 0 when invalid. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
		 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	if (n == 2 && s[0] < 0xc2)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* XML text or attribute value: markup escaped, characters XML 1.0
 * forbids (controls, broken UTF-8) written as '?'. */
static void xml_put(FILE *out, const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	while (*s) {
		size_t n = utf8_len(s);
		if (!n || (*s < 0x20 && *s != '\t' && *s != '\n')) {
			fputc('?', out);
			s++;
			continue;
		}
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\n': fputs("&#10;", out); break;
		case '\t': fputs("&#9;", out); break;
		default: fwrite(s, 1, n, out);
		}
		s += n;
	}
}

/* GitHub workflow command: data escapes %, CR, LF; properties also : and ,. */
static void gh_put(FILE *out, const char *s, int property)
{
	for (; *s; s++) {
		if (*s == '%')
			fputs("%25", out);
		else if (*s == '\r')
			fputs("%0D", out);
		else if (*s == '\n')
			fputs("%0A", out);
		else if (property && *s == ':')
			fputs("%3A", out);
		else if (property && *s == ',')
			fputs("%2C", out);
		else
			fputc(*s, out);
	}
}

/* Markdown table cell: '|' would end the cell, backticks the code span. */
static void md_code(FILE *out, const char *s)
{
	fputc('`', out);
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", out);
		else if (*s == '`')
			fputc('\'', out);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', out);
		else
			fputc(*s, out);
	}
	fputc('`', out);
}

static void json_put(FILE *out, const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	fputc('"', out);
	while (*s) {
		size_t n = utf8_len(s);
		if (!n) {
			fputc('?', out);
			s++;
			continue;
		}
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if (*s < 0x20)
			fprintf(out, "\\u%04x", *s);
		else
			fwrite(s, 1, n, out);
		s += n;
	}
	fputc('"', out);
}

/* ---- subjects ---------------------------------------------------------------------- */

struct subject {
	size_t first, end;      /* range in the sorted order */
	int failed, noisy;
	char label[600];        /* "function F", "arc A -> B", "total" (+ " in PART") */
	char name[600];         /* the same without the kind */
	const char *file;       /* source of the function (arc: caller) */
	uint32_t line;
};

static void describe(const cg_diff *d, const size_t *order, struct subject *s)
{
	const cg_diff_finding *f = diff_finding(d, order[s->first]);
	char l1[256], l2[256];
	const char *kind;
	s->file = NULL;
	s->line = 0;
	switch (cg_diff_finding_kind(f)) {
	case 0:
		kind = "total";
		snprintf(s->name, sizeof s->name, "total");
		break;
	case 1:
		kind = "function ";
		cg_diff_item_label(d, f->item, s->name, sizeof s->name);
		s->file = d->funcs[f->item].file;
		s->line = d->funcs[f->item].line;
		break;
	default:
		kind = "arc ";
		cg_diff_item_label(d, d->arcs[f->item].caller, l1, sizeof l1);
		cg_diff_item_label(d, d->arcs[f->item].callee, l2, sizeof l2);
		snprintf(s->name, sizeof s->name, "%s -> %s", l1, l2);
		s->file = d->funcs[d->arcs[f->item].caller].file;
		s->line = d->funcs[d->arcs[f->item].caller].line;
	}
	if (f->scope) {
		size_t used = strlen(s->name);
		snprintf(s->name + used, sizeof s->name - used, " in %s", d->scopes[f->scope].name);
	}
	snprintf(s->label, sizeof s->label, "%s%s", *kind == 't' ? "" : kind, s->name);
	s->failed = s->noisy = 0;
	for (size_t k = s->first; k < s->end; k++) {
		s->failed |= diff_finding(d, order[k])->flagged;
		s->noisy |= diff_finding(d, order[k])->noise;
	}
}

/* Calls fn for every subject, in the sorted order. */
static int each_subject(const cg_diff *d, int (*fn)(const cg_diff *, const size_t *,
						      const struct subject *, void *),
			void *ctx)
{
	size_t *order = cg_diff_sorted_findings(d);
	if (!order)
		return CG_ENOMEM;
	struct subject *s = malloc(sizeof *s);
	if (!s) {
		free(order);
		return CG_ENOMEM;
	}
	int rc = 0;
	for (size_t i = 0; i < d->nfindings && !rc;) {
		size_t j = i + 1;
		while (j < d->nfindings &&
		       cg_diff_same_subject(diff_finding(d, order[j]), diff_finding(d, order[i])))
			j++;
		s->first = i;
		s->end = j;
		describe(d, order, s);
		rc = fn(d, order, s, ctx);
		i = j;
	}
	free(s);
	free(order);
	return rc;
}

static const char *event_of(const cg_diff *d, const cg_diff_finding *f)
{
	return f->metric == CG_DIFF_CALLS || f->metric == CG_DIFF_ARC_CALLS
	       ? "calls" : d->events[f->event]->name;
}

static void relative_text(char *buf, size_t n, const cg_diff_value *v)
{
	if (!v->delta)
		snprintf(buf, n, "0%%");
	else if (isinf(v->relative))
		snprintf(buf, n, "new");
	else
		snprintf(buf, n, "%+.1f%%", v->relative * 100.0);
}

struct counts {
	size_t tests, failed, noisy;
};

static int count_subject(const cg_diff *d, const size_t *order, const struct subject *s, void *ctx)
{
	(void)d;
	(void)order;
	struct counts *c = ctx;
	c->tests++;
	c->failed += s->failed != 0;
	c->noisy += s->noisy && !s->failed;
	return 0;
}

/* ---- JUnit XML ---------------------------------------------------------------------- */

static int junit_case(const cg_diff *d, const size_t *order, const struct subject *s, void *ctx)
{
	FILE *out = ctx;
	const cg_diff_finding *first = diff_finding(d, order[s->first]);
	const char *cls = cg_diff_finding_kind(first) == 0 ? "cgdiff.total"
			: cg_diff_finding_kind(first) == 1 ? "cgdiff.function" : "cgdiff.arc";
	fprintf(out, "    <testcase classname=\"%s\" name=\"", cls);
	xml_put(out, s->name);
	fprintf(out, "\"");
	if (s->file) {
		fprintf(out, " file=\"");
		xml_put(out, s->file);
		fprintf(out, "\"");
		if (s->line)
			fprintf(out, " line=\"%u\"", (unsigned)s->line);
	}
	fprintf(out, " time=\"0\"");
	if (!s->failed && !s->noisy) {
		fprintf(out, "/>\n");
		return 0;
	}
	fprintf(out, ">\n");
	for (int pass = 0; pass < 2; pass++) {
		/* pass 0: the failure (JUnit allows one per test case), pass 1:
		 * changes explained by noise, as the test's output. */
		int opened = 0;
		for (size_t k = s->first; k < s->end; k++) {
			const cg_diff_finding *f = diff_finding(d, order[k]);
			if (pass == 0 ? !f->flagged : !f->noise)
				continue;
			char rel[32], line[700];
			relative_text(rel, sizeof rel, &f->value);
			snprintf(line, sizeof line, "%s %s: %lld -> %lld (%+lld, %s): %s",
				 cg_diff_metric_name(f->metric), event_of(d, f),
				 (long long)f->value.base, (long long)f->value.new_value,
				 (long long)f->value.delta, rel, f->reason);
			if (!opened) {
				if (pass == 0) {
					fprintf(out, "      <failure type=\"cgdiff.limit\" message=\"");
					xml_put(out, f->reason);
					fprintf(out, "\">");
				} else {
					fprintf(out, "      <system-out>");
				}
				opened = 1;
			}
			xml_put(out, line);
			xml_put(out, "\n");
		}
		if (opened)
			fprintf(out, pass == 0 ? "</failure>\n" : "</system-out>\n");
	}
	fprintf(out, "    </testcase>\n");
	return 0;
}

int cg_diff_write_junit(const cg_diff *d, FILE *out)
{
	struct counts c = { 0, 0, 0 };
	int rc = each_subject(d, count_subject, &c);
	if (rc)
		return rc;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(out, "<testsuites name=\"cgdiff\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
		     "time=\"0\">\n", c.tests, c.failed);
	fprintf(out, "  <testsuite name=\"cgdiff\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
		     "skipped=\"0\" time=\"0\">\n", c.tests, c.failed);
	fprintf(out, "    <properties>\n");
	for (unsigned r = 0; r < d->nrules; r++) {
		fprintf(out, "      <property name=\"rule\" value=\"");
		xml_put(out, d->rules[r].text);
		fprintf(out, "\"/>\n");
	}
	for (size_t k = 0; k < d->nchecked_ev; k++) {
		size_t e = d->checked_ev[k];
		fprintf(out, "      <property name=\"event\" value=\"");
		xml_put(out, d->events[e]->name);
		fprintf(out, " (%s)\"/>\n", cg_diff_event_kind_name(d->kind[e]));
	}
	fprintf(out, "      <property name=\"runs\" value=\"%zu+%zu\"/>\n", d->nruns[0], d->nruns[1]);
	fprintf(out, "    </properties>\n");
	rc = each_subject(d, junit_case, out);
	if (rc)
		return rc;
	fprintf(out, "  </testsuite>\n</testsuites>\n");
	return ferror(out) ? CG_EIO : 0;
}

/* ---- GitHub workflow commands ---------------------------------------------------------- */

static int github_subject(const cg_diff *d, const size_t *order, const struct subject *s,
			  void *ctx)
{
	FILE *out = ctx;
	for (size_t k = s->first; k < s->end; k++) {
		const cg_diff_finding *f = diff_finding(d, order[k]);
		if (!f->flagged && !f->noise)
			continue;
		fprintf(out, "::%s ", f->flagged ? "error" : "notice");
		if (s->file) {
			fprintf(out, "file=");
			gh_put(out, s->file, 1);
			if (s->line)
				fprintf(out, ",line=%u", (unsigned)s->line);
			fprintf(out, ",");
		}
		fprintf(out, "title=");
		char title[700];
		snprintf(title, sizeof title, "cgdiff: %s%s", s->label,
			 f->flagged ? "" : " (noise)");
		gh_put(out, title, 1);
		char rel[32], line[900];
		relative_text(rel, sizeof rel, &f->value);
		snprintf(line, sizeof line, "%s %s: %lld -> %lld (%+lld, %s): %s",
			 cg_diff_metric_name(f->metric), event_of(d, f), (long long)f->value.base,
			 (long long)f->value.new_value, (long long)f->value.delta, rel, f->reason);
		fprintf(out, "::");
		gh_put(out, line, 0);
		fprintf(out, "\n");
	}
	return 0;
}

int cg_diff_write_github(const cg_diff *d, FILE *out)
{
	struct counts c = { 0, 0, 0 };
	int rc = each_subject(d, count_subject, &c);
	if (!rc)
		rc = each_subject(d, github_subject, out);
	if (rc)
		return rc;
	if (c.failed)
		fprintf(out, "::error title=cgdiff::FAIL: %zu of %zu checks exceeded a limit\n",
			c.failed, c.tests);
	else
		fprintf(out, "::notice title=cgdiff::PASS: %zu checks within limits\n", c.tests);
	return ferror(out) ? CG_EIO : 0;
}

/* ---- Markdown ------------------------------------------------------------------------ */

static int markdown_row(const cg_diff *d, const size_t *order, const struct subject *s, void *ctx)
{
	FILE *out = ctx;
	for (size_t k = s->first; k < s->end; k++) {
		const cg_diff_finding *f = diff_finding(d, order[k]);
		if (!f->flagged && !f->noise)
			continue;
		char rel[32];
		relative_text(rel, sizeof rel, &f->value);
		fprintf(out, "| %s | ", f->flagged ? "**FAIL**" : "noise");
		md_code(out, s->label);
		fprintf(out, " | %s %s | %lld | %lld | %+lld (%s) | ", cg_diff_metric_name(f->metric),
			event_of(d, f), (long long)f->value.base, (long long)f->value.new_value,
			(long long)f->value.delta, rel);
		md_code(out, d->rules[f->rule].text);
		fprintf(out, " |\n");
	}
	return 0;
}

int cg_diff_write_markdown(const cg_diff *d, FILE *out)
{
	struct counts c = { 0, 0, 0 };
	int rc = each_subject(d, count_subject, &c);
	if (rc)
		return rc;
	fprintf(out, "### cgdiff: %s\n\n", c.failed ? "FAIL" : "PASS");
	for (size_t k = 0; k < d->nchecked_ev; k++) {
		size_t e = d->checked_ev[k];
		cg_diff_value v;
		char rel[32];
		cg_diff_value_get(d, 0, CG_DIFF_TOTAL, 0, e, &v);
		relative_text(rel, sizeof rel, &v);
		fprintf(out, "- total ");
		md_code(out, d->events[e]->name);
		fprintf(out, " (%s): %lld -> %lld (%+lld, %s)\n", cg_diff_event_kind_name(d->kind[e]),
			(long long)v.base, (long long)v.new_value, (long long)v.delta, rel);
	}
	if (d->nruns[0] > 1 || d->nruns[1] > 1)
		fprintf(out, "- runs: %zu base, %zu new (medians; Mann-Whitney test, false-alarm "
			     "rate %g)\n", d->nruns[0], d->nruns[1], d->alpha);
	fprintf(out, "- rules:");
	for (unsigned r = 0; r < d->nrules; r++) {
		fprintf(out, " ");
		md_code(out, d->rules[r].text);
	}
	fprintf(out, "\n\n");
	if (!c.failed && !c.noisy) {
		fprintf(out, "No limit exceeded: %zu checks within limits.\n", c.tests);
		return ferror(out) ? CG_EIO : 0;
	}
	fprintf(out, "%zu of %zu checks exceeded a limit%s.\n\n", c.failed, c.tests,
		c.noisy ? "; changes within noise are marked noise" : "");
	fprintf(out, "| | check | metric | base | new | change | rule |\n");
	fprintf(out, "|---|---|---|---:|---:|---:|---|\n");
	rc = each_subject(d, markdown_row, out);
	if (rc)
		return rc;
	return ferror(out) ? CG_EIO : 0;
}

/* ---- Bencher Metric Format -------------------------------------------------------------- */

/* One measure: the (median) new value, with the runs' range when repeated. */
static void bmf_measure(const cg_diff *d, FILE *out, const char *name, int metric, size_t item,
			size_t event, int64_t value, int *first)
{
	fprintf(out, "%s\n    ", *first ? "" : ",");
	*first = 0;
	json_put(out, name);
	fprintf(out, ": { \"value\": %lld", (long long)value);
	if (d->nruns[1] > 1) {
		int64_t lo = INT64_MAX, hi = INT64_MIN, v;
		for (size_t r = 0; r < d->nruns[1]; r++) {
			cg_diff_run_value(d, 0, metric, item, event, 1, r, &v);
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		fprintf(out, ", \"lower_value\": %lld, \"upper_value\": %lld", (long long)lo,
			(long long)hi);
	}
	fprintf(out, " }");
}

int cg_diff_write_bmf(const cg_diff *d, FILE *out)
{
	char label[600], measure[200];
	cg_diff_value v;
	int first_bench = 1;
	fprintf(out, "{");
	for (size_t i = 0; i <= d->nfuncs; i++) {
		/* i == nfuncs: the whole profile */
		int is_total = i == d->nfuncs;
		if (!is_total && !d->funcs[i].in_new)
			continue;
		if (is_total)
			snprintf(label, sizeof label, "total");
		else
			cg_diff_item_label(d, i, label, sizeof label);
		fprintf(out, "%s\n  ", first_bench ? "" : ",");
		first_bench = 0;
		json_put(out, label);
		fprintf(out, ": {");
		int first = 1;
		for (size_t e = 0; e < d->nev; e++) {
			int metric = is_total ? CG_DIFF_TOTAL : CG_DIFF_SELF;
			cg_diff_value_get(d, 0, metric, is_total ? 0 : i, e, &v);
			snprintf(measure, sizeof measure, "%s%s", is_total ? "" : "self-",
				 d->events[e]->name);
			bmf_measure(d, out, measure, metric, is_total ? 0 : i, e, v.new_value, &first);
			if (is_total)
				continue;
			cg_diff_value_get(d, 0, CG_DIFF_INCLUSIVE, i, e, &v);
			if (!v.known)
				continue;
			snprintf(measure, sizeof measure, "inclusive-%s", d->events[e]->name);
			bmf_measure(d, out, measure, CG_DIFF_INCLUSIVE, i, e, v.new_value, &first);
		}
		if (!is_total) {
			cg_diff_value_get(d, 0, CG_DIFF_CALLS, i, 0, &v);
			bmf_measure(d, out, "calls", CG_DIFF_CALLS, i, 0, v.new_value, &first);
		}
		fprintf(out, "\n  }");
	}
	fprintf(out, "\n}\n");
	return ferror(out) ? CG_EIO : 0;
}
