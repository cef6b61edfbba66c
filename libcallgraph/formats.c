/*
 * formats.c — format names, detection from content, and the generic
 * reader/writer dispatch used by cgconvert and cgdiff.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"

/* Other modules' readers and writers are referenced weakly, so this file
 * builds (and reports "not built in") while a module is still missing. */
#pragma weak cg_read_gmon
#pragma weak cg_gprof_report

static const char *const format_names[] = {
	[CG_FORMAT_UNKNOWN] = "unknown",
	[CG_FORMAT_GMON] = "gmon",
	[CG_FORMAT_CALLGRIND] = "callgrind",
	[CG_FORMAT_XML] = "xml",
	[CG_FORMAT_FPROF_TRACE] = "fprof-trace",
	[CG_FORMAT_FPROF_ANALYSIS] = "fprof-analysis",
	[CG_FORMAT_CGTREE] = "cgtree",
	[CG_FORMAT_GPROF] = "gprof",
	[CG_FORMAT_FLAT] = "flat",
	[CG_FORMAT_GRAPH] = "graph",
	[CG_FORMAT_FOLDED] = "folded",
	[CG_FORMAT_DOT] = "dot",
	[CG_FORMAT_FPROF] = "fprof",
};
#define NFORMATS (sizeof format_names / sizeof format_names[0])

const char *cg_format_name(cg_format format)
{
	return (size_t)format < NFORMATS ? format_names[format] : "unknown";
}

cg_format cg_format_from_name(const char *name)
{
	for (size_t i = 1; name && i < NFORMATS; i++)
		if (strcmp(name, format_names[i]) == 0)
			return (cg_format)i;
	return CG_FORMAT_UNKNOWN;
}

int cg_format_can_read(cg_format format)
{
	switch (format) {
	case CG_FORMAT_GMON:
	case CG_FORMAT_CALLGRIND:
	case CG_FORMAT_XML:
	case CG_FORMAT_CGTREE:
	case CG_FORMAT_FPROF_TRACE:
	case CG_FORMAT_FPROF_ANALYSIS:
		return 1;
	default:
		return 0;
	}
}

int cg_format_can_write(cg_format format)
{
	switch (format) {
	case CG_FORMAT_CALLGRIND:
	case CG_FORMAT_XML:
	case CG_FORMAT_GPROF:
	case CG_FORMAT_FLAT:
	case CG_FORMAT_GRAPH:
	case CG_FORMAT_FOLDED:
	case CG_FORMAT_DOT:
	case CG_FORMAT_FPROF:
		return 1;
	default:
		return 0;
	}
}

static int starts_with(const unsigned char *h, size_t len, const char *s)
{
	size_t n = strlen(s);
	return len >= n && memcmp(h, s, n) == 0;
}

/* A line starting with `key` within the first `window` bytes. */
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

static int contains(const unsigned char *h, size_t len, const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i + n <= len; i++)
		if (memcmp(h + i, s, n) == 0)
			return 1;
	return 0;
}

cg_format cg_format_detect(const void *head, size_t len)
{
	const unsigned char *h = head;
	if (starts_with(h, len, "gmon"))
		return CG_FORMAT_GMON;
	if (starts_with(h, len, "# cgtree "))
		return CG_FORMAT_CGTREE;
	/* Erlang trace port file: op 0, 4-byte length, then an external term
	 * (version byte 131) */
	if (len >= 6 && h[0] == 0 && h[5] == 131)
		return CG_FORMAT_FPROF_TRACE;
	size_t i = 0;
	if (starts_with(h, len, "\xef\xbb\xbf"))
		i = 3;
	while (i < len && (h[i] == ' ' || h[i] == '\t' || h[i] == '\r' || h[i] == '\n'))
		i++;
	if (starts_with(h + i, len - i, "<?xml") || starts_with(h + i, len - i, "<callgraph"))
		return contains(h, len, "<callgraph") ? CG_FORMAT_XML : CG_FORMAT_UNKNOWN;
	if (starts_with(h + i, len - i, "%% Analysis results:"))
		return CG_FORMAT_FPROF_ANALYSIS;
	if (starts_with(h + i, len - i, "# callgrind format") ||
	    has_line(h, len, "events:", 2047))
		return CG_FORMAT_CALLGRIND;
	return CG_FORMAT_UNKNOWN;
}

int cg_format_detect_file(const char *path, cg_format *out, cg_error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return cg_error_set(err, CG_EIO, "%s: %s", path, strerror(errno));
	unsigned char head[4096];
	size_t n = fread(head, 1, sizeof head, f);
	int bad = ferror(f);
	fclose(f);
	if (bad)
		return cg_error_set(err, CG_EIO, "%s: read error", path);
	*out = cg_format_detect(head, n);
	if (*out == CG_FORMAT_UNKNOWN)
		return cg_error_set(err, CG_EFORMAT,
				    "%s: unknown profile format (use -f to name it)", path);
	return 0;
}

/* Reads one file of a known format other than gmon. */
static int read_one(cg_profile **out, cg_format format, const char *path,
		    const cg_read_options *opts, cg_error *err)
{
	switch (format) {
	case CG_FORMAT_CALLGRIND:
		return cg_read_callgrind(out, path, err);
	case CG_FORMAT_XML:
		return cg_read_xml(out, path, err);
	case CG_FORMAT_CGTREE: {
		if (cg_profile_new(out))
			return cg_error_set(err, CG_ENOMEM, "out of memory");
		int rc = cg_read_cgtree(*out, path, err);
		if (rc) {
			cg_profile_free(*out);
			*out = NULL;
		}
		return rc;
	}
	case CG_FORMAT_FPROF_TRACE:
	case CG_FORMAT_FPROF_ANALYSIS: {
		if (cg_profile_new(out))
			return cg_error_set(err, CG_ENOMEM, "out of memory");
		cg_fprof_read_options fo = CG_FPROF_READ_OPTIONS_INIT;
		if (opts) {
			fo.progress = opts->progress_bytes;
			fo.progress_ctx = opts->progress_ctx;
			fo.warn = opts->warn;
			fo.warn_ctx = opts->warn_ctx;
			fo.suspend_self = opts->fprof_suspend_self;
		}
		int rc = format == CG_FORMAT_FPROF_TRACE ? cg_read_fprof_trace(*out, path, &fo, err)
							 : cg_read_fprof_analysis(*out, path, err);
		if (rc) {
			cg_profile_free(*out);
			*out = NULL;
		}
		return rc;
	}
	default:
		return cg_error_set(err, CG_EUSAGE, "%s: cannot read %s input (not built in)",
				    path, cg_format_name(format));
	}
}

static int read_gmon(cg_profile **out, const char *const *paths, size_t count,
		     const cg_read_options *opts, cg_error *err)
{
	cg_profile *p;
	if (cg_profile_new(&p))
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	const char *exe = opts && opts->executable ? opts->executable : "a.out";
	cg_gmon_options gopts = CG_GMON_OPTIONS_INIT;
	if (!cg_read_gmon) {
		cg_profile_free(p);
		return cg_error_set(err, CG_EUSAGE, "%s: gmon input is not built in", paths[0]);
	}
	if (opts && opts->progress)
		opts->progress(opts->progress_ctx, 0, count, paths[0]);
	int rc = cg_read_gmon(p, exe, paths, count, &gopts, err);
	if (rc) {
		cg_profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int cg_read_files(cg_profile **out, const char *const *paths, size_t count,
		  const cg_read_options *opts, cg_error *err)
{
	*out = NULL;
	if (count == 0)
		return cg_error_set(err, CG_EUSAGE, "no input files");
	cg_format format = opts ? opts->format : CG_FORMAT_UNKNOWN;
	cg_format first = format;
	for (size_t i = 0; i < count; i++) {
		cg_format f = format;
		if (f == CG_FORMAT_UNKNOWN) {
			int rc = cg_format_detect_file(paths[i], &f, err);
			if (rc)
				return rc;
		}
		if (i == 0)
			first = f;
		else if (f != first)
			return cg_error_set(err, CG_EMISMATCH,
					    "%s: is %s, but %s is %s; inputs to merge must be of one kind",
					    paths[i], cg_format_name(f), paths[0],
					    cg_format_name(first));
	}
	if (first == CG_FORMAT_GMON)
		return read_gmon(out, paths, count, opts, err);

	cg_profile *acc = NULL;
	for (size_t i = 0; i < count; i++) {
		cg_profile *p = NULL;
		if (opts && opts->progress)
			opts->progress(opts->progress_ctx, i, count, paths[i]);
		int rc = read_one(&p, first, paths[i], opts, err);
		if (rc) {
			cg_profile_free(acc);
			return rc;
		}
		if (!acc) {
			acc = p;
			continue;
		}
		rc = cg_profile_merge_into(acc, p, err);
		cg_profile_free(p);
		if (rc) {
			cg_profile_free(acc);
			return rc;
		}
	}
	*out = acc;
	return 0;
}

int cg_read_file(cg_profile **out, const char *path, const cg_read_options *opts,
		 cg_error *err)
{
	return cg_read_files(out, &path, 1, opts, err);
}

static int event_index(const cg_profile *p, const cg_write_options *opts, cg_error *err)
{
	if (!opts || !opts->event)
		return 0;
	int e = cg_profile_find_event(p, opts->event);
	if (e < 0)
		return cg_error_set(err, CG_ENOTFOUND, "no event named '%s' in the profile",
				    opts->event);
	return e;
}

static int write_gprof(const cg_profile *p, unsigned sections, const cg_write_options *opts,
		       FILE *out, cg_error *err)
{
	cg_gprof_options g = CG_GPROF_OPTIONS_INIT;
	if (!cg_gprof_report)
		return cg_error_set(err, CG_EUSAGE, "gprof output is not built in");
	int e = event_index(p, opts, err);
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

int cg_write(const cg_profile *p, cg_format format, FILE *out, const cg_write_options *opts,
	     cg_error *err)
{
	int e;
	switch (format) {
	case CG_FORMAT_CALLGRIND: {
		cg_callgrind_options c = CG_CALLGRIND_OPTIONS_INIT;
		c.merge_parts = opts ? opts->merge_parts : 0;
		return cg_write_callgrind(p, out, &c, err);
	}
	case CG_FORMAT_XML:
		return cg_write_xml(p, out, err);
	case CG_FORMAT_GPROF:
		return write_gprof(p, CG_GPROF_FLAT | CG_GPROF_GRAPH, opts, out, err);
	case CG_FORMAT_FLAT:
		return write_gprof(p, CG_GPROF_FLAT, opts, out, err);
	case CG_FORMAT_GRAPH:
		return write_gprof(p, CG_GPROF_GRAPH, opts, out, err);
	case CG_FORMAT_FOLDED:
		if ((e = event_index(p, opts, err)) < 0)
			return e;
		return cg_write_folded(p, out, e, err);
	case CG_FORMAT_DOT:
		if ((e = event_index(p, opts, err)) < 0)
			return e;
		return cg_write_dot(p, out, e, err);
	case CG_FORMAT_FPROF: {
		cg_fprof_analyse_options f;
		int rc = cg_fprof_analyse_options_parse(&f, opts ? opts->fprof_analyse : NULL, err);
		return rc ? rc : cg_write_fprof_analysis(p, out, &f, err);
	}
	default:
		return cg_error_set(err, CG_EUSAGE, "cannot write %s output",
				    cg_format_name(format));
	}
}

int cg_write_file(const cg_profile *p, cg_format format, const char *path,
		  const cg_write_options *opts, cg_error *err)
{
	cg_output *o;
	int rc = cg_output_open(&o, path, err);
	if (rc)
		return rc;
	rc = cg_write(p, format, cg_output_file(o), opts, err);
	if (rc) {
		cg_output_abort(o);
		return rc;
	}
	return cg_output_commit(o, err);
}
