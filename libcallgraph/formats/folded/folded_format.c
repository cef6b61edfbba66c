/*
 * folded_format.c — folded stacks in the format registry.
 */
#include <string.h>

#include "callgraph.h"
#include "callgraph/sys/format.h"
#include "folded_internal.h"

/* Up to three lines of "frame;frame COUNT": printable text, a blank
 * before a decimal count at the end.  Weak (30, 40 with a ';'): other
 * text formats win ties and have stronger signs. */
static int detect(const unsigned char *h, size_t len)
{
	size_t i = 0;
	int lines = 0, semis = 0;
	while (i < len && lines < 3) {
		const unsigned char *nl = memchr(h + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - h) : len;
		if (!nl && lines > 0)
			break;   /* a line cut by the end of what we were shown */
		size_t e = end;
		if (e > i && h[e - 1] == '\r')
			e--;
		size_t d = e;
		while (d > i && h[d - 1] >= '0' && h[d - 1] <= '9')
			d--;
		if (d == e || d == i || h[d - 1] != ' ' || d - 1 == i || h[i] == '#')
			return 0;
		for (size_t k = i; k < d - 1; k++) {
			if (h[k] < 0x20 || h[k] == 0x7f)
				return 0;
			semis += h[k] == ';';
		}
		lines++;
		i = end + 1;
	}
	return lines ? (semis ? 40 : 30) : 0;
}

static int read_folded(const cg_format_ops *self, cg_profile **out, cg_source *src,
		       const cg_read_options *opts, cg_error *err)
{
	(void)self;
	(void)opts;
	return cg_folded_read(out, src, err);
}

static int write_folded(const cg_format_ops *self, const cg_profile *p, FILE *out,
			const cg_write_options *opts, cg_error *err)
{
	int e = cg_format_event_index(p, opts, err);
	int lines = opts && opts->version >= 3 && opts->lines;
	return e < 0 ? e : cg_folded_write(p, out, e, lines, err);
}

const cg_format_ops cg_fmt_folded = {
	.version = CG_FORMAT_OPS_VERSION,
	.name = "folded",
	.description = "folded stacks (\"a;b;c 42\") for flame graphs (speedscope, inferno, FlameGraph)",
	.keeps = "the call tree's paths weighted by one event",
	.loses = "call counts, other events; arc-only inputs give one-frame stacks; read back: names only",
	.detect = detect,
	.read = read_folded,
	.write = write_folded,
};
