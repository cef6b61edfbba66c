/*
 * gprof_analyze.c — builds gprof's view of a profile part: symbols, self
 * times, arcs (after the arc tables) and their lists, then runs the cycle
 * search and the propagation.  Also the public accessors.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gprof_internal.h"
#include "options.h"

static int meta_double(const cg_profile *p, const char *key, double *out)
{
	const char *v = cg_profile_meta(p, key);
	if (!v || !*v)
		return 0;
	char *end;
	double d = strtod(v, &end);
	if (*end)
		return 0;
	*out = d;
	return 1;
}

static int build_symbols(cg_gprof_analysis *a, cg_error *err)
{
	const cg_profile *p = a->profile;
	a->nfuncs = cg_profile_function_count(p);
	a->sym_of_fid = malloc((a->nfuncs + 1) * sizeof *a->sym_of_fid);
	a->syms = calloc(a->nfuncs + 1, sizeof *a->syms);
	if (!a->sym_of_fid || !a->syms)
		return cg_error_set(err, CG_ENOMEM, "gprof: out of memory");
	uint32_t n = 0;
	for (size_t f = 0; f < a->nfuncs; f++) {
		const cg_function *fn = cg_profile_function(p, (cg_fid)f);
		if (fn->flags & CG_FN_SPONTANEOUS) {
			a->sym_of_fid[f] = GP_NONE;
			continue;
		}
		gp_sym *s = &a->syms[n];
		s->name = fn->name;
		s->file = fn->file;
		s->line = fn->line;
		s->flags = fn->flags;
		s->addr = fn->addr;
		s->end = fn->end;
		s->fid = (cg_fid)f;
		a->sym_of_fid[f] = n++;
	}
	a->nsyms = n;
	return 0;
}

/* Self times in ticks and gprof's total_time, with the flat tables
 * applied as gprof applies them while assigning histogram samples. */
static void assign_times(cg_gprof_analysis *a)
{
	const cg_profile *p = a->profile;
	unsigned part = a->part;
	int exact = a->opts.event == 0 && cg_profile_has_self_exact(p, part);
	size_t nev = cg_profile_event_count(p);
	unsigned ev = a->opts.event;
	double sum = 0.0;
	for (uint32_t i = 0; i < a->nsyms; i++) {
		gp_sym *s = &a->syms[i];
		if (exact)
			s->time = cg_profile_self_exact(p, part, s->fid);
		else if (nev)
			s->time = (double)cg_profile_self(p, part, s->fid)[ev];
		sum += s->time;
	}
	/* A reader that applied the flat tables (cg_gprof_flat_filter) gives
	 * gprof's exact total, and excluded functions have no time, so the
	 * subtraction below changes nothing; otherwise it takes their time
	 * out here. */
	const cg_gmon_info *gi = cg_profile_gmon_info(p);
	double total = gi ? gi->total_time : sum;
	for (uint32_t i = 0; i < a->nsyms; i++) {
		if (!cg_gp_passes(a, CG_GPROF_INCL_FLAT, i)) {
			total -= a->syms[i].time;
			a->syms[i].time = 0.0;
		}
	}
	a->total_time = total;

	/* One tick's length: the gmon "hz", else the event's unit. */
	const cg_event *e = nev ? cg_profile_event(p, ev) : NULL;
	double hz = 1.0;
	if (e && e->unit_seconds > 0)
		hz = 1.0 / e->unit_seconds;
	int gmon = gi != NULL;
	/* A gmon file's rate is gprof's whatever it says; other inputs (the
	 * collector writes "hz 0" in call-count mode) only override the
	 * event's unit with a real rate. */
	double meta_hz;
	int has_hz = meta_double(p, "hz", &meta_hz) && (gmon || meta_hz > 0);
	if (has_hz)
		hz = meta_hz;
	a->has_histogram = gi ? gi->has_histogram : 1;
	a->has_arcs = gi ? gi->has_arcs : 1;
	if (gmon && !a->has_histogram)
		hz = 0.0;          /* gprof never learnt hz: times print as -nan */
	a->hz = hz;
	a->scale = gi ? gi->scale : 0.0;
	if (!isfinite(a->scale) || a->scale < 0 || a->scale > 1e15)
		a->scale = 0.0;
	/* An event that is not time prints in its own units, named after it
	 * (its first letter in the per-call unit, as "s" stands for seconds). */
	a->raw_units = e && e->unit_seconds == 0 && !gmon && !has_hz;
	a->dimension = gi ? gi->dimension : a->raw_units ? e->name : "seconds";
	if (a->raw_units) {
		a->raw_abbrev[0] = e->name[0] ? e->name[0] : 'u';
		a->raw_abbrev[1] = '\0';
		a->dimension_abbrev = a->raw_abbrev;
	} else {
		a->dimension_abbrev = gi ? gi->dimension_abbrev : "s";
	}
}

/* Arcs of the part in first-appearance order, filtered by the arc tables;
 * each symbol's lists run from the most recently created arc back. */
static int build_arcs(cg_gprof_analysis *a, cg_error *err)
{
	const cg_profile *p = a->profile;
	size_t nm = cg_profile_arc_count(p, a->part);
	a->arcs = malloc((nm + 1) * sizeof *a->arcs);
	a->child_lists = malloc((nm + 1) * sizeof *a->child_lists);
	a->parent_lists = malloc((nm + 1) * sizeof *a->parent_lists);
	a->arc_of_model = malloc((nm + 1) * sizeof *a->arc_of_model);
	if (!a->arcs || !a->child_lists || !a->parent_lists || !a->arc_of_model)
		return cg_error_set(err, CG_ENOMEM, "gprof: out of memory");
	uint32_t n = 0;
	gp_sym *s = a->syms;
	for (size_t i = 0; i < nm; i++) {
		const cg_arc *m = cg_profile_arc(p, a->part, i);
		a->arc_of_model[i] = GP_NONE;
		if (m->caller >= a->nfuncs || m->callee >= a->nfuncs)
			continue;
		uint32_t ps = a->sym_of_fid[m->caller], cs = a->sym_of_fid[m->callee];
		if (ps == GP_NONE || cs == GP_NONE)
			continue;
		if (!cg_gp_arc_passes(a, ps, cs))
			continue;
		a->arcs[n] = (gp_arc){ ps, cs, m->count, 0.0, 0.0, m->inclusive };
		a->arc_of_model[i] = n;
		s[cs].ncalls += m->count;
		s[ps].nchildren++;
		s[cs].nparents++;
		n++;
	}
	a->narcs = n;
	uint32_t cpos = 0, ppos = 0;
	for (uint32_t i = 0; i < a->nsyms; i++) {
		s[i].first_child = cpos;
		s[i].first_parent = ppos;
		cpos += s[i].nchildren;
		ppos += s[i].nparents;
		s[i].nchildren = s[i].nparents = 0;
	}
	for (uint32_t k = n; k-- > 0;) {
		const gp_arc *arc = &a->arcs[k];
		gp_sym *ps = &s[arc->parent], *cs = &s[arc->child];
		a->child_lists[ps->first_child + ps->nchildren++] = k;
		a->parent_lists[cs->first_parent + cs->nparents++] = k;
	}
	/* gprof removes self-recursive calls from ncalls before anything. */
	for (uint32_t k = 0; k < n; k++) {
		const gp_arc *arc = &a->arcs[k];
		if (arc->parent == arc->child) {
			s[arc->parent].self_calls = arc->count;
			s[arc->parent].ncalls -= arc->count;
		}
	}
	return 0;
}

int cg_gprof_analyze(cg_gprof_analysis **out, const cg_profile *p, unsigned part,
		     const cg_gprof_options *opts, cg_error *err)
{
	if (CG_CHECK_OPTIONS(opts, CG_GPROF_OPTIONS_VERSION, "cg_gprof_options", err))
		return CG_EUSAGE;
	static const cg_gprof_options defaults = CG_GPROF_OPTIONS_INIT;
	*out = NULL;
	if (!p)
		return cg_error_set(err, CG_EUSAGE, "gprof: no profile");
	if (part >= cg_profile_part_count(p))
		return cg_error_set(err, CG_EUSAGE, "gprof: no part %u in the profile", part);
	if (!opts)
		opts = &defaults;
	if (opts->version != CG_GPROF_OPTIONS_VERSION)
		return cg_error_set(err, CG_EUSAGE, "gprof: options version %u not supported",
				    opts->version);
	cg_gprof_analysis *a = calloc(1, sizeof *a);
	if (!a)
		return cg_error_set(err, CG_ENOMEM, "gprof: out of memory");
	a->profile = p;
	a->part = part;
	a->opts = *opts;
	a->opts.specs = NULL;
	a->opts.nspecs = 0;
	if (a->opts.width < 1)
		a->opts.width = 80;
	if (a->opts.event >= cg_profile_event_count(p))
		a->opts.event = 0;
	if (cg_profile_event_count(p) == 0)
		a->opts.use_exact_inclusive = 0;

	int rc = build_symbols(a, err);
	if (!rc)
		rc = cg_gp_tables_build(a, opts, err);
	if (!rc) {
		assign_times(a);
		rc = build_arcs(a, err);
	}
	if (!rc)
		rc = cg_gp_find_cycles(a, err);
	if (!rc)
		rc = cg_gp_propagate(a, err);
	if (rc) {
		cg_gprof_analysis_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

void cg_gprof_analysis_free(cg_gprof_analysis *a)
{
	if (!a)
		return;
	cg_gp_tables_free(a);
	free(a->syms);
	free(a->sym_of_fid);
	free(a->arcs);
	free(a->child_lists);
	free(a->parent_lists);
	free(a->arc_of_model);
	free(a->index_order);
	cg_graph_free(&a->graph);
	cg_scc_free(&a->scc);
	free(a);
}

uint32_t cg_gprof_cycle_count(const cg_gprof_analysis *a)
{
	return a->ncycles;
}

static void fill_info(const cg_gprof_analysis *a, const gp_sym *s, cg_gprof_function_info *out)
{
	double hz = a->hz > 0 ? a->hz : 1.0;
	out->cycle = s->cycle;
	out->index = s->index;
	out->printed = s->print_flag;
	out->ncalls = s->ncalls;
	out->self_calls = s->self_calls;
	out->self_seconds = s->prop_self / hz;
	out->child_seconds = s->prop_child / hz;
}

int cg_gprof_function(const cg_gprof_analysis *a, cg_fid f, cg_gprof_function_info *out)
{
	if (f >= a->nfuncs || a->sym_of_fid[f] == GP_NONE)
		return CG_ENOTFOUND;
	fill_info(a, &a->syms[a->sym_of_fid[f]], out);
	return 0;
}

int cg_gprof_cycle(const cg_gprof_analysis *a, uint32_t cycle, cg_gprof_function_info *out)
{
	if (cycle == 0 || cycle > a->ncycles)
		return CG_ENOTFOUND;
	fill_info(a, &a->syms[a->nsyms + cycle - 1], out);
	return 0;
}

int cg_gprof_cycles(const cg_profile *p, unsigned part, uint32_t *cycle_of,
		    uint32_t *ncycles, cg_error *err)
{
	cg_gprof_options o = CG_GPROF_OPTIONS_INIT;
	o.no_default_excludes = 1;
	cg_gprof_analysis *a;
	int rc = cg_gprof_analyze(&a, p, part, &o, err);
	if (rc)
		return rc;
	for (size_t f = 0; f < a->nfuncs; f++)
		cycle_of[f] = a->sym_of_fid[f] == GP_NONE ? 0 : a->syms[a->sym_of_fid[f]].cycle;
	*ncycles = a->ncycles;
	cg_gprof_analysis_free(a);
	return 0;
}

struct cg_gprof_tables {
	cg_gprof_analysis *a;
};

int cg_gprof_tables_new(cg_gprof_tables **out, const cg_profile *p,
			const cg_gprof_options *opts, cg_error *err)
{
	static const cg_gprof_options defaults = CG_GPROF_OPTIONS_INIT;
	*out = NULL;
	if (!opts)
		opts = &defaults;
	cg_gprof_tables *t = calloc(1, sizeof *t);
	if (t)
		t->a = calloc(1, sizeof *t->a);
	if (!t || !t->a) {
		free(t);
		return cg_error_set(err, CG_ENOMEM, "gprof: out of memory");
	}
	t->a->profile = p;
	int rc = build_symbols(t->a, err);
	if (!rc)
		rc = cg_gp_tables_build(t->a, opts, err);
	if (rc) {
		cg_gprof_tables_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void cg_gprof_tables_free(cg_gprof_tables *t)
{
	if (!t)
		return;
	cg_gprof_analysis_free(t->a);
	free(t);
}

int cg_gprof_flat_filter(void *ctx, const cg_profile *p, cg_fid f)
{
	const cg_gprof_tables *t = ctx;
	(void)p;
	if (!t || f >= t->a->nfuncs || t->a->sym_of_fid[f] == GP_NONE)
		return 1;
	return cg_gp_passes(t->a, CG_GPROF_INCL_FLAT, t->a->sym_of_fid[f]);
}

int cg_gprof_report(const cg_profile *p, unsigned part, unsigned parts,
		    const cg_gprof_options *opts, FILE *out, cg_error *err)
{
	cg_gprof_analysis *a;
	int rc = cg_gprof_analyze(&a, p, part, opts, err);
	if (rc)
		return rc;
	rc = cg_gprof_print(a, parts, out, err);
	cg_gprof_analysis_free(a);
	return rc;
}
