/*
 * write_dot.c — the call graph for Graphviz: one node per function with
 * its self and inclusive cost, one edge per arc labelled with the call
 * count and drawn thicker the more inclusive cost it carries, and every
 * cycle (strongly connected component) as a cluster.  Functions under
 * 0.5 % of the total (inclusive) are left out, as gprof2dot does.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "arc_cost.h"
#include "dot_internal.h"

/* gprof's cycle numbering when the gprof module is built in */
/* percent of the total below which a function is left out by default */
#define NODE_THRESHOLD 0.5

#pragma weak cg_gprof_cycles
#pragma weak cg_demangle

static void put_quoted(FILE *out, const char *s)
{
	char *dem = cg_demangle ? cg_demangle(s) : NULL;
	putc('"', out);
	for (const char *c = dem ? dem : s; *c; c++) {
		if (*c == '"' || *c == '\\')
			putc('\\', out);
		if ((unsigned char)*c < 0x20)
			putc(' ', out);
		else
			putc(*c, out);
	}
	putc('"', out);
	free(dem);
}

static double percent(double v, double total)
{
	return total > 0 ? 100.0 * v / total : 0.0;
}

static int write_graph(const cg_profile *p, FILE *out, int event, double threshold, int lines)
{
	size_t nf = cg_profile_function_count(p), nev = cg_profile_event_count(p);
	size_t na = cg_profile_arc_count(p, 0);
	double *self = calloc((nf ? nf : 1) * nev, sizeof *self);
	double *arc_incl = calloc((na ? na : 1) * nev, sizeof *arc_incl);
	double *incl = calloc(nf ? nf : 1, sizeof *incl);
	uint32_t *comp = malloc((nf ? nf : 1) * sizeof *comp);
	uint32_t *size = malloc((nf ? nf : 1) * sizeof *size);
	uint32_t *cycle = calloc(nf ? nf : 1, sizeof *cycle);
	unsigned char *used = calloc(nf ? nf : 1, 1);
	double scale[CG_MAX_EVENTS];
	uint32_t ncomp = 0;
	int rc = CG_ENOMEM;
	if (!self || !arc_incl || !incl || !comp || !size || !cycle || !used)
		goto out;
	int exact = cg_profile_has_self_exact(p, 0);
	for (size_t e = 0; e < nev; e++)
		scale[e] = 1.0;
	double total = 0;
	for (size_t f = 0; f < nf; f++) {
		const cg_cost *s = cg_profile_self(p, 0, (cg_fid)f);
		for (size_t e = 0; e < nev; e++)
			self[f * nev + e] = (e == 0 && exact) ? cg_profile_self_exact(p, 0, (cg_fid)f)
							     : (double)s[e];
		incl[f] = self[f * nev + (size_t)event];
		total += incl[f];
		if (incl[f] != 0)
			used[f] = 1;
	}
	if (cg_graph_arc_costs(p, 0, self, scale, arc_incl) || cg_graph_part_scc(p, 0, comp, &ncomp, size))
		goto out;
	for (size_t i = 0; i < na; i++) {
		const cg_arc *a = cg_profile_arc(p, 0, i);
		if (a->count == 0 && arc_incl[i * nev + (size_t)event] == 0)
			continue;
		used[a->caller] = used[a->callee] = 1;
		if (a->caller != a->callee)
			incl[a->caller] += arc_incl[i * nev + (size_t)event];
	}
	for (size_t f = 0; f < nf; f++) {
		const cg_cost *known = cg_profile_inclusive(p, 0, (cg_fid)f);
		if (known)
			incl[f] = (double)known[event];
	}
	/* Like gprof2dot, leave out functions below the threshold of the
	 * total: a graph of thousands of nodes is unreadable and takes
	 * Graphviz minutes to lay out.  Costless profiles keep everything. */
	if (total > 0)
		for (size_t f = 0; f < nf; f++)
			if (used[f] && percent(incl[f], total) < threshold)
				used[f] = 0;
	/* cycle numbers: gprof's when available, else components with more
	 * than one member numbered by their lowest function */
	uint32_t ncycles = 0;
	if (!(cg_gprof_cycles && cg_gprof_cycles(p, 0, cycle, &ncycles, NULL) == 0)) {
		memset(cycle, 0, nf * sizeof *cycle);
		uint32_t *num = calloc(ncomp ? ncomp : 1, sizeof *num);
		if (!num)
			goto out;
		ncycles = 0;
		for (size_t f = 0; f < nf; f++) {
			if (size[comp[f]] < 2)
				continue;
			if (!num[comp[f]])
				num[comp[f]] = ++ncycles;
			cycle[f] = num[comp[f]];
		}
		free(num);
	}

	const cg_event *ev = cg_profile_event(p, (size_t)event);
	fputs("digraph callgraph {\n", out);
	fputs("\tgraph [rankdir=TB, fontname=\"Helvetica\"];\n", out);
	fputs("\tnode [shape=box, style=filled, fillcolor=\"#f8f8f8\", fontname=\"Helvetica\"];\n",
	      out);
	fputs("\tedge [fontname=\"Helvetica\"];\n", out);
	/* the graph's caption says what the numbers are and what was cut:
	 * "description (name, 1 = 0.01 s); functions under 0.5% ..." */
	char caption[512], unit[64] = "";
	int own_name = ev->description && *ev->description && strcmp(ev->description, ev->name);
	if (ev->unit_seconds > 0)
		snprintf(unit, sizeof unit, "1 = %g s", ev->unit_seconds);
	int len = snprintf(caption, sizeof caption, "%s%s%s%s%s%s",
			   own_name ? ev->description : ev->name, own_name || *unit ? " (" : "",
			   own_name ? ev->name : "", own_name && *unit ? ", " : "", unit,
			   own_name || *unit ? ")" : "");
	if (len > 0 && (size_t)len < sizeof caption && threshold > 0)
		snprintf(caption + len, sizeof caption - (size_t)len,
			 "; functions under %g%% of the total left out", threshold);
	fputs("\tlabel=", out);
	put_quoted(out, caption);
	fputs(";\n", out);
	for (uint32_t c = 1; c <= ncycles; c++) {
		size_t members = 0;
		for (size_t f = 0; f < nf; f++)
			members += cycle[f] == c && used[f];
		if (!members)
			continue;
		fprintf(out, "\tsubgraph cluster_cycle%u {\n\t\tlabel=\"<cycle %u>\";\n"
			"\t\tstyle=dashed;\n", c, c);
		for (size_t f = 0; f < nf; f++)
			if (cycle[f] == c && used[f])
				fprintf(out, "\t\tf%zu;\n", f);
		fputs("\t}\n", out);
	}
	for (size_t f = 0; f < nf; f++) {
		if (!used[f])
			continue;
		const cg_function *fn = cg_profile_function(p, (cg_fid)f);
		double s = self[f * nev + (size_t)event];
		fprintf(out, "\tf%zu [label=", f);
		put_quoted(out, fn->name);
		fprintf(out, " + \"\\nself %.6g (%.2f%%)\\ntotal %.6g (%.2f%%)", s,
			percent(s, total), incl[f], percent(incl[f], total));
		if (lines && (rc = cg_dot_put_self_lines(out, p, (cg_fid)f, event, total)))
			goto out;
		putc('"', out);
		/* darker the more inclusive cost */
		int shade = 248 - (int)lround(percent(incl[f], total) * 1.2);
		if (shade < 128)
			shade = 128;
		fprintf(out, ", fillcolor=\"#f8%02x%02x\"];\n", shade, shade);
	}
	for (size_t i = 0; i < na; i++) {
		const cg_arc *a = cg_profile_arc(p, 0, i);
		double c = arc_incl[i * nev + (size_t)event];
		if ((a->count == 0 && c == 0) || !used[a->caller] || !used[a->callee])
			continue;
		double w = percent(c, total);
		fprintf(out, "\tf%u -> f%u [label=\"%" PRIu64 "x\\n%.6g", a->caller, a->callee,
			a->count, c);
		if (lines)
			cg_dot_put_sites(out, p, i);
		fprintf(out, "\", penwidth=%.2f, weight=%d];\n", 1.0 + w / 10.0, 1 + (int)lround(w));
	}
	fputs("}\n", out);
	rc = 0;
out:
	free(self);
	free(arc_incl);
	free(incl);
	free(comp);
	free(size);
	free(cycle);
	free(used);
	return rc;
}

int cg_write_dot(const cg_profile *p, FILE *out, int event, cg_error *err)
{
	return cg_dot_write_cut(p, out, event, NODE_THRESHOLD, 0, err);
}

int cg_dot_write_cut(const cg_profile *p, FILE *out, int event, double threshold, int lines,
		     cg_error *err)
{
	if (event < 0)
		event = 0;
	if ((size_t)event >= cg_profile_event_count(p))
		return cg_error_set(err, CG_EUSAGE, "dot: the profile has no event %d", event);
	cg_profile *merged = NULL;
	if (cg_profile_part_count(p) > 1) {
		int rc = cg_profile_merge_parts(&merged, p, err);
		if (rc)
			return rc;
		p = merged;
	}
	int rc = write_graph(p, out, event, threshold, lines);
	cg_profile_free(merged);
	if (rc)
		return cg_error_set(err, rc, "dot: out of memory");
	if (ferror(out))
		return cg_error_set(err, CG_EIO, "dot: write error");
	return 0;
}
