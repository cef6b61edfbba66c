/*
 * fprof_format.c — Erlang fprof traces, fprof analyses and our fprof
 * analysis writer in the format registry.
 */
#include <string.h>

#include "callgraph.h"
#include "callgraph/sys/format.h"

/* The fprof reader's own callbacks, forwarded to the one diagnostics
 * channel of the read options. */
struct bridge {
	const cg_read_options *opts;
	const char *file;
};

static void bridge_warn(void *ctx, const char *message)
{
	const struct bridge *b = ctx;
	cg_diagnostic d = { .kind = CG_DIAG_WARNING, .file = b->file, .message = message };
	cg_diag_emit(b->opts, &d);
}

static void bridge_progress(void *ctx, uint64_t done, uint64_t total)
{
	const struct bridge *b = ctx;
	cg_diagnostic d = { .kind = CG_DIAG_BYTES, .file = b->file, .done = done, .total = total };
	cg_diag_emit(b->opts, &d);
}

static int detect_trace(const unsigned char *h, size_t len)
{
	/* trace-port framing: op 0, a 4-byte length, then an external term
	 * (version byte 131) */
	return len >= 6 && h[0] == 0 && h[5] == 131 ? 90 : 0;
}

static int read_trace(const cg_format_ops *self, cg_profile **out, cg_source *src,
		      const cg_read_options *opts, cg_error *err)
{
	cg_profile *p;
	if (cg_profile_new(&p))
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	struct bridge b = { opts, cg_source_name(src) };
	cg_fprof_read_options fo = CG_FPROF_READ_OPTIONS_INIT;
	if (opts && opts->diag) {
		fo.warn = bridge_warn;
		fo.warn_ctx = &b;
		fo.progress = bridge_progress;
		fo.progress_ctx = &b;
	}
	fo.suspend_self = opts ? opts->fprof_suspend_self : 0;
	int rc;
	if (cg_source_path(src)) {
		rc = cg_read_fprof_trace(p, cg_source_path(src), &fo, err);
	} else {
		const void *data;
		size_t len;
		rc = cg_source_slurp(src, &data, &len, 0, err);
		if (!rc)
			rc = cg_read_fprof_trace_buffer(p, data, len, cg_source_name(src), &fo, err);
	}
	if (rc) {
		cg_profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

static int detect_analysis(const unsigned char *h, size_t len)
{
	size_t i = 0;
	if (len >= 3 && memcmp(h, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < len && (h[i] == ' ' || h[i] == '\t' || h[i] == '\r' || h[i] == '\n'))
		i++;
	return len - i >= 20 && memcmp(h + i, "%% Analysis results:", 20) == 0 ? 90 : 0;
}

static int read_analysis(const cg_format_ops *self, cg_profile **out, cg_source *src,
			 const cg_read_options *opts, cg_error *err)
{
	cg_profile *p;
	if (cg_profile_new(&p))
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	int rc;
	if (cg_source_path(src)) {
		rc = cg_read_fprof_analysis(p, cg_source_path(src), err);
	} else {
		const void *data;
		size_t len;
		rc = cg_source_slurp_text(src, &data, &len, 0, err);
		if (!rc)
			rc = cg_read_fprof_analysis_buffer(p, data, len, cg_source_name(src), err);
	}
	if (rc) {
		cg_profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

static int write_analysis(const cg_format_ops *self, const cg_profile *p, FILE *out,
			  const cg_write_options *opts, cg_error *err)
{
	cg_fprof_analyse_options f;
	int rc = cg_fprof_analyse_options_parse(&f, opts ? opts->fprof_analyse : NULL, err);
	return rc ? rc : cg_write_fprof_analysis(p, out, &f, err);
}

const cg_format_ops cg_fmt_fprof_trace = {
	.version = CG_FORMAT_OPS_VERSION,
	.name = "fprof-trace",
	.description = "Erlang fprof trace file (fprof:trace, dbg trace port), replayed as fprof does",
	.keeps = "(read only)",
	.loses = "(read only)",
	.detect = detect_trace,
	.read = read_trace,
};

const cg_format_ops cg_fmt_fprof_analysis = {
	.version = CG_FORMAT_OPS_VERSION,
	.name = "fprof-analysis",
	.description = "the text fprof:analyse prints",
	.keeps = "(read only)",
	.loses = "(read only)",
	.detect = detect_analysis,
	.read = read_analysis,
};

const cg_format_ops cg_fmt_fprof = {
	.version = CG_FORMAT_OPS_VERSION,
	.name = "fprof",
	.description = "fprof:analyse text (byte for byte for fprof inputs; --fprof-analyse options)",
	.keeps = "per-process CNT/ACC/OWN, callers and callees",
	.loses = "call tree, events other than the first time event",
	.write = write_analysis,
};
