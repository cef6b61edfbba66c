/*
 * dot_format.c — Graphviz call graphs in the format registry.
 */
#include "callgraph.h"
#include "callgraph/sys/format.h"
#include "dot_internal.h"

static int write_dot(const cg_format_ops *self, const cg_profile *p, FILE *out,
		     const cg_write_options *opts, cg_error *err)
{
	int e = cg_format_event_index(p, opts, err);
	int lines = opts && opts->version >= 3 && opts->lines;
	return e < 0 ? e
		     : cg_dot_write_cut(p, out, e, opts ? opts->dot_threshold : 0.5, lines, err);
}

const cg_format_ops cg_fmt_dot = {
	.version = CG_FORMAT_OPS_VERSION,
	.name = "dot",
	.description = "Graphviz digraph of the call graph, cycles as clusters",
	.keeps = "functions and arcs above 0.5% (dot_threshold) of the total, self and inclusive cost, counts",
	.loses = "parts (merged), small functions, the call tree",
	.write = write_dot,
};
