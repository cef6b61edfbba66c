/*
 * cgconvert_gprof.c — see cgconvert_gprof.h.  The meanings are gprof's
 * (and cgprof's): -pSPEC/-PSPEC/-qSPEC/-QSPEC take their SPEC glued on.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgconvert_gprof.h"

enum { G_DEMANGLE = 400, G_NO_DEMANGLE, G_PART, G_THRESHOLD, G_TRADITIONAL, G_ZERO,
       G_WIDTH, G_BRIEF, G_INLINE };

const char cgconvert_gprof_shortopts[] = "p::P::q::Q::bTzw:e:E:F:n:N:k:C::Z::";

const struct option cgconvert_gprof_longopts[] = {
	{ "flat-profile", optional_argument, NULL, 'p' },
	{ "no-flat-profile", optional_argument, NULL, 'P' },
	{ "graph", optional_argument, NULL, 'q' },
	{ "no-graph", optional_argument, NULL, 'Q' },
	{ "exec-counts", optional_argument, NULL, 'C' },
	{ "no-exec-counts", optional_argument, NULL, 'Z' },
	{ "time", required_argument, NULL, 'n' },
	{ "no-time", required_argument, NULL, 'N' },
	{ "brief", no_argument, NULL, 'b' },
	{ "traditional", no_argument, NULL, 'T' },
	{ "display-unused-functions", no_argument, NULL, 'z' },
	{ "width", required_argument, NULL, 'w' },
	{ "demangle", optional_argument, NULL, G_DEMANGLE },
	{ "no-demangle", no_argument, NULL, G_NO_DEMANGLE },
	{ "inline-file-names", no_argument, NULL, G_INLINE },
	{ "part", required_argument, NULL, G_PART },
	{ "threshold", required_argument, NULL, G_THRESHOLD },
	{ NULL, 0, NULL, 0 }
};

void cgconvert_gprof_init(cgconvert_gprof *g)
{
	gprof_view v = GPROF_VIEW_INIT;
	memset(g, 0, sizeof *g);
	g->view = v;
	g->view.report.brief = 1;  /* cgconvert's gprof reports are brief (-b) */
	g->view.report.use_exact_inclusive = 1;
}

static int add_spec(cgconvert_gprof *g, unsigned table, const char *spec)
{
	if (g->nspecs == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 8;
		cg_gprof_symspec *s = realloc(g->specs, cap * sizeof *s);
		if (!s)
			return -1;
		g->specs = s;
		g->cap = cap;
	}
	g->specs[g->nspecs].table = table;
	g->specs[g->nspecs++].spec = spec;
	return 0;
}

static const char *name_of(int c)
{
	static char shortname[3];
	for (const struct option *o = cgconvert_gprof_longopts; o->name; o++)
		if (o->val == c && c >= 256)
			return o->name;
	shortname[0] = '-';
	shortname[1] = (char)c;
	return shortname;
}

int cgconvert_gprof_option(cgconvert_gprof *g, int c, const char *arg, const char *prog)
{
	cg_gprof_options *r = &g->view.report;
	int rc = 0;
	/* (strchr would find a NUL, so long-option codes are checked apart) */
	int short_one = c > 0 && c < 256 && c != ':' && strchr(cgconvert_gprof_shortopts, c);
	if (!short_one && c != G_DEMANGLE && c != G_NO_DEMANGLE && c != G_PART &&
	    c != G_THRESHOLD && c != G_INLINE)
		return 0;
	if (!g->first && c != G_PART && c != G_THRESHOLD)
		g->first = name_of(c);
	switch (c) {
	case 'p': g->on |= CG_GPROF_FLAT; rc = arg ? add_spec(g, CG_GPROF_INCL_FLAT, arg) : 0; break;
	case 'P':
		if (arg) {
			g->on |= CG_GPROF_FLAT;
			rc = add_spec(g, CG_GPROF_EXCL_FLAT, arg);
		} else {
			g->off |= CG_GPROF_FLAT;
		}
		break;
	case 'q':
		g->on |= CG_GPROF_GRAPH;
		if (arg)
			rc = add_spec(g, strchr(arg, '/') ? CG_GPROF_INCL_ARCS : CG_GPROF_INCL_GRAPH, arg);
		break;
	case 'Q':
		if (arg) {
			g->on |= CG_GPROF_GRAPH;
			rc = add_spec(g, strchr(arg, '/') ? CG_GPROF_EXCL_ARCS : CG_GPROF_EXCL_GRAPH, arg);
		} else {
			g->off |= CG_GPROF_GRAPH;
		}
		break;
	case 'C': g->on |= CG_GPROF_EXEC_COUNTS; rc = arg ? add_spec(g, CG_GPROF_INCL_EXEC, arg) : 0; break;
	case 'Z':
		if (arg) {
			g->on |= CG_GPROF_EXEC_COUNTS;
			rc = add_spec(g, CG_GPROF_EXCL_EXEC, arg);
		} else {
			g->off |= CG_GPROF_EXEC_COUNTS;
		}
		break;
	case 'E': rc = add_spec(g, CG_GPROF_EXCL_TIME, arg); /* fall through */
	case 'e': rc |= add_spec(g, CG_GPROF_EXCL_GRAPH, arg); break;
	case 'F': rc = add_spec(g, CG_GPROF_INCL_TIME, arg) | add_spec(g, CG_GPROF_INCL_GRAPH, arg); break;
	case 'n': rc = add_spec(g, CG_GPROF_INCL_TIME, arg); break;
	case 'N': rc = add_spec(g, CG_GPROF_EXCL_TIME, arg); break;
	case 'k': rc = add_spec(g, CG_GPROF_EXCL_ARCS, arg); break;
	case 'b': r->brief = 1; break;
	case 'T': r->traditional = 1; break;
	case 'z': r->zero = 1; break;
	case 'w': {
		long w = strtol(arg, NULL, 10);
		r->width = w < 1 ? 1 : w > INT_MAX ? INT_MAX : (unsigned)w;
		break;
	}
	case G_DEMANGLE:
		r->demangle = 1;
		r->demangle_style = arg;
		if (arg && !cg_demangle_style_known(arg)) {
			fprintf(stderr, "%s: unknown demangling style '%s'\n", prog, arg);
			return -1;
		}
		break;
	case G_NO_DEMANGLE: r->demangle = 0; break;
	case G_INLINE: r->inline_file_names = 1; break;
	case G_PART: g->view.part = arg; break;
	case G_THRESHOLD:
		if (gprof_view_parse_threshold(arg, &g->view.threshold) < 0) {
			fprintf(stderr, "%s: --threshold=%s: not a percentage between 0 and 100\n", prog,
				arg);
			return -1;
		}
		g->used_threshold = 1;
		break;
	}
	if (rc) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
	return 1;
}

int cgconvert_gprof_finish(cgconvert_gprof *g)
{
	g->view.report.specs = g->specs;
	g->view.report.nspecs = g->nspecs;
	/* as in gprof: naming a section shows only the named ones */
	unsigned base = g->on ? g->on : g->view.sections;
	g->view.sections = base & ~(g->off & ~g->on);
	return 0;
}

void cgconvert_gprof_free(cgconvert_gprof *g)
{
	free(g->specs);
	g->specs = NULL;
}
