/*
 * callgrind_format.c — the Callgrind family in the format registry.
 */
#include <string.h>

#include "callgraph.h"
#include "callgraph/sys/format.h"
#include "callgrind_read.h"

static int has_line(const unsigned char *h, size_t len, const char *key, size_t window)
{
	size_t n = strlen(key);
	if (len > window)
		len = window;
	for (size_t i = 0; i + n <= len; i++)
		if ((i == 0 || h[i - 1] == '\n') && memcmp(h + i, key, n) == 0)
			return 1;
	return 0;
}

static int detect(const unsigned char *h, size_t len)
{
	size_t i = 0;
	while (i < len && (h[i] == ' ' || h[i] == '\t' || h[i] == '\r' || h[i] == '\n'))
		i++;
	if (len - i >= 18 && memcmp(h + i, "# callgrind format", 18) == 0)
		return 90;
	if (len - i >= 1 && h[i] == '<')
		return 0;  /* markup, never a Callgrind file */
	/* Files without the optional first line still declare their events
	 * near the top. */
	return has_line(h, len, "events:", 2047) ? 50 : 0;
}

static int read_callgrind(const cg_format_ops *self, cg_profile **out, cg_source *src,
			  const cg_read_options *opts, cg_error *err)
{
	FILE *in;
	int rc = cg_source_stream(src, &in, err);
	return rc ? rc : cg_callgrind_read(out, in, cg_source_name(src), opts, err);
}

static int write_callgrind(const cg_format_ops *self, const cg_profile *p, FILE *out,
			   const cg_write_options *opts, cg_error *err)
{
	cg_callgrind_options c = CG_CALLGRIND_OPTIONS_INIT;
	c.merge_parts = opts ? opts->merge_parts : 0;
	return cg_write_callgrind(p, out, &c, err);
}

const cg_format_ops cg_fmt_callgrind = {
	.version = CG_FORMAT_OPS_VERSION,
	.name = "callgrind",
	.description = "Callgrind (valgrind --tool=callgrind; KCachegrind, callgrind_annotate)",
	.keeps = "events, functions with object and file, self costs per line, instruction and "
		 "inlined file, calls and inclusive costs per arc and call site, jump lines, parts",
	.loses = "the call tree (only caller/callee pairs), metadata other than "
		 "cmd/creator",
	.detect = detect,
	.read = read_callgrind,
	.write = write_callgrind,
};
