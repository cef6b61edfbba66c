/*
 * read_perf_script.c — the text `perf script` prints (the default fields,
 * and -F sets with comm, pid/tid, time, period, event, ip, sym, dso) into
 * the model.  docs/formats.md has the mapping; in short:
 *
 *  - a sample is a header line ("comm pid/tid [cpu] time: period event:")
 *    followed by its call chain, one frame per tab-indented line, leaf
 *    first ("\t addr symbol+off (dso)"), up to a blank line; a sample
 *    without a chain (perf record without -g) has its frame on the header;
 *  - each event is an event of the model; a sample adds its period (1 when
 *    the period is not printed).  cpu-clock and task-clock periods are
 *    nanoseconds;
 *  - functions are (symbol without +offset, dso); "[unknown]" stays a
 *    function of its dso; kernel frames are functions of [kernel.kallsyms];
 *  - each thread (pid/tid, or pid) is a part named "comm pid/tid".
 *
 * The input is read as a stream, once, in constant memory per line.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "callgraph.h"
#include "callgraph/sys/format.h"
#include "hashmap.h"
#include "linereader.h"
#include "../stacks/stack_tree.h"
#include "perf_internal.h"

struct event_info {
	const char *name;      /* interned */
	int timed;             /* period in nanoseconds */
};

struct reader {
	const char *name;
	cg_profile *p;
	cg_error *err;
	struct cg_stack_tree tree;
	struct event_info events[CG_MAX_EVENTS];
	size_t nevents;
	struct cg_hashmap threads;     /* interned part name -> part */
	unsigned nparts;
	/* the sample being read */
	int in_sample;
	uint64_t sample_line, sample_offset;   /* of its header, for messages */
	unsigned part;
	unsigned event;
	int64_t period;
	cg_fid *frames;                /* leaf first */
	size_t nframes, frames_cap;
	const char **pending;          /* inlined frames waiting for their object */
	size_t npending, pending_cap;
};

static int oom(struct reader *r)
{
	return cg_error_set(r->err, CG_ENOMEM, "%s: out of memory", r->name);
}

static int bad_line(struct reader *r, uint64_t line, uint64_t offset, const char *what)
{
	return cg_error_set(r->err, CG_EFORMAT, "%s: line %" PRIu64 " (byte offset %" PRIu64 "): %s",
			    r->name, line, offset, what);
}

/* ---- tokens ------------------------------------------------------------------ */

struct token {
	const char *s;
	size_t len;
};

static int all_digits(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* "123.456789:" */
static int is_time(const struct token *t)
{
	if (t->len < 4 || t->s[t->len - 1] != ':')
		return 0;
	const char *dot = memchr(t->s, '.', t->len);
	return dot && all_digits(t->s, (size_t)(dot - t->s)) &&
	       all_digits(dot + 1, t->len - 1 - (size_t)(dot - t->s) - 1);
}

/* "1234" or "1234/1235" */
static int is_pid(const struct token *t)
{
	const char *slash = memchr(t->s, '/', t->len);
	if (!slash)
		return all_digits(t->s, t->len);
	return all_digits(t->s, (size_t)(slash - t->s)) &&
	       all_digits(slash + 1, t->len - (size_t)(slash - t->s) - 1);
}

/* "[003]" */
static int is_cpu(const struct token *t)
{
	return t->len >= 3 && t->s[0] == '[' && t->s[t->len - 1] == ']' &&
	       all_digits(t->s + 1, t->len - 2);
}

/* An event token ends with ':' and is not a time: "cycles:", "cpu-clock:pppH:",
 * "sched:sched_switch:", "cpu/instructions/u:". */
static int is_event(const struct token *t)
{
	return t->len >= 2 && t->s[t->len - 1] == ':' && !is_time(t) &&
	       (isalpha((unsigned char)t->s[0]) || t->s[0] == '_');
}

#define MAX_TOKENS 64

static size_t tokenize(const char *s, size_t len, struct token *tok)
{
	size_t n = 0, i = 0;
	while (i < len && n < MAX_TOKENS) {
		while (i < len && isspace((unsigned char)s[i]))
			i++;
		if (i == len)
			break;
		size_t b = i;
		while (i < len && !isspace((unsigned char)s[i]))
			i++;
		tok[n].s = s + b;
		tok[n].len = i - b;
		n++;
	}
	return n;
}

/* ---- frames ------------------------------------------------------------------ */

static int push_frame(struct reader *r, cg_fid f)
{
	if (cg_array_grow((void **)&r->frames, &r->frames_cap, r->nframes + 1, sizeof *r->frames, 64))
		return oom(r);
	r->frames[r->nframes++] = f;
	return 0;
}

static int push_pending(struct reader *r, const char *name)
{
	if (cg_array_grow((void **)&r->pending, &r->pending_cap, r->npending + 1, sizeof *r->pending,
			  16))
		return oom(r);
	r->pending[r->npending++] = name;
	return 1;   /* no frame yet */
}

/* The inlined frames read so far, as functions of `object`, leaf first. */
static int flush_pending(struct reader *r, const char *object)
{
	for (size_t i = 0; i < r->npending; i++) {
		cg_fid f;
		if (cg_profile_intern_function(r->p, r->pending[i], object, NULL, &f) ||
		    push_frame(r, f))
			return oom(r);
	}
	r->npending = 0;
	return 0;
}


/* "addr symbol+0x1f (dso)", "symbol (dso)", "addr [unknown] ([unknown])",
 * "addr inlined_fn+0x1f (inlined)".  An inlined frame's object is the one
 * of the next frame that is not inlined: until that one is read, its name
 * waits in r->pending. */
static int parse_frame(struct reader *r, const char *s, size_t len, cg_fid *out)
{
	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	/* the address */
	size_t i = 0;
	while (i < len && isxdigit((unsigned char)s[i]))
		i++;
	if (i > 0 && (i == len || s[i] == ' ')) {
		s += i;
		len -= i;
		while (len && *s == ' ') {
			s++;
			len--;
		}
	}
	/* the dso, in parentheses at the end */
	const char *dso = NULL;
	size_t dso_len = 0;
	if (len && s[len - 1] == ')') {
		size_t depth = 0, j = len;
		while (j-- > 0) {
			if (s[j] == ')')
				depth++;
			else if (s[j] == '(' && --depth == 0)
				break;
		}
		if (j < len && j > 0 && s[j - 1] == ' ') {
			dso = s + j + 1;
			dso_len = len - j - 2;
			len = j - 1;
		} else if (j == 0) {
			/* nothing but "(dso)": an unnamed frame */
			dso = s + 1;
			dso_len = len - 2;
			len = 0;
		}
	}
	while (len && s[len - 1] == ' ')
		len--;
	/* "+0x1f": the offset inside the symbol */
	for (size_t j = len; j-- > 0;) {
		if (s[j] == '+' && j + 2 < len && s[j + 1] == '0' && s[j + 2] == 'x') {
			size_t k = j + 3;
			while (k < len && isxdigit((unsigned char)s[k]))
				k++;
			if (k == len && k > j + 3)
				len = j;
			break;
		}
		if (!isxdigit((unsigned char)s[j]) && s[j] != 'x')
			break;
	}
	const char *name = len ? cg_profile_intern_len(r->p, s, len) : "[unknown]";
	if (name && dso_len == 7 && memcmp(dso, "inlined", 7) == 0)
		return push_pending(r, name);
	const char *object = NULL;
	if (dso && dso_len && !(dso_len == 9 && memcmp(dso, "[unknown]", 9) == 0))
		object = cg_profile_intern_len(r->p, dso, dso_len);
	if (!name || (dso && dso_len && !object && !(dso_len == 9 && memcmp(dso, "[unknown]", 9) == 0)))
		return oom(r);
	if (cg_profile_intern_function(r->p, name, object, NULL, out))
		return oom(r);
	return flush_pending(r, object);
}

/* ---- samples ------------------------------------------------------------------ */

static int end_sample(struct reader *r)
{
	if (!r->in_sample)
		return 0;
	r->in_sample = 0;
	if (flush_pending(r, NULL))
		return CG_ENOMEM;
	if (!r->nframes) {
		cg_fid f;
		if (cg_profile_intern_function(r->p, "[unknown]", NULL, NULL, &f) || push_frame(r, f))
			return oom(r);
	}
	uint32_t node;
	if (cg_stack_tree_root(&r->tree, r->part, &node))
		return oom(r);
	for (size_t i = r->nframes; i-- > 0;)
		if (cg_stack_tree_child(&r->tree, node, r->frames[i], &node))
			return oom(r);
	int rc = cg_stack_tree_add(&r->tree, node, r->event, r->period);
	if (rc == CG_EFORMAT)
		return bad_line(r, r->sample_line, r->sample_offset,
				"the sample periods of this event add up to more than 2^62");
	if (rc)
		return oom(r);
	r->nframes = 0;
	return 0;
}

static int event_index(struct reader *r, const struct token *t, unsigned *out)
{
	/* "cpu-clock:pppH:" -> "cpu-clock": drop the final ':' and a
	 * modifier suffix (":u", ":ppp", ":pppH") */
	size_t len = t->len - 1;
	const char *colon = NULL;
	for (size_t i = len; i-- > 0;)
		if (t->s[i] == ':') {
			colon = t->s + i;
			break;
		}
	if (colon) {
		size_t mlen = len - (size_t)(colon - t->s) - 1;
		int modifiers = mlen > 0;
		for (size_t i = 0; i < mlen; i++)
			if (!strchr("ukhpPGHISDWe", colon[1 + i]))
				modifiers = 0;
		if (modifiers)
			len = (size_t)(colon - t->s);
	}
	const char *name = cg_profile_intern_len(r->p, t->s, len);
	if (!name)
		return oom(r);
	for (size_t e = 0; e < r->nevents; e++)
		if (r->events[e].name == name) {
			*out = (unsigned)e;
			return 0;
		}
	if (r->nevents == CG_MAX_EVENTS)
		return cg_error_set(r->err, CG_EFORMAT, "%s: more than %d events", r->name, CG_MAX_EVENTS);
	r->events[r->nevents].name = name;
	r->events[r->nevents].timed = strcmp(name, "cpu-clock") == 0 || strcmp(name, "task-clock") == 0;
	*out = (unsigned)r->nevents++;
	return 0;
}

static int thread_part(struct reader *r, const struct token *tok, size_t ncomm,
		       const struct token *pid)
{
	char name[512];
	size_t n = 0;
	for (size_t i = 0; i < ncomm && n < sizeof name - 40; i++) {
		size_t take = tok[i].len < sizeof name - 40 - n ? tok[i].len : sizeof name - 40 - n;
		if (n)
			name[n++] = ' ';
		memcpy(name + n, tok[i].s, take);
		n += take;
	}
	if (pid) {
		size_t take = pid->len < 32 ? pid->len : 32;
		if (n)
			name[n++] = ' ';
		memcpy(name + n, pid->s, take);
		n += take;
	}
	name[n] = 0;
	const char *interned = cg_profile_intern(r->p, n ? name : "unknown thread");
	if (!interned)
		return oom(r);
	uint32_t part;
	if (cg_hashmap_get(&r->threads, (uint64_t)(uintptr_t)interned, &part)) {
		r->part = part;
		return 0;
	}
	if (r->nparts == 0) {
		if (cg_profile_set_part_name(r->p, 0, interned))
			return oom(r);
		part = 0;
	} else {
		unsigned np;
		if (cg_profile_add_part(r->p, interned, &np))
			return oom(r);
		part = np;
	}
	r->nparts++;
	if (cg_hashmap_put(&r->threads, (uint64_t)(uintptr_t)interned, part))
		return oom(r);
	r->part = part;
	return 0;
}

/* Parses a sample's header line; 0, or CG_EFORMAT when it is not one. */
static int parse_header(struct reader *r, const char *s, size_t len, uint64_t lineno,
			uint64_t offset)
{
	struct token tok[MAX_TOKENS];
	size_t n = tokenize(s, len, tok);
	size_t ev = n;
	for (size_t i = 0; i < n; i++)
		if (is_event(&tok[i]) && i > 0) {
			ev = i;
			break;
		}
	if (ev == n)
		return bad_line(r, lineno, offset, "not a perf script sample (no event name ending in ':')");
	/* before the event: comm... pid[/tid] [cpu] [time:] [period] */
	size_t end = ev;
	r->period = 1;
	size_t time_at = n;
	for (size_t i = 0; i < ev; i++)
		if (is_time(&tok[i]))
			time_at = i;
	if (ev > 0 && all_digits(tok[ev - 1].s, tok[ev - 1].len) &&
	    (time_at < ev - 1 || (time_at == n && ev >= 3 && is_pid(&tok[ev - 2])))) {
		r->period = strtoll(tok[ev - 1].s, NULL, 10);
		end = ev - 1;
	}
	if (time_at < end)
		end = time_at;
	while (end > 0 && is_cpu(&tok[end - 1]))
		end--;
	const struct token *pid = NULL;
	if (end > 0 && is_pid(&tok[end - 1])) {
		pid = &tok[end - 1];
		end--;
	}
	int rc;
	if ((rc = end_sample(r)) || (rc = thread_part(r, tok, end, pid)) ||
	    (rc = event_index(r, &tok[ev], &r->event)))
		return rc;
	r->in_sample = 1;
	r->sample_line = lineno;
	r->sample_offset = offset;
	r->nframes = 0;
	r->npending = 0;
	/* a sample without a call chain has its frame on the header line;
	 * tracepoints print their fields there instead */
	if (ev + 1 < n) {
		const char *rest = tok[ev + 1].s;
		size_t rest_len = len - (size_t)(rest - s);
		size_t hex = 0;
		while (hex < tok[ev + 1].len && isxdigit((unsigned char)rest[hex]))
			hex++;
		if (hex == tok[ev + 1].len && ev + 2 < n && rest[rest_len - 1] == ')') {
			cg_fid f;
			if ((rc = parse_frame(r, rest, rest_len, &f)) < 0 || (!rc && (rc = push_frame(r, f))))
				return rc;
		}
	}
	return 0;
}

static int read_stream(struct reader *r, FILE *in, const cg_read_options *opts)
{
	/* bounded: a NUL byte or an endless line fails at once */
	cg_line_reader lines;
	cg_line_reader_init(&lines, in, r->name, CG_TEXT_LINE_MAX);
	char *line;
	size_t len;
	int got;
	uint64_t lineno = 0, offset = 0, next = 0;
	int rc = 0;
	while (!rc && (got = cg_line_reader_next(&lines, &line, &len, r->err)) > 0) {
		lineno++;
		offset = next;
		next += (uint64_t)len + 1;
		while (len && line[len - 1] == '\r')
			len--;
		if (len == 0) {
			rc = end_sample(r);
		} else if (line[0] == '#') {
			/* perf script --header */
		} else if (line[0] == '\t') {
			if (!r->in_sample) {
				rc = bad_line(r, lineno, offset, "call-chain line outside a sample");
				break;
			}
			size_t i = 1;
			while (i < len && isspace((unsigned char)line[i]))
				i++;
			cg_fid f;
			if (i < len && (rc = parse_frame(r, line + i, len - i, &f)) == 0)
				rc = push_frame(r, f);
			else if (rc > 0)
				rc = 0;   /* an inlined frame, pending */
		} else {
			rc = parse_header(r, line, len, lineno, offset);
		}
		if ((lineno & 0xfffff) == 0 && opts) {
			cg_diagnostic d = { .kind = CG_DIAG_BYTES, .file = r->name, .done = offset };
			cg_diag_emit(opts, &d);
		}
	}
	cg_line_reader_release(&lines);
	if (!rc && got < 0)
		rc = got;
	if (!rc)
		rc = end_sample(r);
	if (!rc && r->nevents == 0)
		rc = cg_error_set(r->err, CG_EFORMAT, "%s: no perf script samples in it", r->name);
	return rc;
}

int cg_perf_script_read(cg_profile **out, cg_source *src, const cg_read_options *opts,
			cg_error *err)
{
	*out = NULL;
	struct reader r = { .name = cg_source_name(src), .err = err };
	FILE *in;
	int rc = cg_source_stream(src, &in, err);
	if (rc)
		return rc;
	if (cg_profile_new(&r.p))
		return cg_error_set(err, CG_ENOMEM, "%s: out of memory", r.name);
	rc = read_stream(&r, in, opts);
	for (size_t e = 0; e < r.nevents && !rc; e++) {
		char desc[300];
		snprintf(desc, sizeof desc, "%s (perf event, sum of sample periods%s)", r.events[e].name,
			 r.events[e].timed ? " in nanoseconds" : "");
		if (cg_profile_add_event(r.p, r.events[e].name, desc, r.events[e].timed ? 1e-9 : 0) < 0)
			rc = oom(&r);
	}
	if (!rc && cg_profile_set_meta(r.p, "creator", "perf script"))
		rc = oom(&r);
	if (!rc) {
		rc = cg_stack_tree_emit(&r.tree, r.p, err);
		if (rc) {
			char why[CG_ERROR_MSG_MAX];
			snprintf(why, sizeof why, "%s", err->message);
			cg_error_set(err, rc, "%s: %s", r.name, why);
		}
	}
	cg_stack_tree_release(&r.tree);
	cg_hashmap_release(&r.threads);
	free(r.frames);
	free(r.pending);
	if (rc) {
		cg_profile_free(r.p);
		return rc;
	}
	*out = r.p;
	return 0;
}
