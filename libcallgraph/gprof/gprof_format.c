/*
 * gprof_format.c — gprof's reports (flat profile, call graph, both) as
 * output formats of the registry, brief (-b) style.
 */
#include "callgraph.h"
#include "callgraph/sys/format.h"

static int write_gprof(const cg_format_ops *self, const cg_profile *p, FILE *out,
		       const cg_write_options *opts, cg_error *err)
{
	unsigned sections = (unsigned)(uintptr_t)self->data;
	cg_gprof_options g = CG_GPROF_OPTIONS_INIT;
	int e = cg_format_event_index(p, opts, err);
	if (e < 0)
		return e;
	g.brief = 1;
	g.event = (unsigned)e;
	/* The honest attribution is the default wherever the input knows it. */
	g.use_exact_inclusive = !(opts && opts->gprof_estimate);
	if (cg_profile_part_count(p) == 1)
		return cg_gprof_report(p, 0, sections, &g, out, err);
	cg_profile *merged;
	int rc = cg_profile_merge_parts(&merged, p, err);
	if (rc)
		return rc;
	rc = cg_gprof_report(merged, 0, sections, &g, out, err);
	cg_profile_free(merged);
	return rc;
}

#define GPROF_KEEPS "self and inclusive time per function, calls per arc, cycles"
#define GPROF_LOSES "parts (merged), events other than the chosen one, the call tree"

const cg_format_ops cg_fmt_gprof = {
	.version = CG_FORMAT_OPS_VERSION,
	.name = "gprof",
	.description = "gprof's flat profile and call graph (brief)",
	.keeps = GPROF_KEEPS,
	.loses = GPROF_LOSES,
	.write = write_gprof,
	.data = (void *)(uintptr_t)(CG_GPROF_FLAT | CG_GPROF_GRAPH),
};

const cg_format_ops cg_fmt_flat = {
	.version = CG_FORMAT_OPS_VERSION,
	.name = "flat",
	.description = "gprof's flat profile (brief)",
	.keeps = GPROF_KEEPS,
	.loses = GPROF_LOSES,
	.write = write_gprof,
	.data = (void *)(uintptr_t)CG_GPROF_FLAT,
};

const cg_format_ops cg_fmt_graph = {
	.version = CG_FORMAT_OPS_VERSION,
	.name = "graph",
	.description = "gprof's call graph (brief)",
	.keeps = GPROF_KEEPS,
	.loses = GPROF_LOSES,
	.write = write_gprof,
	.data = (void *)(uintptr_t)CG_GPROF_GRAPH,
};
