/*
 * pprof_format.c — pprof's profile.proto in the format registry.
 */
#include <string.h>

#include "callgraph.h"
#include "callgraph/sys/format.h"
#include "pprof_internal.h"

/* gzip's magic, or a raw Profile whose first field is a sample type
 * (field 1, length-delimited) whose first field is its type (field 1,
 * varint): what pprof writers put first. */
static int detect(const unsigned char *h, size_t len)
{
	if (len >= 3 && h[0] == 0x1f && h[1] == 0x8b && h[2] == 8)
		return 60;
	if (len >= 3 && h[0] == 0x0a && h[1] < 0x80 && h[2] == 0x08)
		return 40;
	return 0;
}

static int read_pprof(const cg_format_ops *self, cg_profile **out, cg_source *src,
		      const cg_read_options *opts, cg_error *err)
{
	(void)self;
	const void *data;
	size_t len;
	int rc = cg_source_slurp(src, &data, &len, 0, err);
	if (rc)
		return rc;
	return cg_pprof_read(out, cg_source_name(src), data, len, opts, err);
}

static int write_pprof(const cg_format_ops *self, const cg_profile *p, FILE *out,
		       const cg_write_options *opts, cg_error *err)
{
	(void)self;
	return cg_pprof_write(p, out, opts, err);
}

const cg_format_ops cg_fmt_pprof = {
	.version = CG_FORMAT_OPS_VERSION,
	.name = "pprof",
	.description = "pprof profile.proto, gzipped (go tool pprof, Pyroscope, Parca, speedscope)",
	.keeps = "every event as a sample type, call stacks of call-tree inputs, call counts, parts as thread labels",
	.loses = "arc-only inputs (gmon, Callgrind) give no stacks: one-frame self samples and (callee, caller) call counts; addresses, call-site lines",
	.detect = detect,
	.read = read_pprof,
	.write = write_pprof,
};
