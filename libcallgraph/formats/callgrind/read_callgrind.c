/*
 * read_callgrind.c — Callgrind profiles (valgrind --tool=callgrind, and
 * what write_callgrind.c writes) into the model.
 *
 * A line-oriented state machine.  Functions are keyed by (name, object,
 * file of the fl= line); fi=/fe= only move the position of the costs that
 * follow (inlined code still belongs to the function, as in KCachegrind).
 * Every cost line is kept at its position (line, instruction address, the
 * inlined file in force) and every call at its call site, so the writer
 * can give callgrind_annotate the same annotated source back.
 * Jump lines (jump=, jcnd=, with jfi=/jfn= naming the target's file and
 * function) are kept per part (core/jumps.c): the target position is
 * relative to the last position, like a cost line's, without moving it;
 * the line after a jump line is the jump's own position, a cost line
 * whose costs, if any, are self costs (callgrind_annotate reads it so).
 * Every problem is reported as "FILE:LINE: what".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "callgraph.h"
#include "callgraph/sys/format.h"
#include "callgrind_read.h"
#include "checked.h"
#include "hashmap.h"
#include "jumps.h"
#include "linereader.h"
#include "model_internal.h"

#define MAX_POSITIONS 3

/* Compressed ids -> 32-bit values.  Callgrind numbers names 1, 2, 3...,
 * so ids up to a few times the entries seen sit in a plain array (one
 * memory access per lookup: these lookups dominated reading large
 * profiles); ids far beyond that, which only hand-made or hostile files
 * use, go to a hash map, so memory stays proportional to the entries. */
struct id_map {
	uint32_t *dense;        /* value + 1 by id; 0 unset */
	size_t dense_cap, count;
	struct cg_hashmap sparse;
};

static int id_map_get(const struct id_map *m, uint64_t id, uint32_t *value)
{
	if (id < m->dense_cap && m->dense[id]) {
		*value = m->dense[id] - 1;
		return 1;
	}
	return m->sparse.count && cg_hashmap_get(&m->sparse, id, value);
}

/* value < UINT32_MAX; 0 or CG_ENOMEM */
static int id_map_put(struct id_map *m, uint64_t id, uint32_t value)
{
	m->count++;
	if (id < 4 * (uint64_t)m->count + 1024) {
		if (cg_array_grow((void **)&m->dense, &m->dense_cap, (size_t)id + 1,
				  sizeof *m->dense, 1024))
			return CG_ENOMEM;
		m->dense[id] = value + 1;
		return 0;
	}
	return cg_hashmap_put(&m->sparse, id, value);
}

static void id_map_reset(struct id_map *m)
{
	if (m->dense)
		memset(m->dense, 0, m->dense_cap * sizeof *m->dense);
	m->count = 0;
	cg_hashmap_release(&m->sparse);
}

static void id_map_free(struct id_map *m)
{
	free(m->dense);
	m->dense = NULL;
	m->dense_cap = m->count = 0;
	cg_hashmap_release(&m->sparse);
}

/* name-compression table: id -> interned name */
struct names {
	struct id_map ids;
	const char **v;
	size_t n, cap;
};

enum pending { NONE, CALL_COST, JUMP_POS };

struct cr {
	cg_profile *p;
	const char *name;
	cg_error *err;
	unsigned long line;
	int rc;

	/* per part */
	unsigned part;
	int nparts;             /* parts started */
	int events_seen;        /* events: read in the current part */
	int any_events;         /* events fixed in the profile */
	int emap[CG_MAX_EVENTS];   /* column -> model event */
	size_t ncols;
	int npos, line_col;     /* subposition columns; which one is the line (-1) */
	int instr_col;          /* which one is the instruction address (-1) */
	uint64_t last[MAX_POSITIONS];
	struct names obs, files, fns;
	struct id_map fn_of_id;       /* function id -> function */
	char *pending_desc[CG_MAX_EVENTS * 2];
	const char *part_label[3];  /* pid, thread, part values of this part */
	const char **labels;        /* thread, part per part */
	unsigned char *named;       /* per part: named by desc: Part: */
	size_t labcap;

	/* current context */
	const char *ob, *fl, *cob, *cfi;
	cg_fid fn;
	int have_fn, in_inline;
	const char *cur_file;   /* fl= or the fi=/fe= file in force */
	cg_fid callee;
	int have_callee;
	enum pending pending;
	uint64_t call_count;
	/* jfi=/jfn= before a jump line (for that line only), and the jump
	 * waiting for its position line */
	const char *jfile;
	cg_fid jfn;
	int have_jfn;
	cg_jump jump;

	/* summary:/totals: of the current part (by model event) and what its
	 * self-cost lines add up to; the line numbers are 0 when absent */
	cg_cost part_sum[CG_MAX_EVENTS], summary[CG_MAX_EVENTS], totals[CG_MAX_EVENTS];
	unsigned long summary_line, totals_line;
	const cg_read_options *opts;
	int drop_positions;        /* opts->drop_positions (version 3 options) */

	/* event long names from `event:` lines, applied at `events:` */
	const char *ev_name[CG_MAX_EVENTS * 2], *ev_desc[CG_MAX_EVENTS * 2];
	double ev_unit[CG_MAX_EVENTS * 2];
	size_t nev_desc;
};

static int fail(struct cr *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct cr *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	c->rc = cg_error_set(c->err, CG_EFORMAT, "%s:%lu: %s", c->name, c->line, msg);
	return c->rc;
}

static int oom(struct cr *c)
{
	c->rc = cg_error_set(c->err, CG_ENOMEM, "%s:%lu: out of memory", c->name, c->line);
	return c->rc;
}

static void names_reset(struct names *t)
{
	id_map_reset(&t->ids);
	t->n = 0;
}

static void names_free(struct names *t)
{
	id_map_free(&t->ids);
	free(t->v);
}

/* ---- numbers ------------------------------------------------------------------ */

/* Unsigned decimal or 0x hexadecimal; advances *s.  -1 when no number or
 * overflow. */
static int parse_u64(const char **s, uint64_t *out)
{
	const char *p = *s;
	int base = 10;
	uint64_t v = 0;
	const char *start = p;
	if (!(p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))) {
		/* decimal, nearly every number of a file: 19 digits cannot
		 * pass 2^64-1, so only longer numbers are checked */
		for (; *p >= '0' && *p <= '9'; p++) {
			unsigned d = (unsigned)(*p - '0');
			if (p - start >= 19 && v > (UINT64_MAX - d) / 10)
				return -1;
			v = v * 10 + d;
		}
		if (p == start)
			return -1;
		*s = p;
		*out = v;
		return 0;
	}
	base = 16;
	p += 2;
	start = p;
	for (;; p++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		if (v > (UINT64_MAX - d) / (unsigned)base)
			return -1;
		v = v * (unsigned)base + d;
	}
	if (p == start)
		return -1;
	*s = p;
	*out = v;
	return 0;
}

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* ---- names ---------------------------------------------------------------------- */

/* Parses "(id) name", "(id)" or "name" into an interned name. */
static int parse_name(struct cr *c, struct names *t, const char *kind, const char *s,
		      const char **out)
{
	s = skip_blanks(s);
	if (s[0] == '(' && s[1] >= '0' && s[1] <= '9') {
		const char *p = s + 1;
		uint64_t id;
		if (parse_u64(&p, &id) || *p != ')' || id > UINT32_MAX)
			return fail(c, "invalid compressed %s '%.60s'", kind, s);
		p = skip_blanks(p + 1);
		uint32_t idx;
		int known = id_map_get(&t->ids, id, &idx);
		if (!*p) {
			if (!known)
				return fail(c, "undefined compressed %s id %" PRIu64, kind, id);
			*out = t->v[idx];
			return 0;
		}
		const char *name = cg_profile_intern(c->p, p);
		if (!name)
			return oom(c);
		if (known) {
			if (t->v[idx] != name)
				return fail(c, "compressed %s id %" PRIu64 " redefined ('%.60s' was '%.60s')",
					    kind, id, name, t->v[idx]);
			*out = name;
			return 0;
		}
		if (cg_array_grow((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v, 64))
			return oom(c);
		t->v[t->n] = name;
		if (id_map_put(&t->ids, id, (uint32_t)t->n))
			return oom(c);
		t->n++;
		*out = name;
		return 0;
	}
	if (!*s)
		return fail(c, "empty %s name", kind);
	*out = cg_profile_intern(c->p, s);
	return *out ? 0 : oom(c);
}

/* "???" is Callgrind's unknown (compared in place: this runs for every
 * new function, on its object and file) */
static const char *known_or_null(const char *s)
{
	return s && !(s[0] == '?' && s[1] == '?' && s[2] == '?' && !s[3]) ? s : NULL;
}

/* ---- header ----------------------------------------------------------------------- */

static int check_totals(struct cr *c);

static int start_part(struct cr *c)
{
	if (c->nparts > 0 && check_totals(c))
		return c->rc;
	if (c->nparts > 0 && cg_profile_add_part(c->p, "", &c->part))
		return oom(c);
	memset(c->part_sum, 0, sizeof c->part_sum);
	c->summary_line = c->totals_line = 0;
	if ((size_t)(c->nparts + 1) * 2 > c->labcap) {
		size_t cap = c->labcap ? c->labcap * 2 : 16;
		const char **l = realloc(c->labels, cap * sizeof *l);
		if (!l)
			return oom(c);
		memset(l + c->labcap, 0, (cap - c->labcap) * sizeof *l);
		c->labels = l;
		unsigned char *nm = realloc(c->named, cap / 2);
		if (!nm)
			return oom(c);
		memset(nm + c->labcap / 2, 0, (cap - c->labcap) / 2);
		c->named = nm;
		c->labcap = cap;
	}
	c->nparts++;
	c->events_seen = 0;
	c->npos = 1;
	c->line_col = 0;
	c->instr_col = -1;
	memset(c->last, 0, sizeof c->last);
	names_reset(&c->obs);
	names_reset(&c->files);
	names_reset(&c->fns);
	id_map_reset(&c->fn_of_id);
	c->ob = c->fl = c->cob = c->cfi = c->cur_file = NULL;
	c->have_fn = c->have_callee = c->in_inline = 0;
	c->jfile = NULL;
	c->have_jfn = 0;
	c->pending = NONE;
	c->part_label[0] = c->part_label[1] = c->part_label[2] = NULL;
	return 0;
}

static int header_positions(struct cr *c, const char *v)
{
	c->npos = 0;
	c->line_col = -1;
	c->instr_col = -1;
	while (*(v = skip_blanks(v))) {
		size_t n = strcspn(v, " \t");
		if (c->npos == MAX_POSITIONS)
			return fail(c, "too many position columns");
		if (n == 4 && memcmp(v, "line", 4) == 0)
			c->line_col = c->npos;
		else if (n == 5 && memcmp(v, "instr", 5) == 0)
			c->instr_col = c->npos;
		else if (!(n == 2 && memcmp(v, "bb", 2) == 0))
			return fail(c, "unknown position kind '%.*s'", (int)(n > 40 ? 40 : n), v);
		c->npos++;
		v += n;
	}
	if (c->npos == 0)
		return fail(c, "positions: names no position kind");
	cg_profile_declare_position_kinds(c->p, (c->line_col >= 0 ? CG_POS_LINE : 0u) |
					  (c->instr_col >= 0 ? CG_POS_INSTR : 0u));
	return 0;
}

/* event: NAME [= formula] [: long name [1 = N s]] */
static int header_event(struct cr *c, const char *v)
{
	v = skip_blanks(v);
	size_t n = strcspn(v, " \t:=");
	if (!n)
		return fail(c, "event: without a name");
	const char *rest = skip_blanks(v + n);
	if (*rest == '=')
		return 0;   /* derived event: not a column of the file */
	if (c->nev_desc == sizeof c->ev_name / sizeof c->ev_name[0])
		return 0;
	const char *name = cg_profile_intern_len(c->p, v, n);
	const char *desc = NULL;
	double unit = 0;
	if (*rest == ':') {
		rest = skip_blanks(rest + 1);
		const char *br = strstr(rest, " [1 = ");
		size_t dl = strlen(rest);
		if (br) {
			char *end;
			double u = strtod(br + 6, &end);
			if (end != br + 6 && strcmp(end, " s]") == 0 && u > 0) {
				unit = u;
				dl = (size_t)(br - rest);
			}
		}
		desc = cg_profile_intern_len(c->p, rest, dl);
	}
	if (!name || (*rest == ':' && !desc))
		return oom(c);
	c->ev_name[c->nev_desc] = name;
	c->ev_desc[c->nev_desc] = desc;
	c->ev_unit[c->nev_desc] = unit;
	c->nev_desc++;
	return 0;
}

static int header_events(struct cr *c, const char *v)
{
	if (c->events_seen)
		return fail(c, "second events: line in one part");
	c->ncols = 0;
	while (*(v = skip_blanks(v))) {
		size_t n = strcspn(v, " \t");
		if (c->ncols == CG_MAX_EVENTS)
			return fail(c, "more than %d events", CG_MAX_EVENTS);
		const char *name = cg_profile_intern_len(c->p, v, n);
		if (!name)
			return oom(c);
		for (size_t i = 0; i < c->ncols; i++)
			if (strcmp(cg_profile_event(c->p, (size_t)c->emap[i])->name, name) == 0)
				return fail(c, "event '%s' listed twice", name);
		int e = cg_profile_find_event(c->p, name);
		if (e < 0) {
			if (c->any_events)
				return fail(c, "event '%s' is not in the first part", name);
			const char *desc = NULL;
			double unit = 0;
			for (size_t i = 0; i < c->nev_desc; i++)
				if (c->ev_name[i] == name) {
					desc = c->ev_desc[i];
					unit = c->ev_unit[i];
				}
			e = cg_profile_add_event(c->p, name, desc ? desc : name, unit);
			if (e < 0)
				return oom(c);
		}
		c->emap[c->ncols++] = e;
		v += n;
	}
	if (c->ncols == 0)
		return fail(c, "events: line names no event");
	if (c->any_events && c->ncols != cg_profile_event_count(c->p))
		return fail(c, "events differ from the first part's");
	c->any_events = 1;
	c->events_seen = 1;
	return 0;
}

static int set_meta_once(struct cr *c, const char *key, const char *v)
{
	if (cg_profile_meta(c->p, key))
		return 0;
	return cg_profile_set_meta(c->p, key, v) ? oom(c) : 0;
}

static int desc_meta(struct cr *c, const char *v)
{
	/* the key keeps its colon: "desc: I1 cache:" = "32768 B, ..." (an
	 * empty value still writes back as "I1 cache: ") */
	char key[256];
	const char *sep = strstr(v, ": ");
	size_t klen = sep ? (size_t)(sep - v) + 1 : strlen(v);
	if (!*v || klen > sizeof key - 7)
		return 0;   /* nothing to keep, or not a description we keep */
	snprintf(key, sizeof key, "desc: %.*s", (int)klen, v);
	return set_meta_once(c, key, sep ? sep + 2 : "");
}

/* summary: and totals: state what the costs of the part add up to; they
 * are kept and checked against the cost lines when the part ends
 * (check_totals).  Before events: they cannot be mapped and are ignored,
 * as callgrind_annotate does. */
static int header_totals(struct cr *c, const char *v, int is_summary)
{
	if (!c->events_seen)
		return 0;
	const char *what = is_summary ? "summary:" : "totals:";
	cg_cost *dst = is_summary ? c->summary : c->totals;
	cg_cost vals[CG_MAX_EVENTS] = { 0 };
	size_t k = 0;
	const char *s = v;
	while (*(s = skip_blanks(s))) {
		uint64_t n;
		if (k == c->ncols)
			return fail(c, "more costs than events in the %s line", what);
		if (parse_u64(&s, &n) || (*s && *s != ' ' && *s != '\t'))
			return fail(c, "bad number in the %s line", what);
		if (n > INT64_MAX)
			return fail(c, "%s cost too large (over 2^63-1)", what);
		vals[c->emap[k++]] = (cg_cost)n;
	}
	if (k == 0)
		return fail(c, "%s line without costs", what);
	memcpy(dst, vals, sizeof vals);
	*(is_summary ? &c->summary_line : &c->totals_line) = c->line;
	return 0;
}

/* The length of the key that starts a line: up to the first ':', '=',
 * blank or the end (keys are a few letters: a loop beats strcspn). */
static size_t key_length(const char *s)
{
	size_t n = 0;
	while (s[n] && s[n] != ':' && s[n] != '=' && s[n] != ' ' && s[n] != '\t')
		n++;
	return n;
}

/* Returns 1 if the line was a header line; n is key_length(s). */
static int header_line(struct cr *c, const char *s, size_t n)
{
	if (s[n] != ':' || n == 0)
		return 0;
	const char *v = s + n + 1;
	if (*v && *v != ' ' && *v != '\t')
		return 0;
	v = skip_blanks(v);
#define KEY(k) (n == sizeof(k) - 1 && memcmp(s, k, n) == 0)
	if (KEY("part") || KEY("pid") || KEY("thread")) {
		if (c->events_seen && start_part(c))
			return -1;
		const char *val = cg_profile_intern(c->p, v);
		if (!val)
			return oom(c), -1;
		c->part_label[KEY("pid") ? 0 : KEY("thread") ? 1 : 2] = val;
		if (!KEY("pid"))
			c->labels[(size_t)(c->nparts - 1) * 2 + (KEY("thread") ? 0 : 1)] = val;
		if (KEY("pid") && set_meta_once(c, "pid", v))
			return -1;
		return 1;
	}
	if (KEY("version")) {
		const char *p = v;
		uint64_t major;
		if (parse_u64(&p, &major) || (*p && *p != '.'))
			return fail(c, "bad version '%.40s'", v), -1;
		if (major >= 2)
			return fail(c, "cannot read format version %" PRIu64, major), -1;
		return 1;
	}
	if (KEY("creator")) {
		/* ours says "libcallgraph V (from ORIGINAL)": give back the
		 * original, so a Callgrind round trip keeps the metadata */
		const char *from = strstr(v, " (from ");
		size_t vlen = strlen(v);
		if (strncmp(v, "libcallgraph ", 13) == 0 && from && vlen && v[vlen - 1] == ')') {
			char buf[1024];
			size_t len = vlen - (size_t)(from + 7 - v) - 1;
			if (len >= sizeof buf)
				len = sizeof buf - 1;
			memcpy(buf, from + 7, len);
			buf[len] = 0;
			return set_meta_once(c, "creator", buf) ? -1 : 1;
		}
		return set_meta_once(c, "creator", v) ? -1 : 1;
	}
	if (KEY("cmd"))
		return set_meta_once(c, "cmd", v) ? -1 : 1;
	if (KEY("desc")) {
		/* "desc: Part: NAME" (ours) names the part */
		if (strncmp(v, "Part: ", 6) == 0 && v[6]) {
			const char *val = cg_profile_intern(c->p, v + 6);
			if (!val)
				return oom(c), -1;
			c->labels[(size_t)(c->nparts - 1) * 2 + 1] = NULL;
			c->labels[(size_t)(c->nparts - 1) * 2] = NULL;
			if (cg_profile_set_part_name(c->p, c->part, val))
				return oom(c), -1;
			c->named[c->nparts - 1] = 1;
			return 1;
		}
		/* valgrind's description of its run (cache geometry, time
		 * range, trigger): metadata "desc: KEY" = VALUE, so that the
		 * writer gives callgrind_annotate the same header back */
		return desc_meta(c, v) ? -1 : 1;
	}
	if (KEY("positions")) {
		if (c->events_seen && start_part(c))
			return -1;
		return header_positions(c, v) ? -1 : 1;
	}
	if (KEY("event"))
		return header_event(c, v) ? -1 : 1;
	if (KEY("events")) {
		if (c->events_seen && start_part(c))
			return -1;
		return header_events(c, v) ? -1 : 1;
	}
	if (KEY("summary") || KEY("totals"))
		return header_totals(c, v, KEY("summary")) ? -1 : 1;
#undef KEY
	/* other "key: value" lines in the header are ignored, as
	 * callgrind_annotate does (with a warning) */
	return c->have_fn || c->events_seen ? 0 : 1;
}

/* ---- body ------------------------------------------------------------------------- */

/* The position columns at *sp (absolute, +N/-N or * against c->last);
 * advances *sp. */
static int parse_positions(struct cr *c, const char **sp, uint64_t *pos)
{
	const char *s = *sp;
	for (int i = 0; i < c->npos; i++) {
		s = skip_blanks(s);
		uint64_t d;
		if (*s == '*') {
			pos[i] = c->last[i];
			s++;
		} else if (*s == '+' || *s == '-') {
			char sign = *s++;
			if (parse_u64(&s, &d))
				return fail(c, "bad relative position");
			if (sign == '-' && d > c->last[i])
				return fail(c, "negative position");
			if (sign == '+' && d > UINT64_MAX - c->last[i])
				return fail(c, "position overflows");
			pos[i] = sign == '+' ? c->last[i] + d : c->last[i] - d;
		} else if (parse_u64(&s, &pos[i])) {
			return fail(c, "bad position in cost line");
		}
		if (*s && *s != ' ' && *s != '\t')
			return fail(c, "garbage after position");
	}
	*sp = s;
	return 0;
}

/* A position line's columns as a position at `file` (a line past 2^32-1
 * is no line). */
static cg_position position_of(const struct cr *c, const uint64_t *pos, const char *file)
{
	cg_position at = { .file = file };
	if (c->line_col >= 0 && pos[c->line_col] <= UINT32_MAX)
		at.line = (uint32_t)pos[c->line_col];
	if (c->instr_col >= 0)
		at.addr = pos[c->instr_col];
	return at;
}

/* The jump waiting for its position line gets it, at the file in force. */
static int add_jump(struct cr *c, const uint64_t *pos)
{
	if (!c->have_fn)
		return fail(c, "jump line before any fn= line");
	cg_jump *j = &c->jump;
	j->from = c->fn;
	j->at = position_of(c, pos, known_or_null(c->cur_file));
	if (c->drop_positions)
		return 0;
	int rc = cg_jump_add(c->p, c->part, j);
	if (rc == CG_EFORMAT)
		return fail(c, "jump counts of %s sum past 2^64-1",
			    cg_profile_function(c->p, c->fn)->name);
	return rc ? oom(c) : 0;
}

static int cost_line(struct cr *c, const char *s)
{
	if (!c->events_seen)
		return fail(c, "cost line before the events: line");
	uint64_t pos[MAX_POSITIONS];
	if (parse_positions(c, &s, pos))
		return c->rc;
	memcpy(c->last, pos, sizeof pos);
	/* only the profile's events are read from costs: zeroing all
	 * CG_MAX_EVENTS was a third of the parsing of a cost line */
	size_t nev = cg_profile_event_count(c->p);
	cg_cost costs[CG_MAX_EVENTS];
	for (size_t e = 0; e < nev; e++)
		costs[e] = 0;
	size_t k = 0;
	while (*(s = skip_blanks(s))) {
		uint64_t v;
		if (k == c->ncols)
			return fail(c, "more costs than events");
		if (*s == '-')
			return fail(c, "negative cost (costs are unsigned)");
		if (parse_u64(&s, &v) || (*s && *s != ' ' && *s != '\t'))
			return fail(c, "bad cost number");
		if (v > INT64_MAX)
			return fail(c, "cost too large");
		costs[c->emap[k++]] = (cg_cost)v;
	}
	enum pending pending = c->pending;
	c->pending = NONE;
	if (pending == JUMP_POS) {
		if (add_jump(c, pos))
			return c->rc;
		int any = 0;
		for (size_t e = 0; e < nev; e++)
			any |= costs[e] != 0;
		if (!any)
			return 0;
		pending = NONE;
	}
	if (!c->have_fn)
		return fail(c, "cost line before any fn= line");
	/* the position of the cost: its line in the file in force (the
	 * inlined one after fi=/fe=) and its instruction address */
	cg_position at = position_of(c, pos, known_or_null(c->cur_file));
	if (pending == CALL_COST) {
		size_t idx;
		int rc = c->drop_positions
			? cg_profile_add_arc(c->p, c->part, c->fn, c->callee, c->call_count, costs, &idx)
			: cg_profile_add_arc_at(c->p, c->part, c->fn, c->callee, &at, c->call_count,
						costs, &idx);
		if (rc == CG_EFORMAT)
			return fail(c, "call count or inclusive cost of the call to %s sums past 2^63-1",
				    cg_profile_function(c->p, c->callee)->name);
		if (rc)
			return oom(c);
		cg_arc *a = cg_profile_arc(c->p, c->part, idx);
		if (!a->line)
			a->line = at.line;
		/* KCachegrind forgets the callee's object and file after each
		 * call */
		c->cob = c->cfi = NULL;
		return 0;
	}
	int rc = c->drop_positions ? cg_profile_add_self(c->p, c->part, c->fn, costs)
				   : cg_profile_add_self_at(c->p, c->part, c->fn, &at, costs);
	if (rc == CG_EFORMAT)
		return fail(c, "self cost of %s sums past 2^63-1", cg_profile_function(c->p, c->fn)->name);
	if (rc)
		return oom(c);
	if (cg_checked_add_costs(c->part_sum, costs, nev))
		return fail(c, "the costs of the part sum past 2^63-1");
	cg_function *fn = cg_profile_function(c->p, c->fn);
	if (!fn->line && !c->in_inline)
		fn->line = at.line;
	return 0;
}

/* name, ob and fl come from parse_name: already interned in c->p */
static int intern_fn(struct cr *c, const char *name, const char *ob, const char *fl, cg_fid *out)
{
	if (cg_profile_intern_function_interned(c->p, name, known_or_null(ob), known_or_null(fl),
						out))
		return oom(c);
	return 0;
}

/* A function id stands for the function it was defined with, whatever
 * object and file are current when it is used again (KCachegrind binds
 * ids that way; callgrind hands out one id per function). */
static int function_ref(struct cr *c, const char *v, const char *ob, const char *fl,
			cg_fid *out)
{
	const char *s = skip_blanks(v), *name;
	uint64_t id = 0;
	int compressed = s[0] == '(' && s[1] >= '0' && s[1] <= '9';
	if (compressed) {
		const char *p = s + 1;
		if (parse_u64(&p, &id) || *p != ')' || id > UINT32_MAX)
			return fail(c, "invalid compressed function '%.60s'", s);
		uint32_t idx;
		if (!*skip_blanks(p + 1) && id_map_get(&c->fn_of_id, id, &idx)) {
			*out = idx;
			return 0;
		}
	}
	if (parse_name(c, &c->fns, "function", s, &name) || intern_fn(c, name, ob, fl, out))
		return c->rc;
	if (compressed && id_map_put(&c->fn_of_id, id, *out))
		return oom(c);
	return 0;
}

/* jump=COUNT TARGET or jcnd=FOLLOWED/EXECUTED TARGET (valgrind's order:
 * the times the branch was taken, then the times it ran); the position
 * line comes next. */
static int jump_line(struct cr *c, int conditional, const char *v)
{
	const char *what = conditional ? "jcnd=" : "jump=";
	if (!c->have_fn)
		return fail(c, "%s line before any fn= line", what);
	cg_jump *j = &c->jump;
	memset(j, 0, sizeof *j);
	j->conditional = conditional;
	const char *s = skip_blanks(v);
	if (parse_u64(&s, &j->followed))
		return fail(c, "bad count in the %s line", what);
	if (conditional) {
		if (*s != '/' || (s++, parse_u64(&s, &j->executed)))
			return fail(c, "bad FOLLOWED/EXECUTED counts in the jcnd= line");
		if (j->followed > j->executed)
			return fail(c, "jcnd= branch taken %" PRIu64 " times of %" PRIu64 " runs",
				    j->followed, j->executed);
	}
	if (*s != ' ' && *s != '\t')
		return fail(c, "%s line without a target position", what);
	uint64_t pos[MAX_POSITIONS];
	if (parse_positions(c, &s, pos))
		return c->rc;
	if (*skip_blanks(s))
		return fail(c, "garbage after the target of the %s line", what);
	/* the target's file and function default to the ones in force */
	j->target = position_of(c, pos, known_or_null(c->jfile ? c->jfile : c->cur_file));
	j->to = c->have_jfn ? c->jfn : c->fn;
	c->jfile = NULL;
	c->have_jfn = 0;
	c->pending = JUMP_POS;
	return 0;
}

static int spec_line(struct cr *c, const char *key, size_t klen, const char *v)
{
	const char *name;
#define KEY(k) (klen == sizeof(k) - 1 && memcmp(key, k, klen) == 0)
	if (c->pending == CALL_COST)
		return fail(c, "calls= line not followed by its cost line");
	if (c->pending == JUMP_POS)
		return fail(c, "jump line not followed by its position line");
	if (!c->events_seen)
		return fail(c, "position line before the events: line");
	if (KEY("ob")) {
		if (parse_name(c, &c->obs, "object", v, &name))
			return c->rc;
		c->ob = name;
		return 0;
	}
	if (KEY("fl")) {
		if (parse_name(c, &c->files, "file", v, &name))
			return c->rc;
		c->fl = c->cur_file = name;
		c->in_inline = 0;
		return 0;
	}
	if (KEY("fi") || KEY("fe")) {
		if (!c->have_fn)
			return fail(c, "fi=/fe= line before any fn= line");
		if (parse_name(c, &c->files, "file", v, &name))
			return c->rc;
		c->in_inline = name != c->fl;
		c->cur_file = name;
		return 0;
	}
	if (KEY("fn")) {
		c->in_inline = 0;
		c->cur_file = c->fl;
		c->have_fn = 1;
		return function_ref(c, v, c->ob, c->fl, &c->fn);
	}
	if (KEY("cob")) {
		if (parse_name(c, &c->obs, "object", v, &name))
			return c->rc;
		c->cob = name;
		return 0;
	}
	if (KEY("cfi") || KEY("cfl")) {
		if (parse_name(c, &c->files, "file", v, &name))
			return c->rc;
		c->cfi = name;
		return 0;
	}
	if (KEY("cfn")) {
		c->have_callee = 1;
		/* the callee's file defaults to the file in force, the inlined
		 * one after fi=/fe= (KCachegrind and callgrind agree) */
		return function_ref(c, v, c->cob ? c->cob : c->ob,
				    c->cfi ? c->cfi : c->cur_file, &c->callee);
	}
	if (KEY("jfi")) {
		if (parse_name(c, &c->files, "file", v, &name))
			return c->rc;
		c->jfile = name;
		return 0;
	}
	if (KEY("jfn")) {
		c->have_jfn = 1;
		return function_ref(c, v, c->ob, c->jfile ? c->jfile : c->cur_file, &c->jfn);
	}
	if (KEY("calls") || KEY("rcalls")) {
		const char *p = skip_blanks(v);
		if (parse_u64(&p, &c->call_count) || (*p && *p != ' ' && *p != '\t'))
			return fail(c, "bad call count in calls= line");
		if (!c->have_callee)
			return fail(c, "calls= line without a cfn= line before it");
		if (!c->have_fn)
			return fail(c, "calls= line before any fn= line");
		c->pending = CALL_COST;
		return 0;
	}
	if (KEY("jump") || KEY("jcnd"))
		return jump_line(c, KEY("jcnd"), v);
#undef KEY
	return fail(c, "unknown line '%.*s=...'", (int)(klen > 40 ? 40 : klen), key);
}

/* klen is key_length(s), or SIZE_MAX when not known yet. */
static int body_line(struct cr *c, char *s, size_t klen)
{
	char ch = s[0];
	if ((ch >= '0' && ch <= '9') || ch == '+' || ch == '-' || ch == '*')
		return cost_line(c, s);
	if (klen == SIZE_MAX)
		klen = key_length(s);
	if (s[klen] == '=' && klen > 0)
		return spec_line(c, s, klen, s + klen + 1);
	return fail(c, "malformed line '%.60s'", s);
}

static int process_line(struct cr *c, char *s, size_t len)
{
	/* no NUL byte to look for: cg_line_reader refuses them as it reads */
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		s[--len] = 0;
	if (len == 0 || s[0] == '#')
		return c->pending == NONE ? 0 : fail(c, "call or jump line not followed by a cost line");
	size_t klen = SIZE_MAX;
	int h = 0;
	if (s[0] >= 'a' && s[0] <= 'z') {
		klen = key_length(s);
		h = header_line(c, s, klen);
	}
	if (h < 0)
		return c->rc;
	if (h > 0)
		return c->pending == NONE ? 0 : fail(c, "call or jump line not followed by a cost line");
	return body_line(c, s, klen);
}

/* The first column whose cost sum differs from `want`, or -1. */
static int differs(const struct cr *c, const cg_cost *want)
{
	for (size_t k = 0; k < c->ncols; k++)
		if (c->part_sum[c->emap[k]] != want[c->emap[k]])
			return (int)k;
	return -1;
}

/* At the end of a part: the summary:/totals: lines must agree with the
 * self costs read.  A file cut short keeps the summary: of the whole run
 * in its header, so this is what catches truncation.  valgrind itself
 * writes summary: and totals: that disagree with each other (cache
 * simulation counts a few events of its own start-up in summary:): when
 * one of the two matches the data the file is read, with a warning. */
static int check_totals(struct cr *c)
{
	if (!c->events_seen || (!c->summary_line && !c->totals_line))
		return 0;
	int bad_summary = c->summary_line ? differs(c, c->summary) : -1;
	int bad_totals = c->totals_line ? differs(c, c->totals) : -1;
	if (bad_summary < 0 && bad_totals < 0)
		return 0;
	if (c->summary_line && c->totals_line && (bad_summary < 0 || bad_totals < 0)) {
		int k = bad_summary >= 0 ? bad_summary : bad_totals;
		const cg_event *ev = cg_profile_event(c->p, (size_t)c->emap[k]);
		unsigned long at = bad_summary >= 0 ? c->summary_line : c->totals_line;
		cg_diag_warn(c->opts, c->name, at,
			     "%s:%lu: summary: and totals: disagree for %s (%" PRId64 " and %" PRId64
			     "); the costs match the %s line",
			     c->name, at, ev->name, c->summary[c->emap[k]], c->totals[c->emap[k]],
			     bad_summary >= 0 ? "totals:" : "summary:");
		return 0;
	}
	int use_totals = bad_totals >= 0;
	int k = use_totals ? bad_totals : bad_summary;
	int e = c->emap[k];
	return fail(c, "the %s costs add up to %" PRId64 ", but the %s line (line %lu) says %"
		    PRId64 ": the file is truncated or altered",
		    cg_profile_event(c->p, (size_t)e)->name, c->part_sum[e],
		    use_totals ? "totals:" : "summary:",
		    use_totals ? c->totals_line : c->summary_line,
		    use_totals ? c->totals[e] : c->summary[e]);
}

/* Several parts get names ("thread 2", "part 3"), so that merging two
 * files matches them; a single part stays unnamed, so two runs of one
 * program (different pids) merge into one part. */
static int name_parts(struct cr *c)
{
	if (c->nparts < 2)
		return 0;
	for (unsigned i = 0; i < (unsigned)c->nparts; i++) {
		char name[96];
		if (c->named[i])
			continue;
		const char *thread = c->labels[i * 2], *part = c->labels[i * 2 + 1];
		if (thread)
			snprintf(name, sizeof name, "thread %.40s", thread);
		else
			snprintf(name, sizeof name, "part %.40s", part ? part : "?");
		if (part && thread)
			snprintf(name + strlen(name), sizeof name - strlen(name), " part %.40s", part);
		if (!part && !thread)
			snprintf(name, sizeof name, "part %u", i + 1);
		if (cg_profile_set_part_name(c->p, i, name))
			return oom(c);
	}
	return 0;
}

int cg_read_callgrind_stream(cg_profile **out, FILE *in, const char *name, cg_error *err)
{
	return cg_callgrind_read(out, in, name, NULL, err);
}

int cg_callgrind_read(cg_profile **out, FILE *in, const char *name, const cg_read_options *opts,
		      cg_error *err)
{
	struct cr c;
	memset(&c, 0, sizeof c);
	*out = NULL;
	c.name = name;
	c.err = err;
	c.opts = opts;
	c.drop_positions = opts && opts->version >= 3 && opts->drop_positions;
	if (cg_profile_new(&c.p))
		return cg_error_set(err, CG_ENOMEM, "%s: out of memory", name);
	/* a failure sets c.rc: nothing below runs but the cleanup, which
	 * also frees what start_part allocated before it failed */
	start_part(&c);
	cg_line_reader lines;
	cg_line_reader_init(&lines, in, name, CG_TEXT_LINE_MAX);
	char *buf;
	size_t len;
	while (!c.rc) {
		int got = cg_line_reader_next(&lines, &buf, &len, err);
		if (got <= 0) {
			c.rc = got;
			break;
		}
		c.line++;
		process_line(&c, buf, len);
	}
	cg_line_reader_release(&lines);
	if (!c.rc && !c.any_events) {
		c.line++;
		fail(&c, c.line == 1 ? "empty file" : "no events: line (not a Callgrind profile?)");
	}
	if (!c.rc && c.pending != NONE)
		fail(&c, "file ends after a call or jump line: the file is truncated or altered");
	if (!c.rc)
		check_totals(&c);
	if (!c.rc)
		c.rc = cg_profile_check_positions(c.p, name, err);
	names_free(&c.obs);
	names_free(&c.files);
	names_free(&c.fns);
	id_map_free(&c.fn_of_id);
	if (!c.rc)
		name_parts(&c);
	free(c.labels);
	free(c.named);
	if (c.rc) {
		cg_profile_free(c.p);
		return c.rc;
	}
	*out = c.p;
	return 0;
}

int cg_read_callgrind(cg_profile **out, const char *path, cg_error *err)
{
	*out = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return cg_error_set(err, CG_EIO, "%s: %s", path, strerror(errno));
	int rc = cg_read_callgrind_stream(out, f, path, err);
	fclose(f);
	return rc;
}

int cg_read_callgrind_buffer(cg_profile **out, const void *data, size_t len, const char *name,
			     cg_error *err)
{
	*out = NULL;
	if (len == 0)
		return cg_error_set(err, CG_EFORMAT, "%s:1: empty file", name);
	FILE *f = fmemopen((void *)data, len, "rb");
	if (!f)
		return cg_error_set(err, CG_ENOMEM, "%s: cannot open buffer", name);
	int rc = cg_read_callgrind_stream(out, f, name, err);
	fclose(f);
	return rc;
}
