/*
 * gprof_print.c — writing gprof's report: symbol names as gprof prints
 * them, section breaks, the execution counts (-C), and the entry point
 * that writes the sections in gprof's order.  The flat profile, call
 * graph and index live in gprof_flat.c and gprof_graph.c.
 *
 * Every number goes through the printf format gprof uses, with the same
 * double, so the bodies match GNU gprof 2.40 byte for byte.
 */
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>

#include "demangle.h"
#include "gprof_internal.h"

/* libbfd's demangler (what gprof calls); declared here because bfd.h
 * insists on a config.h of its own. */
struct bfd;
extern char *bfd_demangle(struct bfd *abfd, const char *name, int options);

/* ---- names ----------------------------------------------------------------- */

const char *cg_gp_base_name(const char *path, int print_path)
{
	if (print_path)
		return path;
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static const char *display_name(gp_printer *pr, uint32_t s)
{
	const gp_sym *sym = &pr->a->syms[s];
	if (pr->bsd || !pr->a->opts.demangle || !sym->name)
		return sym->name ? sym->name : "";
	if (!pr->named[s]) {
		pr->named[s] = 1;
		int style = cg_demangle_style_bits(pr->a->opts.demangle_style);
		pr->names[s] = bfd_demangle(NULL, sym->name,
					    DMGL_ANSI | DMGL_PARAMS | (style > 0 ? style : 0));
	}
	return pr->names[s] ? pr->names[s] : sym->name;
}

/* gprof's print_name_only: returns the number of characters written. */
size_t cg_gp_print_name_only(gp_printer *pr, uint32_t s)
{
	const cg_gprof_analysis *a = pr->a;
	const gp_sym *sym = &a->syms[s];
	const char *name = display_name(pr, s);
	size_t len = strlen(name);
	fputs(name, pr->out);
	if ((a->opts.line_mode || a->opts.inline_file_names) && sym->file) {
		const char *file = cg_gp_base_name(sym->file, a->opts.print_path);
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

void cg_gp_print_name(gp_printer *pr, uint32_t s)
{
	const gp_sym *sym = &pr->a->syms[s];
	cg_gp_print_name_only(pr, s);
	if (sym->cycle != 0)
		fprintf(pr->out, " <cycle %u>", sym->cycle);
	if (pr->a->has_arcs && sym->index != 0)
		fprintf(pr->out, sym->print_flag ? " [%u]" : " (%u)", sym->index);
}

void cg_gp_section_start(gp_printer *pr)
{
	if (pr->first_output)
		pr->first_output = 0;
	else
		fputs("\f\n", pr->out);
}

int cg_gp_reserve(gp_printer *pr, size_t n)
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

int cg_gp_print_exec_counts(gp_printer *pr)
{
	const cg_gprof_analysis *a = pr->a;
	cg_gp_section_start(pr);
	uint32_t n = 0;
	uint32_t *order = malloc(((size_t)a->nsyms + 1) * sizeof *order);
	if (!order)
		return CG_ENOMEM;
	for (uint32_t i = 0; i < a->nsyms; i++)
		if (cg_gp_passes(a, CG_GPROF_INCL_EXEC, i))
			order[n++] = i;
	if (cg_gp_msort(order, n, cmp_exec, a)) {
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
	gp_printer pr = { 0 };
	pr.a = a;
	pr.out = out;
	pr.bsd = a->opts.traditional != 0;
	pr.first_output = !a->opts.after_output;
	pr.names = calloc((size_t)a->nsyms + a->ncycles + 1, sizeof *pr.names);
	pr.named = calloc((size_t)a->nsyms + a->ncycles + 1, 1);
	int rc = 0;
	if (!pr.names || !pr.named)
		rc = CG_ENOMEM;
	/* A collector that reports its own overhead, lost ticks or an early
	 * stop gets one line above the report: gprof's numbers alone would
	 * present a distorted or partial run as a whole one.  (gmon.out has no
	 * such report, so gprof-identical output is unaffected.) */
	const cg_run_info *run = cg_profile_run_info(a->profile);
	if (!rc && run && (run->overhead || run->lost || run->threads_cut ||
			   (run->flags & (CG_RUN_KILLED | CG_RUN_PARTIAL)))) {
		char line[512];
		cg_run_info_format(run, line, sizeof line);
		fprintf(out, "%s\n\n", line);
	}
	if (!rc && (parts & CG_GPROF_GRAPH) && pr.bsd)
		rc = cg_gp_print_graph(&pr);
	if (!rc && (parts & CG_GPROF_FLAT))
		rc = cg_gp_print_flat(&pr);
	if (!rc && (parts & CG_GPROF_GRAPH) && !pr.bsd)
		rc = cg_gp_print_graph(&pr);
	if (!rc && (parts & CG_GPROF_GRAPH))
		rc = cg_gp_print_index(&pr);
	if (!rc && (parts & CG_GPROF_EXEC_COUNTS))
		rc = cg_gp_print_exec_counts(&pr);
	if (!rc && (parts & CG_GPROF_ANNOTATE))
		rc = cg_gp_print_annotated(a, out, &pr.first_output);
	if (!rc && (parts & CG_GPROF_FUNCTION_ORDER))
		rc = cg_gp_print_function_order(&pr, (parts & CG_GPROF_GRAPH) != 0);
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
