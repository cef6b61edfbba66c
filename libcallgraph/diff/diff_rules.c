/*
 * diff_rules.c — parsing --fail rules and judging every item against them,
 * with the noise test for sampled events.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "budget.h"
#include "diff_internal.h"

static const char *const default_rules[] = { "self>5%", "calls>0", "arcs>0" };

static char *dup_range(const char *s, size_t n)
{
	char *r = malloc(n + 1);
	if (r) {
		memcpy(r, s, n);
		r[n] = '\0';
	}
	return r;
}

static int parse_metric(const char *w, size_t n)
{
	static const struct { const char *name; int metric; } names[] = {
		{ "self", CG_DIFF_SELF }, { "inclusive", CG_DIFF_INCLUSIVE },
		{ "incl", CG_DIFF_INCLUSIVE }, { "calls", CG_DIFF_CALLS },
		{ "arcs", CG_DIFF_ARC_CALLS }, { "arc", CG_DIFF_ARC_CALLS },
		{ "total", CG_DIFF_TOTAL },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i].name) == n && memcmp(names[i].name, w, n) == 0)
			return names[i].metric;
	return -1;
}

static int rule_error(cg_error *err, const char *text, size_t at, const char *why)
{
	return cg_error_set(err, CG_EUSAGE, "rule '%s': at character %zu: %s", text, at + 1, why);
}

static int parse_rule(const cg_diff *d, const char *text, struct diff_rule *r, cg_error *err)
{
	memset(r, 0, sizeof *r);
	r->event = -1;
	const char *s = text;
	while (isspace((unsigned char)*s))
		s++;
	const char *w = s;
	while (isalpha((unsigned char)*s))
		s++;
	r->metric = parse_metric(w, (size_t)(s - w));
	if (r->metric < 0)
		return rule_error(err, text, (size_t)(w - text),
				  "expected self, inclusive, calls, arcs or total");
	if (*s == '(') {
		const char *end = strchr(s, ')');
		if (!end)
			return rule_error(err, text, (size_t)(s - text), "missing ')'");
		const char *slash = r->metric == CG_DIFF_ARC_CALLS ? memchr(s + 1, '/', (size_t)(end - s - 1)) : NULL;
		if (slash) {
			r->pattern = dup_range(s + 1, (size_t)(slash - s - 1));
			r->pattern2 = dup_range(slash + 1, (size_t)(end - slash - 1));
			if (!r->pattern || !r->pattern2)
				return cg_error_set(err, CG_ENOMEM, "out of memory");
		} else if (!(r->pattern = dup_range(s + 1, (size_t)(end - s - 1)))) {
			return cg_error_set(err, CG_ENOMEM, "out of memory");
		}
		if (r->metric == CG_DIFF_TOTAL)
			return rule_error(err, text, (size_t)(s - text), "total takes no function pattern");
		s = end + 1;
	}
	if (*s == '[') {
		const char *end = strchr(s, ']');
		if (!end)
			return rule_error(err, text, (size_t)(s - text), "missing ']'");
		char name[128];
		snprintf(name, sizeof name, "%.*s", (int)(end - s - 1), s + 1);
		r->event = cg_diff_find_event(d, name);
		if (r->event < 0)
			return cg_error_set(err, CG_EUSAGE, "rule '%s': no event '%s' in both profiles",
					    text, name);
		s = end + 1;
	}
	while (isspace((unsigned char)*s))
		s++;
	if (s[0] == '<' && s[1] == '>') {
		r->both_ways = 1;
		s += 2;
	} else if (s[0] == '>') {
		s++;
	} else {
		return rule_error(err, text, (size_t)(s - text), "expected '>' or '<>'");
	}
	while (isspace((unsigned char)*s))
		s++;
	/* Digits with an optional fraction, kept as an exact decimal so that
	 * "5%" means exactly 5%: a change of exactly the limit passes. */
	const char *num = s;
	int64_t mant = 0;
	int decimals = -1, digits = 0;
	for (;; s++) {
		if (*s == '.' && decimals < 0) {
			decimals = 0;
			continue;
		}
		if (!isdigit((unsigned char)*s))
			break;
		if (mant > (INT64_MAX - 9) / 10 || decimals >= 9)
			return rule_error(err, text, (size_t)(num - text),
					  "the limit has too many digits (at most 9 decimals)");
		mant = mant * 10 + (*s - '0');
		digits++;
		if (decimals >= 0)
			decimals++;
	}
	if (!digits)
		return rule_error(err, text, (size_t)(num - text),
				  "expected a non-negative decimal number");
	r->mantissa = mant;
	r->decimals = decimals < 0 ? 0 : decimals;
	r->value = (double)mant;
	for (int i = 0; i < r->decimals; i++)
		r->value /= 10;
	static const struct { const char *unit; double scale; } units[] = {
		{ "ns", 1e-9 }, { "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1.0 },
	};
	if (*s == '%') {
		r->percent = 1;
		s++;
	} else {
		for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
			size_t n = strlen(units[i].unit);
			if (strncmp(s, units[i].unit, n) == 0) {
				r->time_scale = units[i].scale;
				s += n;
				break;
			}
		}
		if (r->time_scale && (r->metric == CG_DIFF_CALLS || r->metric == CG_DIFF_ARC_CALLS))
			return rule_error(err, text, (size_t)(s - text), "call counts take no time unit");
	}
	while (isspace((unsigned char)*s))
		s++;
	if (*s)
		return rule_error(err, text, (size_t)(s - text), "unexpected text after the value");
	if (!(r->text = dup_range(text, strlen(text))))
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	char within[256];
	snprintf(within, sizeof within, "rule '%s': within limits", text);
	if (!(r->within = strdup(within)))
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	return 0;
}

static int matches(const char *pattern, const char *name)
{
	return !pattern || fnmatch(pattern, name, 0) == 0;
}

static int add_finding(cg_diff *d, const cg_diff_finding *f)
{
	if (d->nfindings == d->nfinding_chunks * DIFF_FINDING_CHUNK) {
		size_t bytes = DIFF_FINDING_CHUNK * sizeof *f;
		if (cg_array_grow((void **)&d->finding_chunks, &d->finding_chunkcap,
				  d->nfinding_chunks + 1, sizeof *d->finding_chunks, 16) ||
		    cg_budget_take(bytes))
			return CG_ENOMEM;
		cg_diff_finding *chunk = malloc(bytes);
		if (!chunk) {
			cg_budget_give(bytes);
			return CG_ENOMEM;
		}
		d->finding_chunks[d->nfinding_chunks++] = chunk;
	}
	*diff_finding(d, d->nfindings++) = *f;
	return 0;
}

static int is_literal(const char *pattern)
{
	return pattern && !strpbrk(pattern, "*?[\\");
}

static int ignored(const cg_diff *d, const char *name)
{
	for (size_t i = 0; i < d->opts.nignore; i++)
		if (fnmatch(d->opts.ignore[i], name, 0) == 0)
			return 1;
	return 0;
}

/* change > mantissa / 10^decimals * (percent ? |base| / 100 : 1), exactly. */
static int over_limit(const struct diff_rule *r, int64_t change, int64_t base)
{
	__int128 lhs = (__int128)change, rhs = (__int128)r->mantissa;
	for (int i = 0; i < r->decimals; i++)
		lhs *= 10;
	if (r->percent) {
		lhs *= 100;
		rhs *= base < 0 ? -(__int128)base : (__int128)base;
	}
	return lhs > rhs;
}

static int noisy_metric(int metric)
{
	return metric == CG_DIFF_SELF || metric == CG_DIFF_INCLUSIVE || metric == CG_DIFF_TOTAL ||
	       metric == CG_DIFF_ARC_INCLUSIVE;
}

/* Judges one value against one rule; returns 1 when the item was checked. */
static int keep_reason(cg_diff *d, cg_diff_finding *f, const char *reason)
{
	if (d->nreasons == d->reasoncap) {
		size_t n = d->reasoncap ? d->reasoncap * 2 : 64;
		char **p = realloc(d->reasons, n * sizeof *p);
		if (!p)
			return CG_ENOMEM;
		d->reasons = p;
		d->reasoncap = n;
	}
	if (!(d->reasons[d->nreasons] = strdup(reason)))
		return CG_ENOMEM;
	f->reason = d->reasons[d->nreasons++];
	return 0;
}

static void limit_text(const cg_diff *d, const struct diff_rule *r, size_t event, char *buf,
		       size_t n)
{
	if (r->percent)
		snprintf(buf, n, "%g%%", r->value);
	else if (r->time_scale)
		snprintf(buf, n, "%g", r->value * r->time_scale / d->events[event]->unit_seconds);
	else
		snprintf(buf, n, "%g", r->value);
}

/* Values of one finding over the runs of a side. */
static int run_values(const cg_diff *d, const cg_diff_finding *f, int side, int64_t *out)
{
	for (size_t r = 0; r < d->nruns[side]; r++)
		if (cg_diff_run_value(d, f->scope, f->metric, f->item, f->event, side, r, &out[r]))
			return -1;
	return 0;
}

static int varies(const int64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i] != v[0])
			return 1;
	return 0;
}

/* Smallest increase D of a base count b that the Poisson test flags:
 * D > z * sqrt(2b + D). */
static double detectable_increase(double z, double b)
{
	return (z * z + sqrt(z * z * z * z + 8 * z * z * b)) / 2;
}

static int judge(cg_diff *d, const struct diff_rule *r, size_t event, cg_diff_finding *f)
{
	const cg_diff_value *v = &f->value;
	if (!v->known || (v->base == 0 && v->new_value == 0))
		return 0;
	int64_t change = r->both_ways ? (v->delta < 0 ? -v->delta : v->delta) : v->delta;
	int exceeded;
	if (r->percent) {
		exceeded = v->base == 0 ? change > 0 : over_limit(r, change, v->base);
	} else if (r->time_scale) {
		double units = r->value * r->time_scale / d->events[event]->unit_seconds;
		exceeded = (double)change > units;
	} else {
		exceeded = over_limit(r, change, 1);
	}
	int kind = f->metric == CG_DIFF_CALLS || f->metric == CG_DIFF_ARC_CALLS
		   ? CG_DIFF_EXACT : d->kind[event];
	f->noise_bound = 0;
	f->p_value = -1;
	f->detectable = 0;
	if (d->nruns[0] > 1 && d->nruns[1] > 1) {
		/* Repeated runs: time, and counts that vary between runs, are
		 * judged by the rank test in finish_tests(). */
		int64_t *bv = malloc(d->nruns[0] * sizeof *bv), *nv = malloc(d->nruns[1] * sizeof *nv);
		int rc = !bv || !nv || run_values(d, f, 0, bv) || run_values(d, f, 1, nv);
		if (!rc && ((kind != CG_DIFF_EXACT && noisy_metric(f->metric)) ||
			    varies(bv, d->nruns[0]) || varies(nv, d->nruns[1]))) {
			f->p_value = cg_diff_mann_whitney(bv, d->nruns[0], nv, d->nruns[1], !r->both_ways);
			rc = f->p_value < 0;
		}
		free(bv);
		free(nv);
		if (rc)
			return CG_ENOMEM;
	}
	if (f->p_value >= 0) {
		/* Decided once every value's p is known (the false-alarm rate is
		 * shared by all of them). */
		f->flagged = 0;
		f->noise = 0;
		f->reason = r->within;
		return exceeded ? 2 : 1;
	}
	if (kind == CG_DIFF_SAMPLED && noisy_metric(f->metric)) {
		f->noise_bound = d->z * sqrt(fabs((double)v->base) + fabs((double)v->new_value));
		f->detectable = detectable_increase(d->z, fabs((double)v->base));
	}
	f->noise = exceeded && fabs((double)v->delta) <= f->noise_bound;
	f->flagged = exceeded && !f->noise;
	const char *ev = f->metric == CG_DIFF_CALLS || f->metric == CG_DIFF_ARC_CALLS
			 ? "calls" : d->events[event]->name;
	f->reason = r->within;
	if (!f->flagged && !f->noise)
		return 1;
	/* only the few values over their limit need the text (formatting it
	 * for every checked value took a tenth of a large comparison) */
	char limit[64];
	limit_text(d, r, event, limit, sizeof limit);
	char reason[320];
	if (f->flagged && kind == CG_DIFF_SAMPLED)
		snprintf(reason, sizeof reason,
			 "rule '%s': %+lld %s exceeds %s and the sampling noise %.1f (z=%g)",
			 r->text, (long long)v->delta, ev, limit, f->noise_bound, d->z);
	else if (f->flagged)
		snprintf(reason, sizeof reason, "rule '%s': %+lld %s exceeds %s (%s: any change is real)",
			 r->text, (long long)v->delta, ev, limit, cg_diff_event_kind_name(kind));
	else
		snprintf(reason, sizeof reason,
			 "rule '%s': %+lld %s exceeds %s but is within sampling noise %.1f (z=%g)",
			 r->text, (long long)v->delta, ev, limit, f->noise_bound, d->z);
	if (f->noise) {
		size_t used = strlen(reason);
		snprintf(reason + used, sizeof reason - used,
			 "; it could only detect an increase over %.0f %s (%+.0f%%)", f->detectable, ev,
			 v->base ? 100 * f->detectable / fabs((double)v->base) : INFINITY);
	}
	return keep_reason(d, f, reason) ? CG_ENOMEM : 1;
}

/* A function a rule names literally that the base has and the new
 * profile lacks: the build lost it (or renamed it): fail closed. */
static int judge_missing(cg_diff *d, const struct diff_rule *r, cg_diff_finding *f)
{
	char reason[320];
	snprintf(reason, sizeof reason,
		 "rule '%s': %s is in the base but missing from the new profile", r->text,
		 d->funcs[f->item].name);
	f->flagged = 1;
	f->noise = 0;
	f->noise_bound = 0;
	f->p_value = -1;
	f->detectable = 0;
	return keep_reason(d, f, reason) ? CG_ENOMEM : 1;
}

/* Repeated runs: flags the values over their rule's limit whose rank test
 * is significant at alpha / m, m the number of values tested (Bonferroni:
 * the chance of any false alarm in the whole comparison stays <= alpha). */
static int finish_tests(cg_diff *d, int *flagged, cg_error *err)
{
	size_t m = 0;
	int two_sided = 0;
	for (size_t i = 0; i < d->nfindings; i++)
		if (diff_finding(d, i)->p_value >= 0) {
			m++;
			two_sided |= d->rules[diff_finding(d, i)->rule].both_ways;
		}
	if (!m)
		return 0;
	double level = d->alpha / (double)m;
	if (cg_diff_min_p(d->nruns[0], d->nruns[1], !two_sided) > level) {
		size_t need = 2;
		while (cg_diff_min_p(need, need, !two_sided) > level)
			need++;
		return cg_error_set(err, CG_EUSAGE,
				    "%zu base and %zu new runs cannot show any change among %zu values "
				    "that vary at the false-alarm rate %g: use at least %zu runs per side",
				    d->nruns[0], d->nruns[1], m, d->alpha, need);
	}
	for (size_t i = 0; i < d->nfindings; i++) {
		cg_diff_finding *f = diff_finding(d, i);
		if (f->p_value < 0 || !d->exceeded[i])
			continue;
		const struct diff_rule *r = &d->rules[f->rule];
		char limit[64], reason[320];
		limit_text(d, r, f->event, limit, sizeof limit);
		f->flagged = f->p_value <= level;
		f->noise = !f->flagged;
		*flagged += f->flagged;
		const char *ev = f->metric == CG_DIFF_CALLS || f->metric == CG_DIFF_ARC_CALLS
				 ? "calls" : d->events[f->event]->name;
		snprintf(reason, sizeof reason,
			 "rule '%s': median %+lld %s exceeds %s %s Mann-Whitney p=%.2g %s %.2g "
			 "(%zu+%zu runs, %zu values tested)",
			 r->text, (long long)f->value.delta, ev, limit, f->flagged ? "and" : "but",
			 f->p_value, f->flagged ? "<=" : ">", level, d->nruns[0], d->nruns[1], m);
		if (keep_reason(d, f, reason))
			return cg_error_set(err, CG_ENOMEM, "out of memory");
	}
	return 0;
}

static int record(cg_diff *d, const cg_diff_finding *f, int exceeded)
{
	if (add_finding(d, f))
		return CG_ENOMEM;
	if (d->nfindings > d->exceededcap) {
		size_t n = d->nfinding_chunks * DIFF_FINDING_CHUNK;
		unsigned char *p = realloc(d->exceeded, n);
		if (!p)
			return CG_ENOMEM;
		d->exceeded = p;
		d->exceededcap = n;
	}
	d->exceeded[d->nfindings - 1] = (unsigned char)exceeded;
	return 0;
}

static int check_rule(cg_diff *d, unsigned ri, size_t event, int *flagged, size_t *matched)
{
	const struct diff_rule *r = &d->rules[ri];
	for (unsigned scope = 0; scope < d->nscopes; scope++) {
		cg_diff_finding f;
		memset(&f, 0, sizeof f);
		f.rule = ri;
		f.scope = scope;
		f.metric = r->metric;
		f.event = event;
		size_t n = r->metric == CG_DIFF_TOTAL ? 1
			 : r->metric == CG_DIFF_ARC_CALLS ? d->narcs : d->nfuncs;
		for (size_t i = 0; i < n; i++) {
			if (r->metric == CG_DIFF_ARC_CALLS) {
				const char *a = d->funcs[d->arcs[i].caller].name;
				const char *b = d->funcs[d->arcs[i].callee].name;
				if (r->pattern2 ? !(matches(r->pattern, a) && matches(r->pattern2, b))
						: !(matches(r->pattern, a) || matches(r->pattern, b)))
					continue;
				(*matched)++;
				if (ignored(d, a) || ignored(d, b))
					continue;
			} else if (r->metric != CG_DIFF_TOTAL) {
				if (!matches(r->pattern, d->funcs[i].name))
					continue;
				(*matched)++;
				/* A rule that names a function literally checks it
				 * even when ignored: its own tolerance. */
				if (ignored(d, d->funcs[i].name) &&
				    !(is_literal(r->pattern) && strcmp(r->pattern, d->funcs[i].name) == 0))
					continue;
			}
			f.item = i;
			cg_diff_value_get(d, scope, r->metric, i, event, &f.value);
			int checked;
			if (r->metric != CG_DIFF_TOTAL && r->metric != CG_DIFF_ARC_CALLS &&
			    is_literal(r->pattern) && d->funcs[i].in_base && !d->funcs[i].in_new)
				checked = judge_missing(d, r, &f);
			else
				checked = judge(d, r, event, &f);
			if (checked < 0)
				return checked;
			if (!checked)
				continue;
			if (record(d, &f, checked == 2))
				return CG_ENOMEM;
			*flagged += f.flagged;
		}
	}
	return 0;
}

void cg_diff_clear_rules(cg_diff *d)
{
	for (unsigned r = 0; r < d->nrules; r++) {
		free(d->rules[r].text);
		free(d->rules[r].pattern);
		free(d->rules[r].pattern2);
		free(d->rules[r].within);
	}
	free(d->rules);
	d->rules = NULL;
	d->nrules = 0;
	d->nfindings = 0;
	for (size_t i = 0; i < d->nreasons; i++)
		free(d->reasons[i]);
	d->nreasons = 0;
}

int cg_diff_check(cg_diff *d, const char *const *rules, size_t nrules,
		  const char *const *events, size_t nevents, cg_error *err)
{
	cg_diff_clear_rules(d);
	if (!nrules) {
		rules = default_rules;
		nrules = sizeof default_rules / sizeof default_rules[0];
	}
	d->nchecked_ev = 0;
	for (size_t i = 0; i < nevents; i++) {
		int e = cg_diff_find_event(d, events[i]);
		if (e < 0)
			return cg_error_set(err, CG_EUSAGE, "no event '%s' in both profiles", events[i]);
		if (d->nchecked_ev < CG_MAX_EVENTS)
			d->checked_ev[d->nchecked_ev++] = (size_t)e;
	}
	if (!d->nchecked_ev)
		d->checked_ev[d->nchecked_ev++] = 0;
	d->rules = calloc(nrules, sizeof *d->rules);
	if (!d->rules)
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	for (size_t i = 0; i < nrules; i++) {
		d->nrules++;
		int rc = parse_rule(d, rules[i], &d->rules[i], err);
		if (rc) {
			cg_diff_clear_rules(d);
			return rc;
		}
	}
	int flagged = 0;
	for (unsigned ri = 0; ri < d->nrules; ri++) {
		const struct diff_rule *r = &d->rules[ri];
		size_t nev = r->event >= 0 || r->metric == CG_DIFF_CALLS ||
			     r->metric == CG_DIFF_ARC_CALLS ? 1 : d->nchecked_ev;
		for (size_t k = 0; k < nev; k++) {
			size_t ev = r->event >= 0 ? (size_t)r->event : d->checked_ev[k];
			if (r->time_scale && d->events[ev]->unit_seconds <= 0) {
				cg_error_set(err, CG_EUSAGE, "rule '%s': event '%s' does not measure time",
					     r->text, d->events[ev]->name);
				cg_diff_clear_rules(d);
				return CG_EUSAGE;
			}
			size_t matched = 0;
			if (check_rule(d, ri, ev, &flagged, &matched)) {
				cg_diff_clear_rules(d);
				return cg_error_set(err, CG_ENOMEM, "out of memory");
			}
			/* A pattern that names nothing would pass silently. */
			if (r->pattern && !matched) {
				cg_error_set(err, CG_EUSAGE,
					     "rule '%s': '%s%s%s' matches no %s in either profile",
					     r->text, r->pattern, r->pattern2 ? "/" : "",
					     r->pattern2 ? r->pattern2 : "",
					     r->metric == CG_DIFF_ARC_CALLS ? "arc" : "function");
				cg_diff_clear_rules(d);
				return CG_EUSAGE;
			}
		}
	}
	int rc = finish_tests(d, &flagged, err);
	if (rc) {
		cg_diff_clear_rules(d);
		return rc;
	}
	return flagged;
}

size_t cg_diff_finding_count(const cg_diff *d) { return d->nfindings; }

const cg_diff_finding *cg_diff_finding_at(const cg_diff *d, size_t i)
{
	return i < d->nfindings ? diff_finding(d, i) : NULL;
}

const char *cg_diff_rule_text(const cg_diff *d, unsigned rule)
{
	return rule < d->nrules ? d->rules[rule].text : NULL;
}

size_t cg_diff_checked_event_count(const cg_diff *d) { return d->nchecked_ev; }

size_t cg_diff_checked_event(const cg_diff *d, size_t i)
{
	return i < d->nchecked_ev ? d->checked_ev[i] : 0;
}
