/*
 * cgtree_format.c — the collector's cgtree files in the format registry.
 */
#include <string.h>

#include "callgraph.h"
#include "callgraph/sys/format.h"

static int detect(const unsigned char *h, size_t len)
{
	return len >= 9 && memcmp(h, "# cgtree ", 9) == 0 ? 100 : 0;
}

static int read_cgtree(const cg_format_ops *self, cg_profile **out, cg_source *src,
		       const cg_read_options *opts, cg_error *err)
{
	cg_profile *p;
	if (cg_profile_new(&p))
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	/* streamed whatever the source: holding the file whole doubled the
	 * memory of large trees */
	FILE *in;
	int rc = cg_source_stream(src, &in, err);
	if (!rc)
		rc = cg_read_cgtree_stream(p, in, cg_source_name(src), err);
	if (rc) {
		cg_profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

const cg_format_ops cg_fmt_cgtree = {
	.version = CG_FORMAT_OPS_VERSION,
	.name = "cgtree",
	.description = "cgtree: the calling-context tree written by our collector (cgrun)",
	.keeps = "(read only)",
	.loses = "(read only)",
	.detect = detect,
	.read = read_cgtree,
};
