/*
 * gprof_graph.c — gprof's call graph (parents, primary line, children;
 * cycle blocks) and the index by function name, GNU and BSD (-T) style.
 * The explanations printed without -b are this project's own text.
 */
#include <stdlib.h>
#include <string.h>
#include "gprof_internal.h"

#define LESSTHAN    (-1)
#define EQUALTO     0
#define GREATERTHAN 1

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
int cg_gp_sort_arc_list(gp_printer *pr, const uint32_t *list, uint32_t n, int descending)
{
	if (cg_gp_reserve(pr, n))
		return CG_ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		pr->buf[i] = list[n - 1 - i];
	arc_sort_ctx ctx = { pr->a, descending ? -1 : 1 };
	return cg_gp_msort(pr->buf, n, cmp_arc_sorted, &ctx);
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

static int print_parents(gp_printer *pr, uint32_t c)
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
	if (cg_gp_sort_arc_list(pr, a->parent_lists + cs->first_parent, cs->nparents, 0))
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
		cg_gp_print_name(pr, p);
		fputc('\n', out);
	}
	return 0;
}

static int print_children(gp_printer *pr, uint32_t p)
{
	const cg_gprof_analysis *a = pr->a;
	const gp_sym *ps = &a->syms[p];
	FILE *out = pr->out;
	if (cg_gp_sort_arc_list(pr, a->child_lists + ps->first_child, ps->nchildren, 1))
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
		cg_gp_print_name(pr, c);
		fputc('\n', out);
	}
	return 0;
}

static void print_primary(gp_printer *pr, uint32_t s)
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
	cg_gp_print_name(pr, s);
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

static int print_cycle(gp_printer *pr, uint32_t cy)
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
	if (cg_gp_reserve(pr, n))
		return CG_ENOMEM;
	uint32_t *res = pr->buf, k = 0;
	for (uint32_t m = y->next; m != GP_NONE; m = a->syms[m].next)
		res[k++] = m;
	if (cg_gp_msort(res, n, cmp_member_desc, a))
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
		cg_gp_print_name(pr, res[i]);
		fputc('\n', out);
	}
	return 0;
}

int cg_gp_print_graph(gp_printer *pr)
{
	const cg_gprof_analysis *a = pr->a;
	FILE *out = pr->out;
	if (!a->opts.brief && pr->bsd)
		fputs(bsd_graph_blurb, out);
	cg_gp_section_start(pr);
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

int cg_gp_print_index(gp_printer *pr)
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
	if (cg_gp_msort(order, nnames, cmp_name, a)) {
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
					col += (int)cg_gp_print_name_only(pr, s);
					if (!a->opts.line_mode && (sym->flags & CG_FN_STATIC) && sym->file) {
						const char *file = cg_gp_base_name(sym->file, a->opts.print_path);
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
