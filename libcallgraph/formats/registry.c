/*
 * registry.c — the formats libcallgraph knows, and the generic reader and
 * writer over them.
 *
 * This is the only file that names every built-in format.  Each family
 * (formats/<family>/, gprof/) exports one ops table per format it
 * implements; they are listed below in the order detection breaks ties
 * in, and formats a program registers come after them.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "callgraph/sys/format.h"
#include "checked.h"

/* The built-in families' tables (defined in their own folders). */
extern const cg_format_ops cg_fmt_gmon, cg_fmt_cgtree, cg_fmt_fprof_trace, cg_fmt_xml,
	cg_fmt_fprof_analysis, cg_fmt_callgrind, cg_fmt_gprof, cg_fmt_flat, cg_fmt_graph,
	cg_fmt_folded, cg_fmt_dot, cg_fmt_fprof, cg_fmt_svg;
extern const cg_format_ops cg_fmt_pprof, cg_fmt_perf_script;

static const cg_format_ops *const builtin[] = {
	&cg_fmt_gmon, &cg_fmt_callgrind, &cg_fmt_xml, &cg_fmt_fprof_trace,
	&cg_fmt_fprof_analysis, &cg_fmt_cgtree, &cg_fmt_gprof, &cg_fmt_flat,
	&cg_fmt_graph, &cg_fmt_folded, &cg_fmt_dot, &cg_fmt_fprof,
	&cg_fmt_pprof, &cg_fmt_perf_script,
	&cg_fmt_svg,
};
#define NBUILTIN (sizeof builtin / sizeof builtin[0])

/* Formats added at run time.  Entries are never removed or moved, so a
 * pointer handed out stays valid; the lock guards the array's growth. */
static pthread_mutex_t added_lock = PTHREAD_MUTEX_INITIALIZER;
static const cg_format_ops **added;
static size_t nadded, added_cap;

size_t cg_format_count(void)
{
	pthread_mutex_lock(&added_lock);
	size_t n = NBUILTIN + nadded;
	pthread_mutex_unlock(&added_lock);
	return n;
}

const cg_format_ops *cg_format_at(size_t i)
{
	if (i < NBUILTIN)
		return builtin[i];
	const cg_format_ops *f = NULL;
	pthread_mutex_lock(&added_lock);
	if (i - NBUILTIN < nadded)
		f = added[i - NBUILTIN];
	pthread_mutex_unlock(&added_lock);
	return f;
}

const cg_format_ops *cg_format_find(const char *name)
{
	if (!name)
		return NULL;
	const cg_format_ops *f;
	for (size_t i = 0; (f = cg_format_at(i)) != NULL; i++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

const char *cg_format_name(const cg_format_ops *format)
{
	return format ? format->name : "unknown";
}

int cg_format_can_read(const cg_format_ops *format)
{
	return format && (format->read || format->read_many);
}

int cg_format_can_write(const cg_format_ops *format)
{
	return format && format->write;
}

char *cg_format_list(char *buf, size_t size, int writable)
{
	size_t used = 0;
	if (size)
		buf[0] = '\0';
	const cg_format_ops *f;
	for (size_t i = 0; (f = cg_format_at(i)) != NULL; i++) {
		if (writable ? !cg_format_can_write(f) : !cg_format_can_read(f))
			continue;
		int n = snprintf(buf + used, size > used ? size - used : 0, "%s%s",
				 used ? ", " : "", f->name);
		if (n > 0)
			used += (size_t)n;
	}
	return buf;
}

int cg_format_register(const cg_format_ops *ops, cg_error *err)
{
	if (!ops || ops->version != CG_FORMAT_OPS_VERSION)
		return cg_error_set(err, CG_EUSAGE, "format ops table of an unknown version");
	if (!ops->name || !ops->name[0] || strchr(ops->name, ' '))
		return cg_error_set(err, CG_EUSAGE, "a format needs a name without spaces");
	if (!ops->read && !ops->read_many && !ops->write)
		return cg_error_set(err, CG_EUSAGE, "format '%s' can neither read nor write",
				    ops->name);
	if ((ops->flags & CG_FORMAT_READS_TOGETHER) && !ops->read_many)
		return cg_error_set(err, CG_EUSAGE, "format '%s' reads inputs together but has no read_many",
				    ops->name);
	int rc = 0;
	pthread_mutex_lock(&added_lock);
	for (size_t i = 0; i < NBUILTIN + nadded && !rc; i++) {
		const cg_format_ops *f = i < NBUILTIN ? builtin[i] : added[i - NBUILTIN];
		if (strcmp(f->name, ops->name) == 0)
			rc = cg_error_set(err, CG_EUSAGE, "a format named '%s' exists already",
					  ops->name);
	}
	if (!rc && nadded == added_cap) {
		size_t cap = added_cap ? added_cap * 2 : 8;
		const cg_format_ops **a = realloc(added, cap * sizeof *a);
		if (!a)
			rc = cg_error_set(err, CG_ENOMEM, "out of memory");
		else {
			added = a;
			added_cap = cap;
		}
	}
	if (!rc)
		added[nadded++] = ops;
	pthread_mutex_unlock(&added_lock);
	return rc;
}

/* ---- detection -------------------------------------------------------------- */

const cg_format_ops *cg_format_detect(const void *head, size_t len)
{
	const cg_format_ops *best = NULL, *f;
	int best_score = 0;
	for (size_t i = 0; (f = cg_format_at(i)) != NULL; i++) {
		if (!f->detect || !cg_format_can_read(f))
			continue;
		int score = f->detect(head, len);
		if (score > best_score) {
			best = f;
			best_score = score;
		}
	}
	return best;
}

static int detect_source(cg_source *src, const cg_format_ops **out, cg_error *err)
{
	size_t len;
	const unsigned char *head = cg_source_head(src, &len);
	*out = cg_format_detect(head, len);
	if (!*out)
		return cg_error_set(err, CG_EFORMAT, "%s: unknown profile format (use -f to name it)",
				    cg_source_name(src));
	return 0;
}

int cg_format_detect_file(const char *path, const cg_format_ops **out, cg_error *err)
{
	*out = NULL;
	cg_source *src;
	int rc = cg_source_open(&src, path, err);
	if (rc)
		return rc;
	rc = detect_source(src, out, err);
	cg_source_close(src);
	return rc;
}

/* ---- diagnostics -------------------------------------------------------------- */

void cg_diag_emit(const cg_read_options *opts, const cg_diagnostic *d)
{
	if (opts && opts->diag)
		opts->diag(opts->diag_ctx, d);
}

void cg_diag_warn(const cg_read_options *opts, const char *file, uint64_t line,
		  const char *fmt, ...)
{
	if (!opts || !opts->diag)
		return;
	char msg[CG_ERROR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	for (char *c = msg; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	cg_diagnostic d = { .kind = CG_DIAG_WARNING, .file = file, .line = line, .message = msg };
	opts->diag(opts->diag_ctx, &d);
}

/* ---- reading -------------------------------------------------------------------- */

static int check_read_options(const cg_read_options *opts, cg_error *err)
{
	/* version 2 lacks drop_positions at the end, which readers only look
	 * at from version 3 on (cg_read_drops_positions) */
	if (opts && opts->version != CG_READ_OPTIONS_VERSION && opts->version != 2)
		return cg_error_set(err, CG_EUSAGE,
				    "cg_read_options version %u is not %u (rebuild against this libcallgraph)",
				    opts->version, CG_READ_OPTIONS_VERSION);
	return 0;
}

/* Puts the input's name in front of a message that does not carry it
 * already, so every reader error says which file it is about. */
static int name_error(int rc, const char *name, cg_error *err)
{
	/* the memory limit, not the system, refused: say which and how much */
	if (rc == CG_ENOMEM && err && cg_memory_limit_hit()) {
		unsigned long long mb = (unsigned long long)(cg_memory_limit() >> 20);
		if (name)
			return cg_error_set(err, rc, "%s: exceeds the memory limit of %llu MB", name, mb);
		return cg_error_set(err, rc, "the inputs exceed the memory limit of %llu MB", mb);
	}
	if (rc && err && name && strncmp(err->message, name, strlen(name)) != 0) {
		char msg[CG_ERROR_MSG_MAX];
		snprintf(msg, sizeof msg, "%s", err->message[0] ? err->message : cg_strerror(rc));
		cg_error_set(err, rc, "%s: %s", name, msg);
	}
	return rc;
}

static const cg_format_ops *named_format(const cg_read_options *opts, cg_error *err, int *rc)
{
	*rc = 0;
	if (!opts || !opts->format)
		return NULL;
	const cg_format_ops *f = cg_format_find(opts->format);
	if (!cg_format_can_read(f)) {
		char names[512];
		*rc = cg_error_set(err, CG_EUSAGE, "unknown input format '%s' (one of: %s)",
				   opts->format, cg_format_list(names, sizeof names, 0));
	}
	return f;
}

static int read_sources(cg_profile **out, cg_source *const *srcs, size_t count,
			const cg_read_options *opts, cg_error *err)
{
	*out = NULL;
	if (count == 0)
		return cg_error_set(err, CG_EUSAGE, "no input files");
	int rc;
	const cg_format_ops *named = named_format(opts, err, &rc);
	if (rc)
		return rc;
	const cg_format_ops *first = named;
	for (size_t i = 0; i < count; i++) {
		const cg_format_ops *f = named;
		if (!f && (rc = detect_source(srcs[i], &f, err)))
			return rc;
		if (i == 0)
			first = f;
		else if (f != first)
			return cg_error_set(err, CG_EMISMATCH,
					    "%s: is %s, but %s is %s; inputs to merge must be of one kind",
					    cg_source_name(srcs[i]), f->name, cg_source_name(srcs[0]),
					    first->name);
	}
	if (first->flags & CG_FORMAT_READS_TOGETHER) {
		cg_diagnostic d = { .kind = CG_DIAG_INPUT, .file = cg_source_name(srcs[0]),
				    .index = 0, .count = count };
		cg_diag_emit(opts, &d);
		rc = first->read_many(first, out, srcs, count, opts, err);
		if (!rc && (rc = cg_profile_check_sums(*out, cg_source_name(srcs[0]), err))) {
			cg_profile_free(*out);
			*out = NULL;
		}
		return name_error(rc, count == 1 ? cg_source_name(srcs[0]) : NULL, err);
	}
	cg_profile *acc = NULL;
	for (size_t i = 0; i < count; i++) {
		cg_profile *p = NULL;
		cg_diagnostic d = { .kind = CG_DIAG_INPUT, .file = cg_source_name(srcs[i]),
				    .index = i, .count = count };
		cg_diag_emit(opts, &d);
		rc = first->read(first, &p, srcs[i], opts, err);
		/* exact or refused: every later sum over p fits (checked.h) */
		if (!rc && (rc = cg_profile_check_sums(p, cg_source_name(srcs[i]), err))) {
			cg_profile_free(p);
			p = NULL;
		}
		if (rc) {
			cg_profile_free(acc);
			return name_error(rc, cg_source_name(srcs[i]), err);
		}
		if (!acc) {
			acc = p;
			continue;
		}
		rc = cg_profile_merge_into(acc, p, err);
		cg_profile_free(p);
		if (rc) {
			cg_profile_free(acc);
			return name_error(rc, cg_source_name(srcs[i]), err);
		}
	}
	*out = acc;
	return 0;
}

int cg_read_source(cg_profile **out, cg_source *src, const cg_read_options *opts,
		   cg_error *err)
{
	*out = NULL;
	int rc = check_read_options(opts, err);
	return rc ? rc : read_sources(out, &src, 1, opts, err);
}

int cg_read_files(cg_profile **out, const char *const *paths, size_t count,
		  const cg_read_options *opts, cg_error *err)
{
	*out = NULL;
	int rc = check_read_options(opts, err);
	if (rc)
		return rc;
	if (count == 0)
		return cg_error_set(err, CG_EUSAGE, "no input files");
	cg_source **srcs = calloc(count, sizeof *srcs);
	if (!srcs)
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	for (size_t i = 0; i < count && !rc; i++)
		rc = cg_source_open(&srcs[i], paths[i], err);
	if (!rc)
		rc = read_sources(out, srcs, count, opts, err);
	for (size_t i = 0; i < count; i++)
		cg_source_close(srcs[i]);
	free(srcs);
	return rc;
}

int cg_read_file(cg_profile **out, const char *path, const cg_read_options *opts,
		 cg_error *err)
{
	return cg_read_files(out, &path, 1, opts, err);
}

/* ---- writing -------------------------------------------------------------------- */

int cg_format_event_index(const cg_profile *p, const cg_write_options *opts, cg_error *err)
{
	if (!opts || !opts->event)
		return 0;
	int e = cg_profile_find_event(p, opts->event);
	if (e < 0)
		return cg_error_set(err, CG_ENOTFOUND, "no event named '%s' in the profile",
				    opts->event);
	return e;
}

static const cg_format_ops *writer(const char *name, const cg_write_options *opts,
				   cg_error *err, int *rc)
{
	*rc = 0;
	/* version 2 lacks `lines` at the end, which writers only look at
	 * from version 3 on (cg_write_lines) */
	if (opts && opts->version != CG_WRITE_OPTIONS_VERSION && opts->version != 2) {
		*rc = cg_error_set(err, CG_EUSAGE,
				   "cg_write_options version %u is not %u (rebuild against this libcallgraph)",
				   opts->version, CG_WRITE_OPTIONS_VERSION);
		return NULL;
	}
	const cg_format_ops *f = cg_format_find(name);
	if (!cg_format_can_write(f)) {
		char names[512];
		*rc = cg_error_set(err, CG_EUSAGE, "cannot write %s output (one of: %s)",
				   name ? name : "(null)", cg_format_list(names, sizeof names, 1));
	}
	return f;
}

/* A profile without events has no costs to report: only a writer that
 * says it carries one gets it; every other output is refused alike. */
static int check_events(const cg_profile *p, const cg_format_ops *f, cg_error *err)
{
	if (cg_profile_event_count(p) > 0 || (f->flags & CG_FORMAT_WRITES_NO_EVENTS))
		return 0;
	return cg_error_set(err, CG_EFORMAT,
			    "the profile has no events: nothing to write as %s (xml keeps it)", f->name);
}

int cg_write(const cg_profile *p, const char *format, FILE *out, const cg_write_options *opts,
	     cg_error *err)
{
	int rc;
	const cg_format_ops *f = writer(format, opts, err, &rc);
	if (!rc)
		rc = check_events(p, f, err);
	return rc ? rc : f->write(f, p, out, opts, err);
}

int cg_write_file(const cg_profile *p, const char *format, const char *path,
		  const cg_write_options *opts, cg_error *err)
{
	int rc;
	const cg_format_ops *f = writer(format, opts, err, &rc);
	if (rc || (rc = check_events(p, f, err)))
		return rc;
	cg_output *o;
	if ((rc = cg_output_open(&o, path, err)) != 0)
		return rc;
	rc = f->write(f, p, cg_output_file(o), opts, err);
	if (rc) {
		cg_output_abort(o);
		return rc;
	}
	return cg_output_commit(o, err);
}
