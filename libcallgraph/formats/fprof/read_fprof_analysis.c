/*
 * read_fprof_analysis.c — the text fprof:analyse prints, back into the
 * model (what erlgrind reads).
 *
 * The text is a sequence of Erlang terms ending in '.', with %-comments:
 * the options, then per section a header list ([{totals, ...}] or
 * [{"<pid>", CNT, undefined, OWN}, {spawned_by, ...}, ...]) followed by
 * paragraphs {[Callers], {Func, CNT, ACC, OWN}, [Called]} (callers) or
 * lines {Func, CNT, ACC, OWN} (no_callers).  Times are milliseconds with
 * three decimals, i.e. whole microseconds.
 *
 * Every fprof row (Pid, Caller, Func) is a caller row of Func's paragraph,
 * so the callers rows alone rebuild the table.  What cannot come back:
 * with no_callers there are no rows (only per-function sums), and with
 * no_details only the totals (all processes merged, when `totals` was
 * given).  Per-process sections win over the totals paragraphs.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "checked.h"
#include "fprof_model.h"
#include "fprof_term.h"

struct ar {
	cg_profile *p;
	const char *name;
	const char *base;
	int ev;
	int in_details;     /* current section is a process (not totals) */
	int have_details;
	int part;           /* current part, -1 none */
	int used_part0;
	cg_fid undef;
	cg_error *err;
	int reported;       /* bad() wrote the message of the current error */
};

static int bad(struct ar *a, const char *at, const char *why)
{
	size_t line = 1;
	for (const char *c = a->base; c < at; c++)
		line += *c == '\n';
	a->reported = 1;
	return cg_error_set(a->err, CG_EFORMAT, "%s:%zu: %s", a->name, line, why);
}

static int us_of(const fprof_term *t, int64_t *out)
{
	if (t->kind == FT_FLOAT && fabs(t->u.f) < 9e12) {
		*out = llround(t->u.f * 1000.0);
		return 0;
	}
	if (t->kind == FT_INT && t->u.i > -9000000000000 && t->u.i < 9000000000000) {
		*out = t->u.i * 1000;
		return 0;
	}
	return -1;
}

/* Model function for a printed name: {M,F,A} -> "M:F/A". */
static int func_of(struct ar *a, const fprof_term *t, cg_fid *out)
{
	fprof_buf b = { 0 };
	if (t->kind == FT_TUPLE && t->n == 3 && t->u.e[0].kind == FT_ATOM && t->u.e[1].kind == FT_ATOM &&
	    t->u.e[2].kind == FT_INT) {
		cg_fprof_atom_write(&b, t->u.e[0].u.s, t->u.e[0].n);
		cg_fprof_buf_addc(&b, ':');
		cg_fprof_atom_write(&b, t->u.e[1].u.s, t->u.e[1].n);
		cg_fprof_buf_addf(&b, "/%lld", (long long)t->u.e[2].u.i);
	} else if (t->kind == FT_ATOM) {
		cg_fprof_buf_add(&b, t->u.s, t->n);
	} else {
		cg_fprof_term_write(&b, t);
	}
	int rc = b.oom ? CG_ENOMEM : cg_fprof_model_function(a->p, cg_fprof_buf_cstr(&b), out);
	cg_fprof_buf_release(&b);
	return rc;
}

/* {Name, CNT, ACC, OWN}: -1 when malformed, -2 when ACC (inclusive time,
 * never below zero in fprof's own output) is negative. */
static int row_of(const fprof_term *t, const fprof_term **name, uint64_t *cnt, int64_t *acc,
		  int64_t *own)
{
	if (t->kind != FT_TUPLE || t->n != 4 || t->u.e[1].kind != FT_INT || t->u.e[1].u.i < 0)
		return -1;
	*name = &t->u.e[0];
	*cnt = (uint64_t)t->u.e[1].u.i;
	if (us_of(&t->u.e[3], own))
		return -1;
	if (t->u.e[2].kind == FT_ATOM)
		*acc = 0;   /* process headers print `undefined` */
	else if (us_of(&t->u.e[2], acc))
		return -1;
	return *acc < 0 ? -2 : 0;
}

static int set_part_meta(struct ar *a, const char *what, const fprof_term *t)
{
	fprof_buf b = { 0 };
	if (t->kind == FT_STRING)
		cg_fprof_buf_add(&b, t->u.s, t->n);   /* spawned_by: the pid text itself */
	else
		cg_fprof_term_write(&b, t);
	int rc = b.oom ? CG_ENOMEM : cg_profile_set_part_meta(a->p, (unsigned)a->part, what,
									cg_fprof_buf_cstr(&b));
	cg_fprof_buf_release(&b);
	return rc;
}

static int section(struct ar *a, const fprof_term *t, const char *at)
{
	const fprof_term *name;
	uint64_t cnt;
	int64_t acc, own;
	int r = row_of(&t->u.e[0], &name, &cnt, &acc, &own);
	if (r)
		return bad(a, at, r == -2 ? "negative ACC in section header" : "malformed section header");
	if (name->kind == FT_ATOM && name->n == 6 && memcmp(name->u.s, "totals", 6) == 0) {
		a->in_details = 0;
		a->part = -1;
		char num[32];
		snprintf(num, sizeof num, "%lld", (long long)acc);
		if (cg_profile_set_meta(a->p, "fprof.first_ts", "0") ||
		    cg_profile_set_meta(a->p, "fprof.last_ts", num))
			return CG_ENOMEM;
		return 0;
	}
	if (name->kind != FT_STRING)
		return bad(a, at, "section header names neither totals nor a process");
	char pid[256];
	snprintf(pid, sizeof pid, "%.*s", (int)name->n, name->u.s);
	unsigned part;
	int rc;
	if (!a->used_part0) {
		part = 0;
		a->used_part0 = 1;
		rc = cg_profile_set_part_name(a->p, 0, pid);
	} else {
		rc = cg_profile_add_part(a->p, pid, &part);
	}
	if (rc)
		return rc;
	a->part = (int)part;
	a->in_details = 1;
	a->have_details = 1;
	for (uint32_t i = 1; i < t->n; i++) {
		const fprof_term *e = &t->u.e[i];
		if (e->kind != FT_TUPLE || e->n != 2 || e->u.e[0].kind != FT_ATOM)
			return bad(a, at, "malformed process record");
		const fprof_term *tag = &e->u.e[0];
		const char *what = NULL;
		if (tag->n == 10 && memcmp(tag->u.s, "spawned_by", 10) == 0)
			what = "spawned_by";
		else if (tag->n == 10 && memcmp(tag->u.s, "spawned_as", 10) == 0)
			what = "spawned_as";
		else if (tag->n == 13 && memcmp(tag->u.s, "initial_calls", 13) == 0)
			what = "initial_calls";
		if (what && (rc = set_part_meta(a, what, &e->u.e[1])))
			return rc;
	}
	return 0;
}

/* The totals section's paragraphs go to part 0 only when the analysis has
 * no per-process sections; we learn that at the end, so they are kept
 * aside and replayed. */
struct pending {
	fprof_term **terms;
	const char **at;
	size_t n, cap;
};

static int add_row(struct ar *a, unsigned part, cg_fid caller, cg_fid func, uint64_t cnt,
		   int64_t acc, int64_t own)
{
	cg_cost vec[CG_MAX_EVENTS] = { 0 };
	vec[a->ev] = acc;
	size_t arc;
	int rc = cg_profile_add_arc(a->p, part, caller, func, cnt, vec, &arc);
	if (rc)
		return rc;
	/* OWN per row: the arc's own self cost, and the function's */
	vec[a->ev] = own;
	if ((rc = cg_profile_add_arc_self(a->p, part, arc, vec)))
		return rc;
	return cg_profile_add_self(a->p, part, func, vec);
}

static int add_sums(struct ar *a, unsigned part, cg_fid f, uint64_t cnt, int64_t acc, int64_t own)
{
	cg_cost vec[CG_MAX_EVENTS] = { 0 };
	uint64_t c0 = cg_profile_calls(a->p, part, f);
	const cg_cost *i0 = cg_profile_inclusive(a->p, part, f);
	vec[a->ev] = acc;
	/* exact or refused (checked.h): no saturated sums */
	if ((i0 && cg_checked_add_cost(&vec[a->ev], i0[a->ev])) ||
	    (c0 != UINT64_MAX && (cg_checked_add_u64(&cnt, c0) || cnt == UINT64_MAX)))
		return CG_EFORMAT;
	int rc = cg_profile_set_calls(a->p, part, f, cnt);
	if (!rc)
		rc = cg_profile_set_inclusive(a->p, part, f, vec);
	return rc;
}

static int paragraph_rows(struct ar *a, unsigned part, const fprof_term *t, const char *at,
			  int rows);

/* A sum the model refuses (CG_EFORMAT without a message of ours) is
 * reported at the paragraph that caused it. */
static int paragraph(struct ar *a, unsigned part, const fprof_term *t, const char *at, int rows)
{
	a->reported = 0;
	int rc = paragraph_rows(a, part, t, at, rows);
	if (rc == CG_EFORMAT && !a->reported)
		return bad(a, at, "times or call counts sum past 2^63-1");
	return rc;
}

static int paragraph_rows(struct ar *a, unsigned part, const fprof_term *t, const char *at,
			  int rows)
{
	const fprof_term *name;
	uint64_t cnt;
	int64_t acc, own;
	int rc;
	if (t->kind == FT_TUPLE && t->n == 4) {
		/* no_callers line: per-function sums only */
		cg_fid f;
		int r = row_of(t, &name, &cnt, &acc, &own);
		if (r)
			return bad(a, at, r == -2 ? "negative ACC in function line" : "malformed function line");
		if ((rc = func_of(a, name, &f)) || !rows)
			return rc;
		cg_cost vec[CG_MAX_EVENTS] = { 0 };
		vec[a->ev] = own;
		if ((rc = cg_profile_add_self(a->p, part, f, vec)))
			return rc;
		return add_sums(a, part, f, cnt, acc, own);
	}
	if (t->kind != FT_TUPLE || t->n != 3 || (t->u.e[0].kind != FT_LIST && t->u.e[0].kind != FT_NIL))
		return bad(a, at, "malformed paragraph");
	cg_fid func;
	int r = row_of(&t->u.e[1], &name, &cnt, &acc, &own);
	if (r)
		return bad(a, at, r == -2 ? "negative ACC in marked row" : "malformed marked row");
	if ((rc = func_of(a, name, &func)))
		return rc;
	if (!rows)
		return 0;
	if ((rc = add_sums(a, part, func, cnt, acc, own)))
		return rc;
	/* the called list repeats rows the callees' paragraphs hold; it is
	 * not read, but a negative ACC there is refused all the same */
	const fprof_term *called = &t->u.e[2];
	for (uint32_t i = 0; called->kind == FT_LIST && i < called->n; i++) {
		const fprof_term *cn;
		uint64_t c_cnt;
		int64_t c_acc, c_own;
		if (row_of(&called->u.e[i], &cn, &c_cnt, &c_acc, &c_own) == -2)
			return bad(a, at, "negative ACC in called row");
	}
	const fprof_term *callers = &t->u.e[0];
	uint32_t n = callers->kind == FT_LIST ? callers->n : 0;
	for (uint32_t i = 0; i < n; i++) {
		cg_fid c;
		uint64_t rc_cnt;
		int64_t r_acc, r_own;
		if ((r = row_of(&callers->u.e[i], &name, &rc_cnt, &r_acc, &r_own)))
			return bad(a, at, r == -2 ? "negative ACC in caller row" : "malformed caller row");
		if ((rc = func_of(a, name, &c)) || (rc = add_row(a, part, c, func, rc_cnt, r_acc, r_own)))
			return rc;
	}
	return 0;
}

/* Finds the '.' ending the term that starts at p (outside strings,
 * quoted atoms and comments). */
static const char *term_end(const char *p, const char *end)
{
	while (p < end) {
		char c = *p;
		if (c == '"' || c == '\'') {
			for (p++; p < end && *p != c; p++)
				if (*p == '\\')
					p++;
			p++;
		} else if (c == '%') {
			while (p < end && *p != '\n')
				p++;
		} else if (c == '$') {
			p += 2;
		} else if (c == '.' && (p + 1 == end || p[1] == '\n' || p[1] == ' ' || p[1] == '\r' || p[1] == '\t' || p[1] == '%')) {
			return p;
		} else {
			p++;
		}
	}
	return NULL;
}

int cg_read_fprof_analysis_buffer(cg_profile *profile, const void *data, size_t len,
				  const char *name, cg_error *err)
{
	struct ar a = { 0 };
	a.p = profile;
	a.name = name ? name : "(buffer)";
	a.base = data;
	a.err = err;
	a.part = -1;
	const char *p = data, *end = p + len;
	if (!cg_fprof_analysis_detect(data, len))
		return cg_error_set(err, CG_EFORMAT, "%s:1: not an fprof analysis (no \"%%%% Analysis results:\")", a.name);
	a.ev = cg_profile_find_event(profile, "us");
	if (a.ev < 0)
		a.ev = cg_profile_add_event(profile, "us", "Time in microseconds (fprof OWN/ACC)", 1e-6);
	if (a.ev < 0)
		return cg_error_set(err, a.ev, "%s: cannot add the event \"us\"", a.name);
	int rc = cg_fprof_model_function(profile, "undefined", &a.undef);
	fprof_arena arena = { 0 };
	struct pending pend = { 0 };
	int saw_options = 0;
	while (!rc) {
		const char *q = p;
		/* skip blanks and comments */
		while (q < end && (*q == ' ' || *q == '\n' || *q == '\t' || *q == '\r' || *q == '%')) {
			if (*q == '%')
				while (q < end && *q != '\n')
					q++;
			else
				q++;
		}
		if (q >= end)
			break;
		const char *te = term_end(q, end);
		if (!te) {
			rc = bad(&a, q, "term without its final '.' (truncated?)");
			break;
		}
		fprof_term *t;
		const char *why, *r = q;
		if (cg_fprof_term_parse(&arena, &r, te, &t, &why)) {
			rc = bad(&a, q, why);
			break;
		}
		p = te + 1;
		if (!saw_options) {
			if (t->kind != FT_TUPLE || t->n != 2 || t->u.e[0].kind != FT_ATOM)
				rc = bad(&a, q, "expected {analysis_options, [...]}");
			saw_options = 1;
			continue;
		}
		if (t->kind == FT_LIST) {
			rc = section(&a, t, q);
		} else if (a.in_details) {
			rc = paragraph(&a, (unsigned)a.part, t, q, 1);
		} else {
			/* totals paragraph: check it now, keep it for later */
			rc = paragraph(&a, 0, t, q, 0);
			if (!rc && pend.n == pend.cap) {
				size_t nc = pend.cap ? pend.cap * 2 : 64;
				fprof_term **nt = realloc(pend.terms, nc * sizeof *nt);
				const char **na = nt ? realloc(pend.at, nc * sizeof *na) : NULL;
				if (nt)
					pend.terms = nt;
				if (!na)
					rc = CG_ENOMEM;
				else {
					pend.at = na;
					pend.cap = nc;
				}
			}
			if (!rc) {
				pend.terms[pend.n] = t;
				pend.at[pend.n++] = q;
			}
		}
	}
	if (!rc && !saw_options)
		rc = bad(&a, p, "empty analysis");
	if (!rc && !a.have_details) {
		if (cg_profile_set_part_name(profile, 0, "totals"))
			rc = CG_ENOMEM;
		for (size_t i = 0; i < pend.n && !rc; i++)
			rc = paragraph(&a, 0, pend.terms[i], pend.at[i], 1);
	}
	free(pend.terms);
	free(pend.at);
	cg_fprof_arena_release(&arena);
	if (rc && rc != CG_EFORMAT)
		return cg_error_set(err, rc, "%s: %s", a.name, cg_strerror(rc));
	return rc;
}

int cg_read_fprof_analysis(cg_profile *profile, const char *path, cg_error *err)
{
	FILE *f = (!path || strcmp(path, "-") == 0) ? stdin : fopen(path, "rb");
	const char *name = path ? path : "-";
	if (!f)
		return cg_error_set(err, CG_EIO, "%s: cannot open: %s", name, strerror(errno));
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	int rc = 0;
	while (buf) {
		if (len == cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (!buf)
		rc = cg_error_set(err, CG_ENOMEM, "%s: out of memory", name);
	else if (ferror(f))
		rc = cg_error_set(err, CG_EIO, "%s: read error", name);
	if (f != stdin)
		fclose(f);
	if (!rc)
		rc = cg_read_fprof_analysis_buffer(profile, buf, len, name, err);
	free(buf);
	return rc;
}

int cg_fprof_analysis_detect(const void *head, size_t len)
{
	static const char magic[] = "%% Analysis results:";
	return len >= sizeof magic - 1 && memcmp(head, magic, sizeof magic - 1) == 0;
}
