/*
 * gprof_flat.c — gprof's flat profile, GNU and BSD (-T) style.  The
 * explanation printed without -b is this project's own text.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gprof_internal.h"

static const char *flat_blurb =
	"\n"
	"About the columns of the flat profile:\n"
	"  % time       share of all sampled time spent in the function itself.\n"
	"  cumulative   running sum of the self seconds of this line and those above.\n"
	"  self         seconds sampled in the function itself (the sort key).\n"
	"  calls        times the function was called (recursive self-calls excluded);\n"
	"               empty when the function was never seen being called.\n"
	"  self/call    self time per call, in the unit shown in the header.\n"
	"  total/call   self plus descendants' time per call, same unit.\n"
	"  name         the function.\n";

/* ---- flat profile ------------------------------------------------------ */

static int cmp_time(const void *ctx, uint32_t l, uint32_t r)
{
	const cg_gprof_analysis *a = ctx;
	const gp_sym *ls = &a->syms[l], *rs = &a->syms[r];
	double diff = rs->time - ls->time;
	if (diff > 0.0)
		return 1;
	if (diff < 0.0)
		return -1;
	if (rs->ncalls > ls->ncalls)
		return 1;
	if (rs->ncalls < ls->ncalls)
		return -1;
	return strcmp(ls->name, rs->name);
}

static const struct { char prefix; double scale; } si_units[] = {
	{ 'T', 1e-12 }, { 'G', 1e-09 }, { 'M', 1e-06 }, { 'K', 1e-03 }, { ' ', 1e+00 },
	{ 'm', 1e+03 }, { 'u', 1e+06 }, { 'n', 1e+09 }, { 'p', 1e+12 }, { 'f', 1e+15 },
	{ 'a', 1e+18 }
};
#define N_SI_UNITS (sizeof si_units / sizeof si_units[0])

/* gprof's per-call unit: the first SI prefix that brings the largest
 * (self + children) per call into [1, 1000); milliseconds in BSD style. */
static size_t flat_unit(const gp_printer *pr)
{
	const cg_gprof_analysis *a = pr->a;
	if (pr->bsd)
		return 5;
	/* the largest value: any order finds it (NaN never wins a >) */
	double top_time = 0.0;
	int found = 0;
	for (uint32_t i = 0; i < a->nsyms; i++) {
		const gp_sym *s = &a->syms[i];
		if (s->ncalls == 0)
			continue;
		double t = (s->time + s->child_time) / (double)s->ncalls;
		if (t > top_time) {
			top_time = t;
			found = 1;
		}
	}
	if (!found || !(top_time > 0.0))
		return 0;
	top_time /= a->hz;
	for (size_t unit = 0; unit < N_SI_UNITS; unit++) {
		double v = si_units[unit].scale * top_time;
		if (v >= 1.0 && v < 1000.0)
			return unit;
	}
	return 0;       /* beyond gprof's table (gprof reads past its end) */
}

/* The header lines; returns the denominator of the % column. */
static double flat_header(gp_printer *pr, size_t unit)
{
	const cg_gprof_analysis *a = pr->a;
	FILE *out = pr->out;
	char unit_name[16];
	snprintf(unit_name, sizeof unit_name, "%c%c/call", si_units[unit].prefix,
		 a->dimension_abbrev[0] ? a->dimension_abbrev[0] : ' ');
	double total = a->total_time;
	if (pr->bsd) {
		fprintf(out, "\ngranularity: each sample hit covers %ld byte(s)", (long)a->scale * 2);
		if (total > 0.0)
			fprintf(out, " for %.2f%% of %.2f %s\n\n", 100.0 / total, total / a->hz,
				a->dimension);
	} else {
		fprintf(out, "\nEach sample counts as %g %s.\n", 1.0 / a->hz, a->dimension);
	}
	if (total <= 0.0) {
		fputs(" no time accumulated\n\n", out);
		total = 1.0;
	}
	fprintf(out, "%5.5s %10.10s %8.8s %8.8s %8.8s %8.8s  %-8.8s\n",
		"%  ", "cumulative", "self  ", "", "self  ", "total ", "");
	fprintf(out, "%5.5s %9.9s  %8.8s %8.8s %8.8s %8.8s  %-8.8s\n",
		"time", a->dimension, a->dimension, "calls", unit_name, unit_name, "name");
	return total;
}

static void flat_row(gp_printer *pr, uint32_t si, double total, double scale, double *accum)
{
	const cg_gprof_analysis *a = pr->a;
	const gp_sym *s = &a->syms[si];
	double hz = a->hz;
	*accum += s->time;
	fprintf(pr->out, pr->bsd ? "%5.1f %10.2f %8.2f" : "%6.2f %9.2f %8.2f",
		total > 0.0 ? 100 * s->time / total : 0.0, *accum / hz, s->time / hz);
	if (s->ncalls != 0)
		fprintf(pr->out, " %8lu %8.2f %8.2f  ", (unsigned long)s->ncalls,
			scale * s->time / hz / (double)s->ncalls,
			scale * (s->time + s->child_time) / hz / (double)s->ncalls);
	else
		fprintf(pr->out, " %8.8s %8.8s %8.8s  ", "", "", "");
	if (pr->bsd)
		cg_gp_print_name(pr, si);
	else
		cg_gp_print_name_only(pr, si);
	fputc('\n', pr->out);
}

/* Has symbol si a row in the flat profile? */
static int flat_prints(const cg_gprof_analysis *a, uint32_t si)
{
	const gp_sym *s = &a->syms[si];
	if (!cg_gp_passes(a, CG_GPROF_INCL_FLAT, si))
		return 0;
	return a->opts.zero || s->ncalls != 0 || s->time != 0;
}

int cg_gp_print_flat(gp_printer *pr)
{
	const cg_gprof_analysis *a = pr->a;
	cg_gp_section_start(pr);
	if (pr->bsd) {
		if (!a->opts.brief) {
			fputs("\n\n\nflat profile:\n", pr->out);
			fputs(flat_blurb, pr->out);
		}
	} else {
		fputs("Flat profile:\n", pr->out);
	}
	/* cmp_time orders by time, calls and name; without a NaN time that
	 * is a consistent order, and the rows printed come out of gprof's
	 * stable sort of every symbol in the order a stable sort of just
	 * them gives.  With line symbols (most without time or calls) that
	 * sorts a tenth of the symbols. */
	int consistent = 1;
	for (uint32_t i = 0; i < a->nsyms && consistent; i++)
		consistent = !isnan(a->syms[i].time);
	uint32_t *order = malloc(((size_t)a->nsyms + 1) * sizeof *order);
	if (!order)
		return CG_ENOMEM;
	uint32_t n = 0;
	for (uint32_t i = 0; i < a->nsyms; i++)
		if (!consistent || flat_prints(a, i))
			order[n++] = i;
	if (cg_gp_msort(order, n, cmp_time, a)) {
		free(order);
		return CG_ENOMEM;
	}
	size_t unit = flat_unit(pr);
	double total = flat_header(pr, unit), accum = 0.0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t si = order[i];
		if (flat_prints(a, si))
			flat_row(pr, si, total, si_units[unit].scale, &accum);
	}
	free(order);
	if (!a->opts.brief && !pr->bsd)
		fputs(flat_blurb, pr->out);
	return 0;
}
