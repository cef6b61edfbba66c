/*
 * gprof_print.c — the text of gprof's reports: flat profile, call graph
 * and index by function name, in GNU (default) and BSD (-T) style.
 *
 * Every number goes through the printf format gprof uses, with the same
 * double, so the bodies match GNU gprof 2.40 byte for byte.  The
 * explanations printed without -b are this project's own words.
 */
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "gprof_internal.h"

/* libbfd's demangler (what gprof calls); declared here because bfd.h
 * insists on a config.h of its own. */
struct bfd;
extern char *bfd_demangle(struct bfd *abfd, const char *name, int options);

#define LESSTHAN    (-1)
#define EQUALTO     0
#define GREATERTHAN 1

typedef struct printer {
	const cg_gprof_analysis *a;
	FILE *out;
	int bsd;
	int first_output;
	char **names;         /* demangled names (NULL: use the raw name) */
	uint8_t *named;
	double print_time;
	uint32_t *buf;        /* scratch for list sorts */
	size_t bufcap;
} printer;

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

static const char *graph_blurb =
	"\n"
	"How to read the call graph:\n"
	"  Each block describes one function (its primary line starts with [index]).\n"
	"  Lines above it are its callers, lines below it the functions it calls.\n"
	"  On the primary line: % time is the share of the total propagated time\n"
	"  spent in the function and its descendants; self and children are\n"
	"  seconds in the function itself and in its callees; called is the number\n"
	"  of calls, with '+N' for calls the function made to itself.\n"
	"  On a caller line: the part of the function's time charged to that\n"
	"  caller, and calls from it / all calls.  On a callee line: the part of\n"
	"  the callee's time charged to this function, and calls / all its calls.\n"
	"  Charges are proportional to call counts (gprof's assumption).\n"
	"  Mutually recursive functions form a <cycle N>; its block lists the\n"
	"  members, and time is propagated for the cycle as a whole.\n"
	"  A function nobody was seen calling has <spontaneous> as its caller.\n";

static const char *bsd_graph_blurb =
	"\n\n\n"
	"call graph profile:\n"
	"  Each entry shows a function ([index] at the start of its line), the\n"
	"  functions that called it (above) and the functions it called (below).\n"
	"  self and descendants are seconds spent in the function and in what it\n"
	"  called; called/total counts calls along one arc against all calls,\n"
	"  called+self adds the calls a function made to itself.  Time reaches\n"
	"  callers in proportion to call counts.  Cycles of mutually recursive\n"
	"  functions are shown as <cycle N> and treated as one unit.\n";

/* ---- names ----------------------------------------------------------------- */

static const char *base_name(const char *path, int print_path)
{
	if (print_path)
		return path;
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static const char *display_name(printer *pr, uint32_t s)
{
	const gp_sym *sym = &pr->a->syms[s];
	if (pr->bsd || !pr->a->opts.demangle || !sym->name)
		return sym->name ? sym->name : "";
	if (!pr->named[s]) {
		pr->named[s] = 1;
		pr->names[s] = bfd_demangle(NULL, sym->name, DMGL_ANSI | DMGL_PARAMS);
	}
	return pr->names[s] ? pr->names[s] : sym->name;
}

/* gprof's print_name_only: returns the number of characters written. */
static size_t print_name_only(printer *pr, uint32_t s)
{
	const cg_gprof_analysis *a = pr->a;
	const gp_sym *sym = &a->syms[s];
	const char *name = display_name(pr, s);
	size_t len = strlen(name);
	fputs(name, pr->out);
	if ((a->opts.line_mode || a->opts.inline_file_names) && sym->file) {
		const char *file = base_name(sym->file, a->opts.print_path);
		int n;
		if (a->opts.line_mode)
			n = fprintf(pr->out, " (%s:%d @ %lx)", file, (int)sym->line,
				    (unsigned long)sym->addr);
		else
			n = fprintf(pr->out, " (%s:%d)", file, (int)sym->line);
		if (n > 0)
			len += (size_t)n;
	}
	return len;
}

static void print_name(printer *pr, uint32_t s)
{
	const gp_sym *sym = &pr->a->syms[s];
	print_name_only(pr, s);
	if (sym->cycle != 0)
		fprintf(pr->out, " <cycle %u>", sym->cycle);
	if (pr->a->has_arcs && sym->index != 0)
		fprintf(pr->out, sym->print_flag ? " [%u]" : " (%u)", sym->index);
}

static void section_start(printer *pr)
{
	if (pr->first_output)
		pr->first_output = 0;
	else
		fputs("\f\n", pr->out);
}

static int reserve(printer *pr, size_t n)
{
	if (n <= pr->bufcap)
		return 0;
	uint32_t *nb = realloc(pr->buf, n * sizeof *nb);
	if (!nb)
		return CG_ENOMEM;
	pr->buf = nb;
	pr->bufcap = n;
	return 0;
}

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
static size_t flat_unit(const printer *pr, const uint32_t *order)
{
	const cg_gprof_analysis *a = pr->a;
	if (pr->bsd)
		return 5;
	double top_time = 0.0;
	int found = 0;
	for (uint32_t i = 0; i < a->nsyms; i++) {
		const gp_sym *s = &a->syms[order[i]];
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
static double flat_header(printer *pr, size_t unit)
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

static void flat_row(printer *pr, uint32_t si, double total, double scale, double *accum)
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
		print_name(pr, si);
	else
		print_name_only(pr, si);
	fputc('\n', pr->out);
}

static int print_flat(printer *pr)
{
	const cg_gprof_analysis *a = pr->a;
	section_start(pr);
	if (pr->bsd) {
		if (!a->opts.brief) {
			fputs("\n\n\nflat profile:\n", pr->out);
			fputs(flat_blurb, pr->out);
		}
	} else {
		fputs("Flat profile:\n", pr->out);
	}
	uint32_t n = a->nsyms;
	uint32_t *order = malloc(((size_t)n + 1) * sizeof *order);
	if (!order)
		return CG_ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	if (gp_msort(order, n, cmp_time, a)) {
		free(order);
		return CG_ENOMEM;
	}
	size_t unit = flat_unit(pr, order);
	double total = flat_header(pr, unit), accum = 0.0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t si = order[i];
		const gp_sym *s = &a->syms[si];
		if (!gp_passes(a, CG_GPROF_INCL_FLAT, si))
			continue;
		if (!a->opts.zero && s->ncalls == 0 && s->time == 0)
			continue;
		flat_row(pr, si, total, si_units[unit].scale, &accum);
	}
	free(order);
	if (!a->opts.brief && !pr->bsd)
		fputs(flat_blurb, pr->out);
	return 0;
}

/* ---- call graph ---------------------------------------------------------- */

static int arc_in_cycle(const cg_gprof_analysis *a, const gp_arc *arc)
{
	uint32_t pc = a->syms[arc->parent].cycle, cc = a->syms[arc->child].cycle;
	return pc != 0 && cc != 0 && pc == cc;
}

static int cmp_arc(const cg_gprof_analysis *a, const gp_arc *l, const gp_arc *r)
{
	if (l->parent == l->child)
		return LESSTHAN;
	if (r->parent == r->child)
		return GREATERTHAN;
	int lin = arc_in_cycle(a, l), rin = arc_in_cycle(a, r);
	if (lin) {
		if (!rin)
			return LESSTHAN;
		if (l->count < r->count)
			return LESSTHAN;
		if (l->count > r->count)
			return GREATERTHAN;
		return EQUALTO;
	}
	if (rin)
		return GREATERTHAN;
	double lt = l->time + l->child_time, rt = r->time + r->child_time;
	if (lt < rt)
		return LESSTHAN;
	if (lt > rt)
		return GREATERTHAN;
	if (l->count < r->count)
		return LESSTHAN;
	if (l->count > r->count)
		return GREATERTHAN;
	return EQUALTO;
}

typedef struct arc_sort_ctx {
	const cg_gprof_analysis *a;
	int sign;
} arc_sort_ctx;

static int cmp_arc_sorted(const void *ctx, uint32_t l, uint32_t r)
{
	const arc_sort_ctx *c = ctx;
	return c->sign * cmp_arc(c->a, &c->a->arcs[l], &c->a->arcs[r]);
}

/* gprof sorts parent and child lists by insertion: each arc, in list
 * order, goes before the first sorted arc it does not compare past
 * (parents ascending, children descending), so equal arcs end up in
 * reverse list order.  cmp_arc is a consistent ordering, hence a stable
 * sort of the reversed list gives the same result without gprof's
 * quadratic cost on functions with thousands of callers. */
static int sort_arcs(printer *pr, const uint32_t *list, uint32_t n, int descending)
{
	if (reserve(pr, n))
		return CG_ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		pr->buf[i] = list[n - 1 - i];
	arc_sort_ctx ctx = { pr->a, descending ? -1 : 1 };
	return gp_msort(pr->buf, n, cmp_arc_sorted, &ctx);
}

static const char *count_only_fmt(int bsd)
{
	return bsd ? "%6.6s %5.5s %7.7s %11.11s %7lu %7.7s     "
		   : "%6.6s %5.5s %7.7s %7.7s %7lu %7.7s     ";
}

static const char *arc_fmt(int bsd)
{
	return bsd ? "%6.6s %5.5s %7.2f %11.2f %7lu/%-7lu     "
		   : "%6.6s %5.5s %7.2f %7.2f %7lu/%-7lu     ";
}

static int print_parents(printer *pr, uint32_t c)
{
	const cg_gprof_analysis *a = pr->a;
	const gp_sym *cs = &a->syms[c];
	FILE *out = pr->out;
	if (cs->nparents == 0) {
		fprintf(out, pr->bsd ? "%6.6s %5.5s %7.7s %11.11s %7.7s %7.7s     <spontaneous>\n"
				     : "%6.6s %5.5s %7.7s %7.7s %7.7s %7.7s     <spontaneous>\n",
			"", "", "", "", "", "");
		return 0;
	}
	if (sort_arcs(pr, a->parent_lists + cs->first_parent, cs->nparents, 0))
		return CG_ENOMEM;
	const gp_sym *head = &a->syms[cs->head];
	for (uint32_t i = 0; i < cs->nparents; i++) {
		const gp_arc *arc = &a->arcs[pr->buf[i]];
		uint32_t p = arc->parent;
		if (p == c || (cs->cycle != 0 && a->syms[p].cycle == cs->cycle))
			fprintf(out, count_only_fmt(pr->bsd), "", "", "", "",
				(unsigned long)arc->count, "");
		else
			fprintf(out, arc_fmt(pr->bsd), "", "", arc->time / a->hz,
				arc->child_time / a->hz, (unsigned long)arc->count,
				(unsigned long)head->ncalls);
		print_name(pr, p);
		fputc('\n', out);
	}
	return 0;
}

static int print_children(printer *pr, uint32_t p)
{
	const cg_gprof_analysis *a = pr->a;
	const gp_sym *ps = &a->syms[p];
	FILE *out = pr->out;
	if (sort_arcs(pr, a->child_lists + ps->first_child, ps->nchildren, 1))
		return CG_ENOMEM;
	for (uint32_t i = 0; i < ps->nchildren; i++) {
		const gp_arc *arc = &a->arcs[pr->buf[i]];
		uint32_t c = arc->child;
		const gp_sym *cs = &a->syms[c];
		if (c == p || (cs->cycle != 0 && cs->cycle == ps->cycle))
			fprintf(out, count_only_fmt(pr->bsd), "", "", "", "",
				(unsigned long)arc->count, "");
		else
			fprintf(out, arc_fmt(pr->bsd), "", "", arc->time / a->hz,
				arc->child_time / a->hz, (unsigned long)arc->count,
				(unsigned long)a->syms[cs->head].ncalls);
		print_name(pr, c);
		fputc('\n', out);
	}
	return 0;
}

static void print_primary(printer *pr, uint32_t s)
{
	const cg_gprof_analysis *a = pr->a;
	const gp_sym *sym = &a->syms[s];
	char label[24];
	snprintf(label, sizeof label, "[%u]", sym->index);
	fprintf(pr->out, pr->bsd ? "%-6.6s %5.1f %7.2f %11.2f" : "%-6.6s %5.1f %7.2f %7.2f", label,
		100 * (sym->prop_self + sym->prop_child) / pr->print_time,
		sym->prop_self / a->hz, sym->prop_child / a->hz);
	if (sym->ncalls + sym->self_calls != 0) {
		fprintf(pr->out, " %7lu", (unsigned long)sym->ncalls);
		if (sym->self_calls != 0)
			fprintf(pr->out, "+%-7lu ", (unsigned long)sym->self_calls);
		else
			fprintf(pr->out, " %7.7s ", "");
	} else {
		fprintf(pr->out, " %7.7s %7.7s ", "", "");
	}
	print_name(pr, s);
	fputc('\n', pr->out);
}

static int cmp_member(const gp_sym *l, const gp_sym *r)
{
	double lt = l->prop_self + l->prop_child, rt = r->prop_self + r->prop_child;
	uint64_t lc = l->ncalls + l->self_calls, rc = r->ncalls + r->self_calls;
	if (lt > rt)
		return GREATERTHAN;
	if (lt < rt)
		return LESSTHAN;
	if (lc > rc)
		return GREATERTHAN;
	if (lc < rc)
		return LESSTHAN;
	return EQUALTO;
}

static int cmp_member_desc(const void *ctx, uint32_t l, uint32_t r)
{
	const cg_gprof_analysis *a = ctx;
	return -cmp_member(&a->syms[l], &a->syms[r]);
}

static int print_cycle(printer *pr, uint32_t cy)
{
	const cg_gprof_analysis *a = pr->a;
	const gp_sym *y = &a->syms[cy];
	FILE *out = pr->out;
	char label[24];
	snprintf(label, sizeof label, "[%u]", y->index);
	fprintf(out, pr->bsd ? "%-6.6s %5.1f %7.2f %11.2f %7lu" : "%-6.6s %5.1f %7.2f %7.2f %7lu",
		label, 100 * (y->prop_self + y->prop_child) / pr->print_time,
		y->prop_self / a->hz, y->prop_child / a->hz, (unsigned long)y->ncalls);
	if (y->self_calls != 0)
		fprintf(out, "+%-7lu", (unsigned long)y->self_calls);
	else
		fprintf(out, " %7.7s", "");
	fprintf(out, " <cycle %u as a whole> [%u]\n", y->cycle, y->index);

	/* Members, most expensive first; equal members keep chain order (what
	 * gprof's insertion sort gives: a stable descending sort). */
	uint32_t n = 0;
	for (uint32_t m = y->next; m != GP_NONE; m = a->syms[m].next)
		n++;
	if (reserve(pr, n))
		return CG_ENOMEM;
	uint32_t *res = pr->buf, k = 0;
	for (uint32_t m = y->next; m != GP_NONE; m = a->syms[m].next)
		res[k++] = m;
	if (gp_msort(res, n, cmp_member_desc, a))
		return CG_ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const gp_sym *m = &a->syms[res[i]];
		fprintf(out, pr->bsd ? "%6.6s %5.5s %7.2f %11.2f %7lu" : "%6.6s %5.5s %7.2f %7.2f %7lu",
			"", "", m->prop_self / a->hz, m->prop_child / a->hz, (unsigned long)m->ncalls);
		if (m->self_calls != 0)
			fprintf(out, "+%-7lu", (unsigned long)m->self_calls);
		else
			fprintf(out, " %7.7s", "");
		fputs("     ", out);
		print_name(pr, res[i]);
		fputc('\n', out);
	}
	return 0;
}

static int print_graph(printer *pr)
{
	const cg_gprof_analysis *a = pr->a;
	FILE *out = pr->out;
	if (!a->opts.brief && pr->bsd)
		fputs(bsd_graph_blurb, out);
	section_start(pr);
	if (!pr->bsd)
		fputs(a->opts.brief ? "\t\t\tCall graph\n\n" : "\t\t     Call graph (explanation follows)\n\n",
		      out);
	fprintf(out, "\ngranularity: each sample hit covers %ld byte(s)", (long)a->scale * 2);
	pr->print_time = a->print_time;
	if (pr->print_time > 0.0) {
		fprintf(out, " for %.2f%% of %.2f %s\n\n", 100.0 / pr->print_time,
			pr->print_time / a->hz, a->raw_units ? a->dimension : "seconds");
	} else {
		fputs(" no time propagated\n\n", out);
		pr->print_time = 1.0;
	}
	if (pr->bsd) {
		fprintf(out, "%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %-8.8s\n",
			"", "", "", "", "called", "total", "parents");
		fprintf(out, "%-6.6s %5.5s %7.7s %11.11s %7.7s+%-7.7s %-8.8s\t%5.5s\n",
			"index", "%time", "self", "descendants", "called", "self", "name", "index");
		fprintf(out, "%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %-8.8s\n",
			"", "", "", "", "called", "total", "children");
		fputc('\n', out);
	} else {
		fputs("index % time    self  children    called     name\n", out);
	}

	uint32_t total = a->nsyms + a->ncycles;
	for (uint32_t i = 0; i < total; i++) {
		uint32_t s = a->index_order[i];
		const gp_sym *sym = &a->syms[s];
		if ((!a->opts.zero && sym->ncalls == 0 && sym->self_calls == 0
		     && sym->prop_self == 0 && sym->prop_child == 0)
		    || !sym->print_flag
		    || (a->opts.line_mode && (gp_is_cycle(a, s) || !(sym->flags & CG_FN_IS_FUNC))))
			continue;
		int rc;
		if (gp_is_cycle(a, s)) {
			rc = print_cycle(pr, s);
		} else {
			rc = print_parents(pr, s);
			if (!rc)
				print_primary(pr, s);
			if (!rc)
				rc = print_children(pr, s);
		}
		if (rc)
			return rc;
		if (pr->bsd)
			fputc('\n', out);
		fputs("-----------------------------------------------\n", out);
		if (pr->bsd)
			fputc('\n', out);
	}
	if (!a->opts.brief && !pr->bsd)
		fputs(graph_blurb, out);
	return 0;
}

/* ---- index by function name -------------------------------------------- */

static int cmp_name(const void *ctx, uint32_t l, uint32_t r)
{
	const cg_gprof_analysis *a = ctx;
	return strcmp(a->syms[l].name, a->syms[r].name);
}

static int print_index(printer *pr)
{
	const cg_gprof_analysis *a = pr->a;
	FILE *out = pr->out;
	uint32_t total = a->nsyms + a->ncycles, nnames = 0;
	uint32_t *order = malloc(((size_t)total + 1) * sizeof *order);
	if (!order)
		return CG_ENOMEM;
	for (uint32_t i = 0; i < a->nsyms; i++) {
		const gp_sym *s = &a->syms[i];
		if (!a->opts.zero && s->ncalls == 0 && s->time == 0)
			continue;
		order[nnames++] = i;
	}
	if (gp_msort(order, nnames, cmp_name, a)) {
		free(order);
		return CG_ENOMEM;
	}
	uint32_t todo = nnames;
	for (uint32_t k = 0; k < a->ncycles; k++)
		order[todo++] = a->nsyms + k;

	fputs("\f\nIndex by function name\n\n", out);
	uint32_t rows = (todo + 2) / 3;
	int width = ((int)a->opts.width - 1) / 3;
	char label[24];
	for (uint32_t i = 0; i < rows; i++) {
		int col = 0, start = 0;
		for (uint32_t j = i; j < todo; j += rows) {
			uint32_t s = order[j];
			const gp_sym *sym = &a->syms[s];
			snprintf(label, sizeof label, sym->print_flag ? "[%u]" : "(%u)", sym->index);
			if (pr->bsd) {
				fprintf(out, "%6.6s ", label);
				if (j < nnames) {
					fprintf(out, "%-19.19s", sym->name);
				} else {
					char cyc[32];
					snprintf(cyc, sizeof cyc, "<cycle %u>", sym->cycle);
					fprintf(out, "%-19.19s", cyc);
				}
			} else {
				col += (int)strlen(label);
				for (; col < start + 5; col++)
					fputc(' ', out);
				fprintf(out, " %s ", label);
				if (j < nnames) {
					col += (int)print_name_only(pr, s);
					if (!a->opts.line_mode && (sym->flags & CG_FN_STATIC) && sym->file) {
						const char *file = base_name(sym->file, a->opts.print_path);
						fprintf(out, " (%s)", file);
						col += (int)strlen(file) + 3;
					}
				} else {
					int n = fprintf(out, "<cycle %u>", sym->cycle);
					col += n > 0 ? n : 0;
				}
			}
			start += width;
		}
		fputc('\n', out);
	}
	free(order);
	return 0;
}

/* ---- execution counts (-C) ---------------------------------------------- */

/* By file and line when both symbols have a file, then by address.  Not a
 * total order when only one side has a file; the merge sort copes as
 * glibc's does. */
static int cmp_exec(const void *ctx, uint32_t l, uint32_t r)
{
	const cg_gprof_analysis *a = ctx;
	const gp_sym *ls = &a->syms[l], *rs = &a->syms[r];
	if (ls->file && rs->file) {
		int c = strcmp(ls->file, rs->file);
		if (c)
			return c;
		if (ls->line != rs->line)
			return (int)ls->line - (int)rs->line;
	}
	uint64_t la = (ls->flags & CG_FN_HAS_ADDR) ? ls->addr : l;
	uint64_t ra = (rs->flags & CG_FN_HAS_ADDR) ? rs->addr : r;
	return la < ra ? -1 : la > ra;
}

static int print_exec_counts(printer *pr)
{
	const cg_gprof_analysis *a = pr->a;
	section_start(pr);
	uint32_t n = 0;
	uint32_t *order = malloc(((size_t)a->nsyms + 1) * sizeof *order);
	if (!order)
		return CG_ENOMEM;
	for (uint32_t i = 0; i < a->nsyms; i++)
		if (gp_passes(a, CG_GPROF_INCL_EXEC, i))
			order[n++] = i;
	if (gp_msort(order, n, cmp_exec, a)) {
		free(order);
		return CG_ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		const gp_sym *s = &a->syms[order[i]];
		if (s->ncalls > 0 || a->opts.zero)
			fprintf(pr->out, "%s:%d: (%s:0x%lx) %lu executions\n",
				s->file ? s->file : "<unknown>", (int)s->line, s->name,
				(unsigned long)s->addr, (unsigned long)s->ncalls);
	}
	free(order);
	return 0;
}

/* ---- entry point ----------------------------------------------------------- */

int cg_gprof_print(const cg_gprof_analysis *a, unsigned parts, FILE *out, cg_error *err)
{
	printer pr = { 0 };
	pr.a = a;
	pr.out = out;
	pr.bsd = a->opts.traditional != 0;
	pr.first_output = !a->opts.after_output;
	pr.names = calloc((size_t)a->nsyms + a->ncycles + 1, sizeof *pr.names);
	pr.named = calloc((size_t)a->nsyms + a->ncycles + 1, 1);
	int rc = 0;
	if (!pr.names || !pr.named)
		rc = CG_ENOMEM;
	if (!rc && (parts & CG_GPROF_GRAPH) && pr.bsd)
		rc = print_graph(&pr);
	if (!rc && (parts & CG_GPROF_FLAT))
		rc = print_flat(&pr);
	if (!rc && (parts & CG_GPROF_GRAPH) && !pr.bsd)
		rc = print_graph(&pr);
	if (!rc && (parts & CG_GPROF_GRAPH))
		rc = print_index(&pr);
	if (!rc && (parts & CG_GPROF_EXEC_COUNTS))
		rc = print_exec_counts(&pr);
	if (!rc && (parts & CG_GPROF_ANNOTATE))
		rc = gp_print_annotated(a, out, &pr.first_output);
	if (pr.names)
		for (uint32_t i = 0; i < a->nsyms + a->ncycles; i++)
			free(pr.names[i]);
	free(pr.names);
	free(pr.named);
	free(pr.buf);
	if (rc)
		return cg_error_set(err, rc, "gprof: out of memory writing the report");
	if (ferror(out))
		return cg_error_set(err, CG_EIO, "gprof: write error");
	return 0;
}
