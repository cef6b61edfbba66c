/*
 * read_xml.c — reads the XML image of a profile back (docs/xml-schema.rng)
 * with libxml2's streaming reader.  Every reference is checked against
 * what was read before it; errors name the line.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlreader.h>

#include "budget.h"
#include "callgraph.h"
#include "hashmap.h"
#include "jumps.h"
#include "positions.h"
#include "xml_common.h"

enum where { TOP, IN_ROOT, IN_PART, IN_TREE, DONE };

struct xr {
	xmlTextReaderPtr r;
	const char *name;
	cg_profile *p;
	cg_error *err;
	int rc;
	enum where where;
	int stage;             /* 0 meta, 1 events, 2 functions, 3 parts */
	int seen_gmon;
	/* gmon facts from the "gmon.*" metadata of files written before the
	 * <gmon> element existed */
	cg_gmon_info legacy_gmon;
	char legacy_dimension[64], legacy_abbrev[8];
	int legacy_seen;
	int part_data;         /* the current part has had a non-<meta> child */
	/* "fprof.part.N.*" metadata of old files: the parts come later */
	struct legacy_part_meta {
		unsigned part;
		char *key, *value;
	} *legacy_part;
	size_t nlegacy_part, legacy_part_cap;
	unsigned part;
	int nparts;
	size_t nev;
	char parse_error[512];
	int parse_line;
};

static int fail(struct xr *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The line of the element being read (the parser itself may have read
 * ahead). */
static int current_line(struct xr *x)
{
	xmlNodePtr node = xmlTextReaderCurrentNode(x->r);
	long line = node ? xmlGetLineNo(node) : -1;
	return line > 0 ? (int)line : xmlTextReaderGetParserLineNumber(x->r);
}

static int fail(struct xr *x, const char *fmt, ...)
{
	char msg[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (x->rc)
		return x->rc;
	x->rc = cg_error_set(x->err, CG_EFORMAT, "%s:%d: %s", x->name, current_line(x), msg);
	return x->rc;
}

static void on_error(void *arg, const char *msg, xmlParserSeverities severity,
		     xmlTextReaderLocatorPtr loc)
{
	struct xr *x = arg;
	if (x->parse_error[0] || (severity != XML_PARSER_SEVERITY_ERROR &&
				  severity != XML_PARSER_SEVERITY_VALIDITY_ERROR))
		return;
	size_t n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		n--;
	if (n >= sizeof x->parse_error)
		n = sizeof x->parse_error - 1;
	memcpy(x->parse_error, msg, n);
	x->parse_error[n] = 0;
	x->parse_line = xmlTextReaderLocatorLineNumber(loc);
}

static void on_generic_error(void *ctx, const char *fmt, ...)
{
	struct xr *x = ctx;
	if (x->parse_error[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->parse_error, sizeof x->parse_error, fmt, ap);
	va_end(ap);
	size_t n = strlen(x->parse_error);
	while (n && (x->parse_error[n - 1] == '\n' || x->parse_error[n - 1] == ' '))
		x->parse_error[--n] = 0;
	/* libxml2 prints a message in pieces; a first piece that is only a
	 * prefix ("I/O error : ") is kept until the rest arrives */
	if (n && x->parse_error[n - 1] == ':')
		x->parse_error[0] = 0;
}

/* ---- attributes ---------------------------------------------------------------- */

/* Returns a malloc'd value of attribute `name` (or of `name`-hex,
 * decoded), NULL when absent (x->rc set when malformed). */
static char *get_string(struct xr *x, const char *name)
{
	xmlChar *v = xmlTextReaderGetAttribute(x->r, BAD_CAST name);
	if (v)
		return (char *)v;
	char hexname[64];
	snprintf(hexname, sizeof hexname, "%s-hex", name);
	v = xmlTextReaderGetAttribute(x->r, BAD_CAST hexname);
	if (!v)
		return NULL;
	size_t n = strlen((char *)v);
	char *out = malloc(n / 2 + 1);
	if (!out || n % 2) {
		free(out);
		xmlFree(v);
		fail(x, "attribute %s: odd number of hex digits", hexname);
		return NULL;
	}
	for (size_t i = 0; i < n / 2; i++) {
		unsigned b;
		char pair[3] = { (char)v[2 * i], (char)v[2 * i + 1], 0 };
		char *end;
		b = (unsigned)strtoul(pair, &end, 16);
		if (*end || !pair[0] || !pair[1] || pair[0] == '-' || pair[0] == '+' ||
		    pair[0] == ' ' || b == 0) {
			free(out);
			xmlFree(v);
			fail(x, "attribute %s: bad hex byte '%s'", hexname, pair);
			return NULL;
		}
		out[i] = (char)b;
	}
	out[n / 2] = 0;
	xmlFree(v);
	return out;
}

static void free_string(char *s)
{
	/* xmlFree and free are the same allocator unless libxml2 was told
	 * otherwise; we never tell it */
	free(s);
}

/* 1 if present (value in *out), 0 if absent, -1 on error. */
static int get_u64(struct xr *x, const char *name, uint64_t max, uint64_t *out)
{
	xmlChar *v = xmlTextReaderGetAttribute(x->r, BAD_CAST name);
	if (!v)
		return 0;
	const char *s = (const char *)v;
	char *end;
	errno = 0;
	int hex = s[0] == '0' && s[1] == 'x';
	unsigned long long n = strtoull(hex ? s + 2 : s, &end, hex ? 16 : 10);
	int bad = !*s || !(hex ? s[2] : 1) || *end || errno || (hex ? s[2] == '-' || s[2] == '+' || s[2] == ' '
							     : (s[0] < '0' || s[0] > '9')) || n > max;
	if (bad) {
		fail(x, "attribute %s: bad number '%.40s'", name, s);
		xmlFree(v);
		return -1;
	}
	xmlFree(v);
	*out = n;
	return 1;
}

static int need_u64(struct xr *x, const char *name, uint64_t max, uint64_t *out)
{
	int r = get_u64(x, name, max, out);
	if (r == 0)
		fail(x, "<%s> has no %s attribute", (const char *)xmlTextReaderConstLocalName(x->r),
		     name);
	return r == 1 ? 0 : -1;
}

static int get_double(struct xr *x, const char *name, double *out)
{
	xmlChar *v = xmlTextReaderGetAttribute(x->r, BAD_CAST name);
	if (!v)
		return 0;
	const char *s = (const char *)v;
	char *end;
	double d;
	if (strcmp(s, "INF") == 0)
		d = INFINITY;
	else if (strcmp(s, "-INF") == 0)
		d = -INFINITY;
	else if (strcmp(s, "NaN") == 0)
		d = NAN;
	else {
		d = strtod(s, &end);
		/* strtod also takes hex, "inf", "nan": the schema does not */
		if (!*s || *end || strpbrk(s, "xXnNiI ")) {
			fail(x, "attribute %s: bad number '%.40s'", name, s);
			xmlFree(v);
			return -1;
		}
	}
	xmlFree(v);
	*out = d;
	return 1;
}

static int get_costs(struct xr *x, const char *name, cg_cost *out)
{
	xmlChar *v = xmlTextReaderGetAttribute(x->r, BAD_CAST name);
	if (!v)
		return 0;
	const char *s = (const char *)v;
	size_t e = 0;
	while (*s) {
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
		if (!*s)
			break;
		char *end;
		errno = 0;
		long long n = strtoll(s, &end, 10);
		if (end == s || errno || e >= x->nev || (*end && *end != ' ' && *end != '\t' &&
							  *end != '\n' && *end != '\r')) {
			fail(x, "attribute %s: %s", name,
			     e >= x->nev && end != s ? "more costs than events" : "bad cost list");
			xmlFree(v);
			return -1;
		}
		out[e++] = n;
		s = end;
	}
	xmlFree(v);
	if (e != x->nev) {
		fail(x, "attribute %s: %zu costs for %zu events", name, e, x->nev);
		return -1;
	}
	return 1;
}

static int need_fn(struct xr *x, const char *name, cg_fid *out)
{
	uint64_t v;
	if (need_u64(x, name, UINT32_MAX, &v))
		return -1;
	if (v >= cg_profile_function_count(x->p)) {
		fail(x, "attribute %s: no function %" PRIu64, name, v);
		return -1;
	}
	*out = (cg_fid)v;
	return 0;
}

/* ---- elements --------------------------------------------------------------------- */

static int oom(struct xr *x)
{
	if (!x->rc)
		x->rc = cg_error_set(x->err, CG_ENOMEM, "%s: out of memory", x->name);
	return x->rc;
}

/* 1 if key was one of the old "gmon.*" keys (kept in x->legacy_gmon). */
static int legacy_gmon_meta(struct xr *x, const char *k, const char *v)
{
	cg_gmon_info *g = &x->legacy_gmon;
	if (strncmp(k, "gmon.", 5) != 0)
		return 0;
	k += 5;
	int flag = strcmp(v, "1") == 0;
	if (strcmp(k, "histogram") == 0)
		g->has_histogram = flag;
	else if (strcmp(k, "arcs") == 0)
		g->has_arcs = flag;
	else if (strcmp(k, "bb") == 0)
		g->has_bb = flag;
	else if (strcmp(k, "version") == 0)
		g->version = (int)strtol(v, NULL, 10);
	else if (strcmp(k, "scale") == 0)
		g->scale = strtod(v, NULL);
	else if (strcmp(k, "total_time") == 0)
		g->total_time = strtod(v, NULL);
	else if (strcmp(k, "total_samples") == 0)
		g->total_samples = strtoull(v, NULL, 10);
	else if (strcmp(k, "dimension") == 0)
		snprintf(x->legacy_dimension, sizeof x->legacy_dimension, "%s", v);
	else if (strcmp(k, "dimension_abbrev") == 0)
		snprintf(x->legacy_abbrev, sizeof x->legacy_abbrev, "%s", v);
	else
		return 0;
	/* as the gprof engine read them: histogram or arcs mark a gmon file */
	if (strcmp(k, "histogram") == 0 || strcmp(k, "arcs") == 0)
		x->legacy_seen = 1;
	return 1;
}

/* 1 if key was an old "fprof.part.N.what" key (kept for the end). */
static int legacy_part_meta(struct xr *x, const char *k, const char *v)
{
	if (strncmp(k, "fprof.part.", 11) != 0 || k[11] < '0' || k[11] > '9')
		return 0;
	char *end;
	errno = 0;
	unsigned long part = strtoul(k + 11, &end, 10);
	if (errno || *end != '.' || !end[1] || part >= UINT32_MAX)
		return 0;
	if (x->nlegacy_part == x->legacy_part_cap) {
		size_t cap = x->legacy_part_cap ? x->legacy_part_cap * 2 : 16;
		struct legacy_part_meta *n = realloc(x->legacy_part, cap * sizeof *n);
		if (!n)
			return -1;
		x->legacy_part = n;
		x->legacy_part_cap = cap;
	}
	struct legacy_part_meta *m = &x->legacy_part[x->nlegacy_part];
	m->part = (unsigned)part;
	m->key = strdup(end + 1);
	m->value = strdup(v);
	if (!m->key || !m->value) {
		free(m->key);
		free(m->value);
		return -1;
	}
	x->nlegacy_part++;
	return 1;
}

static cg_fid fid_by_name(const cg_profile *p, const struct cg_hashmap *names, const char *s,
			  size_t n)
{
	size_t cursor = 0;
	uint32_t f;
	while (cg_hashmap_next(names, cg_hash_bytes(CG_HASH_INIT, s, n), &cursor, &f)) {
		const char *nm = cg_profile_function(p, f)->name;
		if (strncmp(nm, s, n) == 0 && nm[n] == '\0')
			return f;
	}
	return CG_NO_FUNC;
}

/* An old file's "fprof.part.N.rows" (one "caller TAB function TAB CNT TAB
 * ACC TAB OWN" line per fprof row) becomes the arcs' self costs when it
 * describes the part's arcs exactly, as the fprof writer then trusted it;
 * otherwise OWN per caller comes from the tree. */
static int legacy_rows(struct xr *x, unsigned part, const char *m, const struct cg_hashmap *names)
{
	size_t narcs = cg_profile_arc_count(x->p, part), n = 0;
	int ev = cg_profile_find_event(x->p, "us");
	if (ev < 0)
		ev = 0;
	if (narcs == 0 || x->nev == 0)
		return 0;
	int64_t *own = calloc(narcs, sizeof *own);
	unsigned char *seen = calloc(narcs, 1);
	int ok = own && seen, rc = ok ? 0 : CG_ENOMEM;
	while (ok && *m) {
		const char *t1 = strchr(m, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		if (!t2) {
			ok = 0;
			break;
		}
		char *e;
		unsigned long long cnt = strtoull(t2 + 1, &e, 10);
		long long acc = strtoll(e, &e, 10), o = strtoll(e, &e, 10);
		cg_fid c = fid_by_name(x->p, names, m, (size_t)(t1 - m));
		cg_fid f = fid_by_name(x->p, names, t1 + 1, (size_t)(t2 - t1 - 1));
		long r = c == CG_NO_FUNC || f == CG_NO_FUNC ? -1 : cg_profile_find_arc(x->p, part, c, f);
		const cg_arc *a = r >= 0 ? cg_profile_arc(x->p, part, (size_t)r) : NULL;
		if (*e != '\n' || !a || seen[r] || a->count != cnt ||
		    (a->inclusive ? a->inclusive[ev] : 0) != acc) {
			ok = 0;
			break;
		}
		seen[r] = 1;
		own[r] = o;
		n++;
		m = e + 1;
	}
	for (size_t r = 0; ok && n == narcs && r < narcs && !rc; r++) {
		cg_cost v[CG_MAX_EVENTS] = { 0 };
		v[ev] = own[r];
		rc = cg_profile_add_arc_self(x->p, part, r, v);
	}
	free(own);
	free(seen);
	return rc;
}

static int read_gmon(struct xr *x)
{
	if (x->seen_gmon)
		return fail(x, "second <gmon> element");
	x->seen_gmon = 1;
	cg_gmon_info g = { 0 };
	uint64_t version = 0, samples = 0;
	char *records = get_string(x, "records");
	char *dim = get_string(x, "dimension"), *abbrev = get_string(x, "dimension-abbrev");
	int rc = x->rc;
	if (!rc && (!records || !dim || !abbrev))
		rc = fail(x, "<gmon> needs records, dimension and dimension-abbrev");
	for (char *r = records; !rc && r && *r;) {
		size_t n = strcspn(r, " ");
		if (n == 9 && strncmp(r, "histogram", n) == 0)
			g.has_histogram = 1;
		else if (n == 4 && strncmp(r, "arcs", n) == 0)
			g.has_arcs = 1;
		else if (n == 2 && strncmp(r, "bb", n) == 0)
			g.has_bb = 1;
		else
			rc = fail(x, "<gmon>: unknown record kind '%.*s'", (int)(n > 40 ? 40 : n), r);
		r += n;
		r += strspn(r, " ");
	}
	if (!rc && (need_u64(x, "version", INT32_MAX, &version) ||
		    get_double(x, "scale", &g.scale) != 1 || get_double(x, "total-time", &g.total_time) != 1 ||
		    need_u64(x, "total-samples", UINT64_MAX, &samples)))
		rc = x->rc ? x->rc : fail(x, "<gmon> needs scale and total-time");
	if (!rc) {
		g.version = (int)version;
		g.total_samples = samples;
		g.dimension = dim;
		g.dimension_abbrev = abbrev;
		if (cg_profile_set_gmon_info(x->p, &g))
			rc = oom(x);
	}
	free_string(records);
	free_string(dim);
	free_string(abbrev);
	return rc;
}

static int read_meta(struct xr *x)
{
	char *k = get_string(x, "key"), *v = get_string(x, "value");
	int rc = x->rc;
	if (!rc && (!k || !v))
		rc = fail(x, "<meta> needs key and value");
	if (!rc && x->where == IN_PART) {
		if (cg_profile_set_part_meta(x->p, x->part, k, v))
			rc = oom(x);
	} else if (!rc && !legacy_gmon_meta(x, k, v)) {
		int legacy = legacy_part_meta(x, k, v);
		if (legacy < 0 || (!legacy && cg_profile_set_meta(x->p, k, v)))
			rc = oom(x);
	}
	free_string(k);
	free_string(v);
	return rc;
}

static int read_run(struct xr *x)
{
	cg_run_info r;
	memset(&r, 0, sizeof r);
	uint64_t threads = 0, cut = 0;
	if (get_u64(x, "samples", UINT64_MAX, &r.samples) < 0 ||
	    get_u64(x, "overhead", UINT64_MAX, &r.overhead) < 0 ||
	    get_u64(x, "lost", UINT64_MAX, &r.lost) < 0 ||
	    get_u64(x, "resyncs", UINT64_MAX, &r.resyncs) < 0 ||
	    get_u64(x, "threads", UINT32_MAX, &threads) < 0 ||
	    get_u64(x, "threads-cut", UINT32_MAX, &cut) < 0)
		return x->rc;
	r.threads = (unsigned)threads;
	r.threads_cut = (unsigned)cut;
	char *flags = get_string(x, "flags"), *ending = get_string(x, "ending");
	int rc = x->rc;
	for (char *w = flags; !rc && w && *w;) {
		size_t n = strcspn(w, " ");
		if (n == 3 && memcmp(w, "oom", 3) == 0)
			r.flags |= CG_RUN_OOM;
		else if (n == 8 && memcmp(w, "overflow", 8) == 0)
			r.flags |= CG_RUN_OVERFLOW;
		else if (n == 6 && memcmp(w, "killed", 6) == 0)
			r.flags |= CG_RUN_KILLED;
		else if (n == 7 && memcmp(w, "partial", 7) == 0)
			r.flags |= CG_RUN_PARTIAL;
		else
			rc = fail(x, "<run> flags: unknown word '%.*s'", (int)(n > 20 ? 20 : n), w);
		w += n;
		while (*w == ' ')
			w++;
	}
	if (!rc && ending)
		snprintf(r.ending, sizeof r.ending, "%s", ending);
	if (!rc && cg_profile_add_run_info(x->p, &r))
		rc = oom(x);
	free_string(flags);
	free_string(ending);
	return rc;
}

static int read_event(struct xr *x)
{
	char *name = get_string(x, "name"), *desc = get_string(x, "description");
	double unit = 0;
	int rc = x->rc;
	if (!rc && !name)
		rc = fail(x, "<event> has no name");
	if (!rc && get_double(x, "unit-seconds", &unit) != 1)
		rc = fail(x, "<event> has no valid unit-seconds");
	if (!rc && cg_profile_find_event(x->p, name) >= 0)
		rc = fail(x, "event '%s' declared twice", name);
	if (!rc && x->nev >= CG_MAX_EVENTS)
		rc = fail(x, "more than %d events", CG_MAX_EVENTS);
	if (!rc) {
		int e = cg_profile_add_event(x->p, name, desc, unit);
		if (e < 0)
			rc = oom(x);
		else
			x->nev++;
	}
	free_string(name);
	free_string(desc);
	return rc;
}

static int parse_flags(struct xr *x, uint32_t *flags)
{
	xmlChar *v = xmlTextReaderGetAttribute(x->r, BAD_CAST "flags");
	*flags = 0;
	if (!v)
		return 0;
	const char *s = (const char *)v;
	while (*s) {
		while (*s == ' ')
			s++;
		size_t n = strcspn(s, " ");
		if (!n)
			break;
		int found = 0;
		for (size_t i = 0; i < XML_NFLAGS; i++)
			if (strlen(xml_flags[i].name) == n && memcmp(s, xml_flags[i].name, n) == 0) {
				*flags |= xml_flags[i].bit;
				found = 1;
			}
		if (!found && n >= 4 && n <= 5 && memcmp(s, "bit", 3) == 0) {
			char num[3] = { s[3], n == 5 ? s[4] : 0, 0 };
			char *end;
			unsigned long b = strtoul(num, &end, 10);
			if (!*end && num[0] >= '0' && num[0] <= '9' && b < 32) {
				*flags |= 1u << b;
				found = 1;
			}
		}
		if (!found) {
			fail(x, "unknown function flag '%.*s'", (int)(n > 40 ? 40 : n), s);
			xmlFree(v);
			return -1;
		}
		s += n;
	}
	xmlFree(v);
	return 0;
}

static int read_function(struct xr *x)
{
	uint64_t id, line = 0, addr = 0, end = 0;
	cg_function fn = { 0 };
	char *name = NULL, *object = NULL, *file = NULL;
	if (need_u64(x, "id", UINT32_MAX - 1, &id))
		return x->rc;
	if (id != cg_profile_function_count(x->p))
		return fail(x, "function id %" PRIu64 " out of order (expected %zu)", id,
			    cg_profile_function_count(x->p));
	name = get_string(x, "name");
	if (!x->rc)
		object = get_string(x, "object");
	if (!x->rc)
		file = get_string(x, "file");
	if (!x->rc && !name)
		fail(x, "<function> has no name");
	if (!x->rc && get_u64(x, "line", UINT32_MAX, &line) >= 0 &&
	    get_u64(x, "addr", UINT64_MAX, &addr) >= 0 && get_u64(x, "end", UINT64_MAX, &end) >= 0 &&
	    parse_flags(x, &fn.flags) == 0) {
		fn.name = name;
		fn.object = object;
		fn.file = file;
		fn.line = (uint32_t)line;
		fn.addr = addr;
		fn.end = end;
		if (cg_profile_add_function(x->p, &fn, NULL))
			oom(x);
	}
	free_string(name);
	free_string(object);
	free_string(file);
	return x->rc;
}

static int start_part(struct xr *x)
{
	char *name = get_string(x, "name");
	if (x->rc)
		return x->rc;
	if (!name)
		return fail(x, "<part> has no name");
	int rc = 0;
	if (x->nparts == 0) {
		x->part = 0;
		if (cg_profile_set_part_name(x->p, 0, name))
			rc = oom(x);
	} else if (cg_profile_add_part(x->p, name, &x->part)) {
		rc = oom(x);
	}
	free_string(name);
	if (rc)
		return rc;
	x->nparts++;
	x->part_data = 0;
	xmlChar *ex = xmlTextReaderGetAttribute(x->r, BAD_CAST "exact");
	if (ex) {
		int yes = strcmp((char *)ex, "yes") == 0;
		xmlFree(ex);
		if (!yes)
			return fail(x, "attribute exact of <part> must be \"yes\"");
		if (x->nev == 0 || cg_profile_function_count(x->p) == 0)
			return fail(x, "exact self costs without events or functions");
		/* marks the part; the self elements fill in the values */
		if (cg_profile_set_self_exact(x->p, x->part, 0, 0.0))
			return oom(x);
	}
	return 0;
}

static int read_self(struct xr *x)
{
	cg_fid f;
	cg_cost c[CG_MAX_EVENTS];
	double ex;
	if (need_fn(x, "fn", &f) || get_costs(x, "costs", c) != 1)
		return x->rc ? x->rc : fail(x, "<self> has no costs");
	int rc = cg_profile_add_self(x->p, x->part, f, c);
	if (rc == CG_EFORMAT)
		return fail(x, "self costs of function %u sum past 2^63-1", f);
	if (rc)
		return oom(x);
	int r = get_double(x, "exact", &ex);
	if (r < 0)
		return x->rc;
	if (r == 1) {
		if (!cg_profile_has_self_exact(x->p, x->part))
			return fail(x, "exact self cost in a part without exact=\"yes\"");
		if (cg_profile_set_self_exact(x->p, x->part, f, ex))
			return oom(x);
	}
	return 0;
}

static int read_total(struct xr *x)
{
	cg_fid f;
	cg_cost c[CG_MAX_EVENTS];
	uint64_t calls;
	if (need_fn(x, "fn", &f))
		return x->rc;
	int r = get_costs(x, "inclusive", c);
	if (r < 0)
		return x->rc;
	if (r == 1 && cg_profile_set_inclusive(x->p, x->part, f, c))
		return oom(x);
	r = get_u64(x, "calls", UINT64_MAX, &calls);
	if (r < 0)
		return x->rc;
	if (r == 1 && cg_profile_set_calls(x->p, x->part, f, calls))
		return oom(x);
	return 0;
}

static int read_arc(struct xr *x)
{
	cg_fid caller, callee;
	uint64_t count, line = 0;
	cg_cost c[CG_MAX_EVENTS], self[CG_MAX_EVENTS];
	if (need_fn(x, "caller", &caller) || need_fn(x, "callee", &callee) ||
	    need_u64(x, "count", UINT64_MAX, &count))
		return x->rc;
	int r = get_costs(x, "inclusive", c);
	if (r < 0)
		return x->rc;
	int has_self = get_costs(x, "self", self);
	if (has_self < 0 || get_u64(x, "line", UINT32_MAX, &line) < 0)
		return x->rc;
	if (cg_profile_find_arc(x->p, x->part, caller, callee) >= 0)
		return fail(x, "arc %u -> %u listed twice", caller, callee);
	size_t idx;
	if (cg_profile_add_arc(x->p, x->part, caller, callee, count, r == 1 ? c : NULL, &idx) ||
	    (has_self == 1 && cg_profile_add_arc_self(x->p, x->part, idx, self)))
		return oom(x);
	cg_profile_arc(x->p, x->part, idx)->line = (uint32_t)line;
	return 0;
}

/* line, addr and file of <self-at> and <call-at> (and, prefixed with
 * "target-", of a <jump>'s target); file is malloc'd */
static int get_position_prefixed(struct xr *x, const char *prefix, cg_position *at, char **file)
{
	uint64_t line = 0, addr = 0;
	char n_line[32], n_addr[32], n_file[32];
	snprintf(n_line, sizeof n_line, "%sline", prefix);
	snprintf(n_addr, sizeof n_addr, "%saddr", prefix);
	snprintf(n_file, sizeof n_file, "%sfile", prefix);
	memset(at, 0, sizeof *at);
	*file = NULL;
	if (get_u64(x, n_line, UINT32_MAX, &line) < 0 || get_u64(x, n_addr, UINT64_MAX, &addr) < 0)
		return x->rc;
	*file = get_string(x, n_file);
	if (x->rc)
		return x->rc;
	at->line = (uint32_t)line;
	at->addr = addr;
	at->file = *file;
	return 0;
}

static int get_position(struct xr *x, cg_position *at, char **file)
{
	return get_position_prefixed(x, "", at, file);
}

/* <self-at>: part of a function's <self> costs, at one position (the
 * <self> element states the sum; the end of the document checks it) */
static int read_self_at(struct xr *x)
{
	cg_fid f;
	cg_cost c[CG_MAX_EVENTS];
	cg_position at;
	char *file;
	if (need_fn(x, "fn", &f) || get_costs(x, "costs", c) != 1)
		return x->rc ? x->rc : fail(x, "<self-at> has no costs");
	if (get_position(x, &at, &file))
		return x->rc;
	double ex;
	int has_exact = get_double(x, "exact", &ex);
	if (has_exact < 0) {
		free_string(file);
		return x->rc;
	}
	if (has_exact == 1 && !cg_profile_has_self_exact(x->p, x->part)) {
		free_string(file);
		return fail(x, "exact cost at a position in a part without exact=\"yes\"");
	}
	int rc = cg_pos_add_self_only(x->p, x->part, f, &at, c);
	/* the exact share goes with the entry just made (or added to) */
	if (rc == 0 && has_exact == 1)
		rc = cg_pos_set_self_exact(x->p, x->part, f, &at, ex);
	free_string(file);
	if (rc == CG_EFORMAT)
		return fail(x, "costs of function %u at one position sum past 2^63-1", f);
	return rc ? oom(x) : 0;
}

/* <call-at>: part of an <arc>, made at one call site */
static int read_call_at(struct xr *x)
{
	cg_fid caller, callee;
	uint64_t count;
	cg_cost c[CG_MAX_EVENTS] = { 0 };
	cg_position at;
	char *file;
	if (need_fn(x, "caller", &caller) || need_fn(x, "callee", &callee) ||
	    need_u64(x, "count", UINT64_MAX, &count) || get_costs(x, "inclusive", c) < 0)
		return x->rc;
	long idx = cg_profile_find_arc(x->p, x->part, caller, callee);
	if (idx < 0)
		return fail(x, "<call-at> of a call %u -> %u that has no <arc> before it", caller,
			    callee);
	if (get_position(x, &at, &file))
		return x->rc;
	int rc = cg_pos_add_site_only(x->p, x->part, (size_t)idx, &at, count, c);
	free_string(file);
	if (rc == CG_EFORMAT)
		return fail(x, "calls %u -> %u at one call site sum past 2^63-1", caller, callee);
	return rc ? oom(x) : 0;
}

/* <jump>: a Callgrind jump= (or, with executed=, jcnd=) line */
static int read_jump(struct xr *x)
{
	cg_jump j;
	memset(&j, 0, sizeof j);
	char *file = NULL, *tfile = NULL;
	int has_exec;
	if (need_fn(x, "fn", &j.from) || need_fn(x, "to", &j.to) ||
	    need_u64(x, "count", UINT64_MAX, &j.followed) ||
	    (has_exec = get_u64(x, "executed", UINT64_MAX, &j.executed)) < 0)
		return x->rc;
	j.conditional = has_exec == 1;
	if (j.conditional && j.followed > j.executed)
		return fail(x, "<jump> taken %" PRIu64 " times of %" PRIu64 " runs", j.followed,
			    j.executed);
	if (get_position(x, &j.at, &file))
		return x->rc;
	if (get_position_prefixed(x, "target-", &j.target, &tfile)) {
		free_string(file);
		return x->rc;
	}
	int rc = cg_jump_add(x->p, x->part, &j);
	free_string(file);
	free_string(tfile);
	if (rc == CG_EFORMAT)
		return fail(x, "counts of one jump of function %u sum past 2^64-1", j.from);
	return rc ? oom(x) : 0;
}

static int read_node(struct xr *x)
{
	uint64_t id, parent, calls = 0, redos = 0, recursive = 0, target = CG_NO_NODE;
	cg_fid f;
	cg_cost c[CG_MAX_EVENTS] = { 0 };
	size_t nn = cg_profile_node_count(x->p, x->part);
	if (need_u64(x, "id", UINT32_MAX - 1, &id) || need_u64(x, "parent", UINT32_MAX, &parent) ||
	    need_fn(x, "fn", &f) || get_u64(x, "calls", UINT64_MAX, &calls) < 0 ||
	    get_u64(x, "redos", UINT64_MAX, &redos) < 0 ||
	    get_u64(x, "recursive", UINT64_MAX, &recursive) < 0 ||
	    get_u64(x, "recursion-target", UINT32_MAX, &target) < 0 || get_costs(x, "self", c) < 0)
		return x->rc;
	if (id != (nn ? nn : 1))
		return fail(x, "node id %" PRIu64 " out of order (expected %zu)", id, nn ? nn : 1);
	if (parent >= id)
		return fail(x, "node %" PRIu64 ": parent %" PRIu64 " is not an earlier node", id,
			    parent);
	if (target != CG_NO_NODE && target >= id)
		return fail(x, "node %" PRIu64 ": recursion target %" PRIu64 " is not an earlier node",
			    id, target);
	cg_nid n;
	if (cg_profile_node_add(x->p, x->part, (cg_nid)parent, f, &n))
		return oom(x);
	cg_node *node = cg_profile_node(x->p, x->part, n);
	node->calls = calls;
	node->redos = redos;
	node->recursive = recursive;
	node->recursion_target = (cg_nid)target;
	memcpy(node->self, c, x->nev * sizeof *c);
	return 0;
}

/* The attributes docs/xml-schema.rng allows on each element (keep the two
 * in step).  Anything else is refused: a misspelled attribute
 * (inclusve="...") would otherwise drop its value without a word. */
static const struct {
	const char *element;
	const char *const *attrs;
} allowed_attrs[] = {
	{ "callgraph", (const char *const[]){ "version", "positions", NULL } },
	{ "meta", (const char *const[]){ "key", "key-hex", "value", "value-hex", NULL } },
	{ "run", (const char *const[]){ "samples", "overhead", "lost", "resyncs", "threads",
					"threads-cut", "flags", "ending", "ending-hex", NULL } },
	{ "gmon", (const char *const[]){ "records", "version", "dimension", "dimension-hex",
					 "dimension-abbrev", "dimension-abbrev-hex", "scale",
					 "total-time", "total-samples", NULL } },
	{ "event", (const char *const[]){ "name", "name-hex", "description", "description-hex",
					  "unit-seconds", NULL } },
	{ "function", (const char *const[]){ "id", "name", "name-hex", "object", "object-hex",
					     "file", "file-hex", "line", "flags", "addr", "end",
					     NULL } },
	{ "part", (const char *const[]){ "name", "name-hex", "exact", NULL } },
	{ "self", (const char *const[]){ "fn", "costs", "exact", NULL } },
	{ "total", (const char *const[]){ "fn", "inclusive", "calls", NULL } },
	{ "arc", (const char *const[]){ "caller", "callee", "count", "inclusive", "self", "line",
				       NULL } },
	{ "self-at", (const char *const[]){ "fn", "line", "addr", "file", "file-hex", "costs",
					    "exact",
					    NULL } },
	{ "call-at", (const char *const[]){ "caller", "callee", "line", "addr", "file", "file-hex",
					    "count", "inclusive", NULL } },
	{ "jump", (const char *const[]){ "fn", "to", "line", "addr", "file", "file-hex",
					 "target-line", "target-addr", "target-file",
					 "target-file-hex", "count", "executed", NULL } },
	{ "tree", (const char *const[]){ NULL } },
	{ "node", (const char *const[]){ "id", "parent", "fn", "calls", "redos", "recursive",
					 "recursion-target", "self", NULL } },
};

static int check_attributes(struct xr *x, const char *name)
{
	const char *const *attrs = NULL;
	for (size_t i = 0; i < sizeof allowed_attrs / sizeof allowed_attrs[0]; i++)
		if (strcmp(allowed_attrs[i].element, name) == 0)
			attrs = allowed_attrs[i].attrs;
	if (!attrs)
		return 0;   /* an unknown element is refused where it stands */
	for (int r = xmlTextReaderMoveToFirstAttribute(x->r); r == 1;
	     r = xmlTextReaderMoveToNextAttribute(x->r)) {
		if (xmlTextReaderIsNamespaceDecl(x->r) == 1)
			continue;
		const char *an = (const char *)xmlTextReaderConstName(x->r);
		int known = 0;
		/* the schema's attributes have no namespace: a prefixed name
		 * (xml:lang, foo:id) is not one of them */
		if (!xmlTextReaderConstNamespaceUri(x->r))
			for (const char *const *a = attrs; *a && !known; a++)
				known = strcmp(*a, an) == 0;
		if (!known) {
			char attr[64];
			snprintf(attr, sizeof attr, "%s", an ? an : "?");
			xmlTextReaderMoveToElement(x->r);
			return fail(x, "<%s> has an attribute the schema does not allow: %s", name, attr);
		}
	}
	xmlTextReaderMoveToElement(x->r);
	return 0;
}

static int element(struct xr *x, const char *name)
{
	if (check_attributes(x, name))
		return x->rc;
	switch (x->where) {
	case TOP:
		if (strcmp(name, "callgraph") != 0)
			return fail(x, "root element is <%s>, not <callgraph>", name);
		{
			const xmlChar *ns = xmlTextReaderConstNamespaceUri(x->r);
			if (!ns || strcmp((const char *)ns, CG_XML_NAMESPACE) != 0)
				return fail(x, "<callgraph> is not in namespace %s", CG_XML_NAMESPACE);
			xmlChar *v = xmlTextReaderGetAttribute(x->r, BAD_CAST "version");
			int ok = v && strcmp((char *)v, "1") == 0;
			xmlFree(v);
			if (!ok)
				return fail(x, "unsupported or missing version (want 1)");
			v = xmlTextReaderGetAttribute(x->r, BAD_CAST "positions");
			if (v) {
				const char *k = (const char *)v;
				unsigned kinds = strcmp(k, "line") == 0 ? CG_POS_LINE
					: strcmp(k, "instr") == 0 ? CG_POS_INSTR
					: strcmp(k, "instr line") == 0 ? CG_POS_LINE | CG_POS_INSTR : 0;
				xmlFree(v);
				if (!kinds)
					return fail(x, "attribute positions of <callgraph> must be "
						    "\"line\", \"instr\" or \"instr line\"");
				cg_profile_declare_position_kinds(x->p, kinds);
			}
		}
		x->where = IN_ROOT;
		return 0;
	case IN_ROOT:
		if (strcmp(name, "meta") == 0 && x->stage <= 0 && !x->seen_gmon)
			return read_meta(x);
		if (strcmp(name, "run") == 0 && x->stage <= 0 && !cg_profile_run_info(x->p) &&
		    !x->seen_gmon)
			return read_run(x);
		if (strcmp(name, "gmon") == 0 && x->stage <= 0)
			return read_gmon(x);
		if (strcmp(name, "event") == 0 && x->stage <= 1) {
			x->stage = 1;
			return read_event(x);
		}
		if (strcmp(name, "function") == 0 && x->stage <= 2) {
			x->stage = 2;
			return read_function(x);
		}
		if (strcmp(name, "part") == 0) {
			x->stage = 3;
			x->where = IN_PART;
			return start_part(x);
		}
		return fail(x, "unexpected <%s> in <callgraph>", name);
	case IN_PART:
		if (strcmp(name, "meta") == 0 && !x->part_data)
			return read_meta(x);
		x->part_data = 1;
		if (strcmp(name, "self") == 0)
			return read_self(x);
		if (strcmp(name, "total") == 0)
			return read_total(x);
		if (strcmp(name, "arc") == 0)
			return read_arc(x);
		if (strcmp(name, "self-at") == 0)
			return read_self_at(x);
		if (strcmp(name, "call-at") == 0)
			return read_call_at(x);
		if (strcmp(name, "jump") == 0)
			return read_jump(x);
		if (strcmp(name, "tree") == 0) {
			if (cg_profile_node_count(x->p, x->part))
				return fail(x, "second <tree> in a part");
			x->where = IN_TREE;
			return 0;
		}
		return fail(x, "unexpected <%s> in <part>", name);
	case IN_TREE:
		if (strcmp(name, "node") == 0)
			return read_node(x);
		return fail(x, "unexpected <%s> in <tree>", name);
	case DONE:
		break;
	}
	return fail(x, "unexpected <%s> after the end", name);
}

static int end_element(struct xr *x)
{
	switch (x->where) {
	case IN_TREE:
		x->where = IN_PART;
		break;
	case IN_PART:
		x->where = IN_ROOT;
		break;
	case IN_ROOT:
		if (x->nparts == 0)
			return fail(x, "<callgraph> has no <part>");
		x->where = DONE;
		break;
	default:
		break;
	}
	return 0;
}

static int run(struct xr *x)
{
	int r;
	while ((r = xmlTextReaderRead(x->r)) == 1) {
		/* libxml2's own allocations passed the limit (they are not
		 * refused where they happen: see xml_memory.c) */
		if (cg_budget_over())
			return oom(x);
		int type = xmlTextReaderNodeType(x->r);
		const char *name = (const char *)xmlTextReaderConstLocalName(x->r);
		if (type == XML_READER_TYPE_ELEMENT) {
			int empty = xmlTextReaderIsEmptyElement(x->r);
			if (element(x, name))
				return x->rc;
			/* leaves (meta, event, function, self, ...) have no
			 * end tag to track when they are written <x/> */
			int container = x->where == IN_ROOT ? strcmp(name, "callgraph") == 0
				: x->where == IN_PART ? strcmp(name, "part") == 0
				: x->where == IN_TREE ? strcmp(name, "tree") == 0 : 0;
			if (container && empty && end_element(x))
				return x->rc;
			if (!container && !empty) {
				/* a leaf written with an end tag: skip to it,
				 * refusing content */
				int depth = xmlTextReaderDepth(x->r);
				while ((r = xmlTextReaderRead(x->r)) == 1) {
					int t = xmlTextReaderNodeType(x->r);
					if (t == XML_READER_TYPE_END_ELEMENT && xmlTextReaderDepth(x->r) == depth)
						break;
					if (t == XML_READER_TYPE_ELEMENT || t == XML_READER_TYPE_TEXT ||
					    t == XML_READER_TYPE_CDATA)
						return fail(x, "<%s> must be empty", name);
				}
				if (r != 1)
					break;
			}
		} else if (type == XML_READER_TYPE_END_ELEMENT) {
			if (end_element(x))
				return x->rc;
		} else if (type == XML_READER_TYPE_TEXT || type == XML_READER_TYPE_CDATA) {
			return fail(x, "unexpected text");
		} else if (type == XML_READER_TYPE_DOCUMENT_TYPE) {
			/* the format has no DTD; refusing one also refuses
			 * entity definitions */
			return fail(x, "document type declarations are not allowed");
		}
	}
	if (r < 0 || x->parse_error[0]) {
		if (!x->rc)
			x->rc = cg_error_set(x->err, CG_EFORMAT, "%s:%d: %s", x->name,
					     x->parse_line ? x->parse_line
							   : xmlTextReaderGetParserLineNumber(x->r),
					     x->parse_error[0] ? x->parse_error : "malformed XML");
		return x->rc;
	}
	if (x->where != DONE)
		return fail(x, x->where == TOP ? "no <callgraph> element" : "truncated document");
	struct cg_hashmap names = { 0 };
	for (size_t i = 0; i < x->nlegacy_part; i++) {
		const struct legacy_part_meta *m = &x->legacy_part[i];
		if (strcmp(m->key, "rows") != 0 || m->part >= cg_profile_part_count(x->p))
			continue;
		int rc = 0;
		for (cg_fid f = (cg_fid)names.count; !rc && f < cg_profile_function_count(x->p); f++) {
			const char *nm = cg_profile_function(x->p, f)->name;
			rc = cg_hashmap_add(&names, cg_hash_bytes(CG_HASH_INIT, nm, strlen(nm)), f);
		}
		if (rc || (rc = legacy_rows(x, m->part, m->value, &names))) {
			cg_hashmap_release(&names);
			return oom(x);
		}
	}
	cg_hashmap_release(&names);
	for (size_t i = 0; i < x->nlegacy_part; i++) {
		const struct legacy_part_meta *m = &x->legacy_part[i];
		if (strcmp(m->key, "rows") == 0)
			continue;
		if (m->part < cg_profile_part_count(x->p) &&
		    !cg_profile_part_meta(x->p, m->part, m->key) &&
		    cg_profile_set_part_meta(x->p, m->part, m->key, m->value))
			return oom(x);
	}
	if (x->legacy_seen && !x->seen_gmon) {
		x->legacy_gmon.dimension = x->legacy_dimension[0] ? x->legacy_dimension : NULL;
		x->legacy_gmon.dimension_abbrev = x->legacy_abbrev[0] ? x->legacy_abbrev : NULL;
		if (cg_profile_set_gmon_info(x->p, &x->legacy_gmon))
			return oom(x);
	}
	return 0;
}

static int read_with(cg_profile **out, xmlTextReaderPtr r, const char *name, cg_error *err)
{
	*out = NULL;
	if (!r)
		return cg_error_set(err, CG_ENOMEM, "%s: cannot start the XML reader", name);
	struct xr x = { 0 };
	x.r = r;
	x.name = name;
	x.err = err;
	xmlTextReaderSetErrorHandler(r, on_error, &x);
	if (cg_profile_new(&x.p)) {
		xmlFreeTextReader(r);
		return cg_error_set(err, CG_ENOMEM, "%s: out of memory", name);
	}
	/* Some libxml2 errors (encodings, I/O) bypass the reader's handler
	 * and go to the thread's generic handler, which prints to stderr:
	 * route them into the message for the time of this read. */
	xmlGenericErrorFunc old_func = xmlGenericError;
	void *old_ctx = xmlGenericErrorContext;
	xmlSetGenericErrorFunc(&x, on_generic_error);
	int rc = run(&x);
	if (!rc)
		rc = cg_profile_check_positions(x.p, name, err);
	xmlFreeTextReader(r);
	for (size_t i = 0; i < x.nlegacy_part; i++) {
		free(x.legacy_part[i].key);
		free(x.legacy_part[i].value);
	}
	free(x.legacy_part);
	xmlSetGenericErrorFunc(old_ctx, old_func);
	if (rc) {
		cg_profile_free(x.p);
		return rc;
	}
	*out = x.p;
	return 0;
}

/* No network, no entity expansion beyond the predefined ones, no DTD
 * loading: an input file cannot make the reader fetch or blow up. */
#define XML_OPTIONS (XML_PARSE_NONET | XML_PARSE_NOCDATA)

int cg_read_xml(cg_profile **out, const char *path, cg_error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return cg_error_set(err, CG_EIO, "%s: %s", path, strerror(errno));
	fclose(f);
	return read_with(out, xmlReaderForFile(path, NULL, XML_OPTIONS), path, err);
}

int cg_read_xml_buffer(cg_profile **out, const void *data, size_t len, const char *name,
		       cg_error *err)
{
	if (len > INT32_MAX)
		return cg_error_set(err, CG_EFORMAT, "%s: too large", name);
	return read_with(out, xmlReaderForMemory(data, (int)len, name, NULL, XML_OPTIONS), name,
			 err);
}
