/*
 * perf_format.c — `perf script` text in the format registry.
 */
#include <ctype.h>
#include <string.h>

#include "callgraph.h"
#include "callgraph/sys/format.h"
#include "perf_internal.h"

/* The first line that is not a comment: a sample header has an event
 * token ("name:") after a pid (and, in the default output, a time
 * "123.456789:"); the next line is a call-chain frame (tab, address).
 * Header and frame: 80; header with a time alone: 60. */
static int detect(const unsigned char *h, size_t len)
{
	size_t i = 0;
	while (i < len && h[i] == '#') {
		const unsigned char *nl = memchr(h + i, '\n', len - i);
		if (!nl)
			return 0;
		i = (size_t)(nl - h) + 1;
	}
	const unsigned char *nl = memchr(h + i, '\n', len - i);
	size_t end = nl ? (size_t)(nl - h) : len;
	int has_time = 0, has_pid = 0, has_event = 0;
	for (size_t j = i; j < end && !has_event;) {
		if (h[j] == 0 || h[j] == '\t')
			return 0;
		if (h[j] == ' ') {
			j++;
			continue;
		}
		size_t b = j;
		while (j < end && h[j] != ' ' && h[j] != '\t' && h[j])
			j++;
		size_t n = j - b;
		int digits = 1;
		for (size_t k = b; k < j; k++)
			if (!isdigit(h[k]) && h[k] != '/')
				digits = 0;
		if (digits && b > i)
			has_pid = 1;
		else if (n > 1 && h[j - 1] == ':' && isdigit(h[b]) && memchr(h + b, '.', n))
			has_time = 1;
		else if (n > 1 && h[j - 1] == ':' && (isalpha(h[b]) || h[b] == '_') && has_pid)
			has_event = 1;
	}
	if (!has_event)
		return 0;
	if (nl && end + 1 < len && h[end + 1] == '\t')
		return 80;
	return has_time ? 60 : 0;
}

static int read_perf(const cg_format_ops *self, cg_profile **out, cg_source *src,
		     const cg_read_options *opts, cg_error *err)
{
	(void)self;
	return cg_perf_script_read(out, src, opts, err);
}

const cg_format_ops cg_fmt_perf_script = {
	.version = CG_FORMAT_OPS_VERSION,
	.name = "perf-script",
	.description = "perf script text (perf record [-g | --call-graph=dwarf]; perf script)",
	.keeps = "(read only)",
	.loses = "(read only)",
	.detect = detect,
	.read = read_perf,
};
