/*
 * folded_format.c — folded stacks in the format registry.
 */
#include "callgraph.h"
#include "callgraph/sys/format.h"

static int write_folded(const cg_format_ops *self, const cg_profile *p, FILE *out,
			const cg_write_options *opts, cg_error *err)
{
	int e = cg_format_event_index(p, opts, err);
	return e < 0 ? e : cg_write_folded(p, out, e, err);
}

const cg_format_ops cg_fmt_folded = {
	.version = CG_FORMAT_OPS_VERSION,
	.name = "folded",
	.description = "folded stacks (\"a;b;c 42\") for flame graphs (speedscope, inferno, FlameGraph)",
	.keeps = "the call tree's paths weighted by one event",
	.loses = "call counts, other events; arc-only inputs give one-frame stacks",
	.write = write_folded,
};
