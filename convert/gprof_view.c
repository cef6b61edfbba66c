/*
 * gprof_view.c — gprof's reports for any profile: part selection, event,
 * threshold (see gprof_view.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gprof_view.h"

int gprof_view_parse_threshold(const char *arg, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (end != arg && *end == '%')
		end++;
	if (errno || end == arg || *end || !(v >= 0 && v <= 100))
		return -1;
	*out = v;
	return 0;
}

/* The part names, for messages: "1 (thread 0), 2 (thread 1)". */
static void list_parts(const cg_profile *p, char *buf, size_t size)
{
	size_t used = 0, n = cg_profile_part_count(p);
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < size; i++) {
		const char *name = cg_profile_part_name(p, (unsigned)i);
		int w = snprintf(buf + used, size - used, "%s%zu (%s)", i ? ", " : "", i + 1,
				 name && *name ? name : "unnamed");
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* The part `sel` names: a 1-based number or a part's name. */
static int find_part(const cg_profile *p, const char *sel, unsigned *out, cg_error *err)
{
	size_t n = cg_profile_part_count(p);
	char *end;
	errno = 0;
	unsigned long k = strtoul(sel, &end, 10);
	if (!errno && end != sel && !*end && sel[0] != '-' && k >= 1 && k <= n) {
		*out = (unsigned)(k - 1);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = cg_profile_part_name(p, (unsigned)i);
		if (name && strcmp(name, sel) == 0) {
			*out = (unsigned)i;
			return 0;
		}
	}
	char parts[1024];
	list_parts(p, parts, sizeof parts);
	return cg_error_set(err, CG_EUSAGE, "no part '%s' in the profile (--part=all or one of: %s)",
			    sel, parts);
}

/* Specs leaving out of the call graph (gprof's -e: times still
 * propagate, percentages stay those of the whole profile) every function
 * whose self and children time is below the threshold; appended
 * to the user's specs in *specs (malloc'ed), names kept alive by p. */
static int threshold_specs(const cg_profile *p, unsigned part, const gprof_view *v,
			   cg_gprof_symspec **specs, size_t *nspecs, cg_error *err)
{
	cg_gprof_analysis *a;
	int rc = cg_gprof_analyze(&a, p, part, &v->report, err);
	if (rc)
		return rc;
	size_t nf = cg_profile_function_count(p);
	double total = 0;
	cg_gprof_function_info info;
	for (size_t f = 0; f < nf; f++)
		if (cg_gprof_function(a, (cg_fid)f, &info) == 0)
			total += info.self_seconds;
	size_t n = v->report.nspecs;
	cg_gprof_symspec *s = malloc((n + nf + 1) * sizeof *s);
	if (!s) {
		cg_gprof_analysis_free(a);
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	}
	if (n)
		memcpy(s, v->report.specs, n * sizeof *s);
	for (size_t f = 0; f < nf; f++) {
		if (cg_gprof_function(a, (cg_fid)f, &info) != 0)
			continue;
		double share = total > 0 ? 100.0 * (info.self_seconds + info.child_seconds) / total : 0;
		if (share >= v->threshold)
			continue;
		const char *name = cg_profile_function(p, (cg_fid)f)->name;
		s[n].table = CG_GPROF_EXCL_GRAPH;
		s[n++].spec = name;
	}
	cg_gprof_analysis_free(a);
	*specs = s;
	*nspecs = n;
	return 0;
}

int gprof_view_print(const cg_profile *p, const gprof_view *v, FILE *out, cg_error *err)
{
	cg_gprof_options g = v->report;
	unsigned sections = v->sections ? v->sections : CG_GPROF_FLAT | CG_GPROF_GRAPH;
	const cg_profile *shown = p;
	cg_profile *merged = NULL;
	cg_gprof_symspec *specs = NULL;
	unsigned part = 0;
	int rc = 0;
	if (v->event) {
		int e = cg_profile_find_event(p, v->event);
		if (e < 0) {
			char names[512] = "";
			size_t used = 0;
			for (size_t i = 0; i < cg_profile_event_count(p) && used < sizeof names; i++) {
				int w = snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
						 cg_profile_event(p, i)->name);
				if (w > 0)
					used += (size_t)w;
			}
			return cg_error_set(err, CG_EUSAGE, "no event '%s' in the profile (one of: %s)",
					    v->event, names);
		}
		g.event = (unsigned)e;
	}
	if (v->part && strcmp(v->part, "all") != 0) {
		rc = find_part(p, v->part, &part, err);
	} else if (cg_profile_part_count(p) > 1) {
		rc = cg_profile_merge_parts(&merged, p, err);
		shown = merged;
	}
	if (!rc && v->threshold > 0) {
		size_t n = 0;
		rc = threshold_specs(shown, part, v, &specs, &n, err);
		if (!rc) {
			g.specs = specs;
			g.nspecs = n;
		}
	}
	if (!rc)
		rc = cg_gprof_report(shown, part, sections, &g, out, err);
	free(specs);
	cg_profile_free(merged);
	return rc;
}
