/*
 * write_xml.c — the lossless XML image of a profile (docs/xml-schema.rng),
 * written with libxml2's text writer.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "callgraph.h"
#include "jumps.h"
#include "positions.h"
#include "xml_common.h"

struct xw {
	xmlTextWriterPtr w;
	size_t nev;
	int failed;
	char *buf;       /* scratch for cost lists */
	size_t cap;
};

static void check(struct xw *x, int rc)
{
	if (rc < 0)
		x->failed = 1;
}

/* Strings XML 1.0 can carry as they are: valid UTF-8 without control
 * characters (tab, newline and carriage return included, since attribute
 * value normalisation would not keep them). */
static int xml_safe(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned c = *p;
		if (c < 0x20 || c == 0x7f)
			return 0;
		if (c < 0x80) {
			p++;
			continue;
		}
		int n = c >= 0xf0 && c < 0xf5 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 && c < 0xe0 ? 1 : -1;
		if (n < 0 || (c >= 0xe0 && c < 0xf0 && n != 2))
			return 0;
		uint32_t cp = c & (n == 1 ? 0x1f : n == 2 ? 0x0f : 0x07);
		for (int i = 1; i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (p[i] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
			return 0;
		p += n + 1;
	}
	return 1;
}

static void attr_string(struct xw *x, const char *name, const char *value)
{
	if (!value)
		return;
	if (xml_safe(value)) {
		check(x, xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST value));
		return;
	}
	char hexname[64];
	snprintf(hexname, sizeof hexname, "%s-hex", name);
	size_t n = strlen(value);
	char *hex = malloc(2 * n + 1);
	if (!hex) {
		x->failed = 1;
		return;
	}
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", (unsigned char)value[i]);
	hex[2 * n] = 0;
	check(x, xmlTextWriterWriteAttribute(x->w, BAD_CAST hexname, BAD_CAST hex));
	free(hex);
}

static void attr_u64(struct xw *x, const char *name, uint64_t v)
{
	char b[32];
	snprintf(b, sizeof b, "%" PRIu64, v);
	check(x, xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST b));
}

static void attr_hex(struct xw *x, const char *name, uint64_t v)
{
	char b[32];
	snprintf(b, sizeof b, "0x%" PRIx64, v);
	check(x, xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST b));
}

/* The fewest significant digits that read back to the same double. */
static void attr_double(struct xw *x, const char *name, double v)
{
	char b[40];
	if (isnan(v))
		snprintf(b, sizeof b, "NaN");
	else if (isinf(v))
		snprintf(b, sizeof b, "%sINF", v < 0 ? "-" : "");
	else
		for (int prec = 1; prec <= 17; prec++) {
			snprintf(b, sizeof b, "%.*g", prec, v);
			if (strtod(b, NULL) == v)
				break;
		}
	check(x, xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST b));
}

static void attr_costs(struct xw *x, const char *name, const cg_cost *c)
{
	if (x->nev == 0)
		return;
	size_t need = x->nev * 22 + 1;
	if (need > x->cap) {
		char *b = realloc(x->buf, need);
		if (!b) {
			x->failed = 1;
			return;
		}
		x->buf = b;
		x->cap = need;
	}
	size_t len = 0;
	for (size_t e = 0; e < x->nev; e++)
		len += (size_t)snprintf(x->buf + len, x->cap - len, "%s%" PRId64, e ? " " : "", c[e]);
	check(x, xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST x->buf));
}

static void start(struct xw *x, const char *name)
{
	check(x, xmlTextWriterStartElement(x->w, BAD_CAST name));
}

static void end(struct xw *x)
{
	check(x, xmlTextWriterEndElement(x->w));
}

static int nonzero(const cg_cost *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (c[i])
			return 1;
	return 0;
}

static void write_function(struct xw *x, const cg_function *fn, size_t id)
{
	start(x, "function");
	attr_u64(x, "id", id);
	attr_string(x, "name", fn->name);
	attr_string(x, "object", fn->object);
	attr_string(x, "file", fn->file);
	if (fn->line)
		attr_u64(x, "line", fn->line);
	if (fn->flags) {
		char b[256];
		size_t len = 0;
		for (unsigned bit = 0; bit < 32; bit++) {
			if (!(fn->flags & (1u << bit)))
				continue;
			const char *name = NULL;
			for (size_t i = 0; i < XML_NFLAGS; i++)
				if (xml_flags[i].bit == 1u << bit)
					name = xml_flags[i].name;
			if (name)
				len += (size_t)snprintf(b + len, sizeof b - len, "%s%s", len ? " " : "",
							name);
			else
				len += (size_t)snprintf(b + len, sizeof b - len, "%sbit%u", len ? " " : "",
							bit);
		}
		check(x, xmlTextWriterWriteAttribute(x->w, BAD_CAST "flags", BAD_CAST b));
	}
	if (fn->flags & CG_FN_HAS_ADDR || fn->addr)
		attr_hex(x, "addr", fn->addr);
	if (fn->end)
		attr_hex(x, "end", fn->end);
	end(x);
}

/* A position's attributes under the given names: line/addr/file for a
 * position, target-line/... for a jump's target. */
static void write_position_as(struct xw *x, const cg_position *at, const char *line_attr,
			      const char *addr_attr, const char *file_attr)
{
	if (at->line)
		attr_u64(x, line_attr, at->line);
	if (at->addr)
		attr_hex(x, addr_attr, at->addr);
	attr_string(x, file_attr, at->file);
}

static void write_position(struct xw *x, const cg_position *at)
{
	write_position_as(x, at, "line", "addr", "file");
}

/* The gmon reader's facts: the gprof engine needs them, exactly. */
static void write_gmon(struct xw *x, const cg_gmon_info *gi)
{
	char records[32] = "";
	size_t n = 0;
	if (gi->has_histogram)
		n += (size_t)snprintf(records + n, sizeof records - n, "%shistogram", n ? " " : "");
	if (gi->has_arcs)
		n += (size_t)snprintf(records + n, sizeof records - n, "%sarcs", n ? " " : "");
	if (gi->has_bb)
		snprintf(records + n, sizeof records - n, "%sbb", n ? " " : "");
	start(x, "gmon");
	attr_string(x, "records", records);
	attr_u64(x, "version", (uint64_t)(gi->version < 0 ? 0 : gi->version));
	attr_string(x, "dimension", gi->dimension);
	attr_string(x, "dimension-abbrev", gi->dimension_abbrev);
	attr_double(x, "scale", gi->scale);
	attr_double(x, "total-time", gi->total_time);
	attr_u64(x, "total-samples", gi->total_samples);
	end(x);
}

static void write_part(struct xw *x, const cg_profile *p, unsigned part)
{
	size_t nf = cg_profile_function_count(p);
	int exact = cg_profile_has_self_exact(p, part);
	start(x, "part");
	const char *name = cg_profile_part_name(p, part);
	attr_string(x, "name", name ? name : "");
	if (exact)
		check(x, xmlTextWriterWriteAttribute(x->w, BAD_CAST "exact", BAD_CAST "yes"));
	for (size_t i = 0; i < cg_profile_part_meta_count(p, part); i++) {
		const char *k, *v;
		cg_profile_part_meta_at(p, part, i, &k, &v);
		start(x, "meta");
		attr_string(x, "key", k);
		attr_string(x, "value", v);
		end(x);
	}
	for (size_t f = 0; f < nf && x->nev; f++) {
		const cg_cost *s = cg_profile_self(p, part, (cg_fid)f);
		double ex = exact ? cg_profile_self_exact(p, part, (cg_fid)f) : 0;
		if (!nonzero(s, x->nev) && !(exact && (ex != 0 || signbit(ex))))
			continue;
		start(x, "self");
		attr_u64(x, "fn", f);
		attr_costs(x, "costs", s);
		if (exact)
			attr_double(x, "exact", ex);
		end(x);
	}
	/* self costs per position: they add up to the <self> costs above;
	 * in the order the input gave them (the Callgrind writer orders
	 * functions by it) */
	for (size_t i = 0; i < cg_pos_self_count(p, part) && x->nev; i++) {
		cg_fid f;
		cg_position at;
		const cg_cost *c;
		cg_pos_self_entry(p, part, i, &f, &at, &c);
		double ex = cg_pos_self_entry_exact(p, part, i);
		start(x, "self-at");
		attr_u64(x, "fn", f);
		write_position(x, &at);
		attr_costs(x, "costs", c);
		if (!isnan(ex))
			attr_double(x, "exact", ex);
		end(x);
	}
	for (size_t f = 0; f < nf; f++) {
		const cg_cost *in = cg_profile_inclusive(p, part, (cg_fid)f);
		uint64_t calls = cg_profile_calls(p, part, (cg_fid)f);
		if (!(in && x->nev) && calls == UINT64_MAX)
			continue;
		start(x, "total");
		attr_u64(x, "fn", f);
		if (in)
			attr_costs(x, "inclusive", in);
		if (calls != UINT64_MAX)
			attr_u64(x, "calls", calls);
		end(x);
	}
	for (size_t i = 0; i < cg_profile_arc_count(p, part); i++) {
		const cg_arc *a = cg_profile_arc(p, part, i);
		start(x, "arc");
		attr_u64(x, "caller", a->caller);
		attr_u64(x, "callee", a->callee);
		attr_u64(x, "count", a->count);
		if (a->inclusive)
			attr_costs(x, "inclusive", a->inclusive);
		if (a->self)
			attr_costs(x, "self", a->self);
		if (a->line)
			attr_u64(x, "line", a->line);
		end(x);
	}
	/* calls per call site: they add up to the <arc> above */
	for (size_t i = 0; i < cg_profile_arc_count(p, part); i++) {
		const cg_arc *a = cg_profile_arc(p, part, i);
		size_t cursor = 0;
		cg_position site;
		uint64_t count;
		const cg_cost *c;
		while (cg_profile_next_arc_site(p, part, i, &cursor, &site, &count, &c)) {
			start(x, "call-at");
			attr_u64(x, "caller", a->caller);
			attr_u64(x, "callee", a->callee);
			write_position(x, &site);
			attr_u64(x, "count", count);
			if (a->inclusive)
				attr_costs(x, "inclusive", c);
			end(x);
		}
	}
	/* Callgrind's jump lines, in the order they came */
	for (size_t i = 0; i < cg_jump_count(p, part); i++) {
		const cg_jump *j = cg_jump_at(p, part, i);
		start(x, "jump");
		attr_u64(x, "fn", j->from);
		attr_u64(x, "to", j->to);
		write_position(x, &j->at);
		write_position_as(x, &j->target, "target-line", "target-addr", "target-file");
		attr_u64(x, "count", j->followed);
		if (j->conditional)
			attr_u64(x, "executed", j->executed);
		end(x);
	}
	size_t nn = cg_profile_node_count(p, part);
	if (nn > 1) {
		start(x, "tree");
		for (size_t n = 1; n < nn; n++) {
			const cg_node *node = cg_profile_node(p, part, (cg_nid)n);
			start(x, "node");
			attr_u64(x, "id", n);
			attr_u64(x, "parent", node->parent);
			attr_u64(x, "fn", node->func);
			if (node->calls)
				attr_u64(x, "calls", node->calls);
			if (node->redos)
				attr_u64(x, "redos", node->redos);
			if (node->recursive)
				attr_u64(x, "recursive", node->recursive);
			if (node->recursion_target != CG_NO_NODE)
				attr_u64(x, "recursion-target", node->recursion_target);
			if (nonzero(node->self, x->nev))
				attr_costs(x, "self", node->self);
			end(x);
		}
		end(x);
	}
	end(x);
}

/* The collector's report on its run: <run samples=... flags="oom killed"/>. */
static void write_run(struct xw *x, const cg_run_info *r)
{
	if (!r)
		return;
	start(x, "run");
	attr_u64(x, "samples", r->samples);
	attr_u64(x, "overhead", r->overhead);
	attr_u64(x, "lost", r->lost);
	attr_u64(x, "resyncs", r->resyncs);
	attr_u64(x, "threads", r->threads);
	attr_u64(x, "threads-cut", r->threads_cut);
	char flags[64] = "";
	static const struct { unsigned bit; const char *word; } names[] = {
		{ CG_RUN_OOM, "oom" }, { CG_RUN_OVERFLOW, "overflow" },
		{ CG_RUN_KILLED, "killed" }, { CG_RUN_PARTIAL, "partial" },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (r->flags & names[i].bit)
			snprintf(flags + strlen(flags), sizeof flags - strlen(flags), "%s%s",
				 flags[0] ? " " : "", names[i].word);
	if (flags[0])
		attr_string(x, "flags", flags);
	if (r->ending[0])
		attr_string(x, "ending", r->ending);
	end(x);
}

int cg_write_xml(const cg_profile *p, FILE *out, cg_error *err)
{
	xmlOutputBufferPtr ob = xmlOutputBufferCreateFile(out, NULL);
	if (!ob)
		return cg_error_set(err, CG_ENOMEM, "xml: out of memory");
	struct xw x = { 0 };
	x.w = xmlNewTextWriter(ob);
	if (!x.w) {
		xmlOutputBufferClose(ob);
		return cg_error_set(err, CG_ENOMEM, "xml: out of memory");
	}
	x.nev = cg_profile_event_count(p);
	check(&x, xmlTextWriterSetIndent(x.w, 1));
	check(&x, xmlTextWriterSetIndentString(x.w, BAD_CAST " "));
	check(&x, xmlTextWriterStartDocument(x.w, "1.0", "UTF-8", NULL));
	check(&x, xmlTextWriterStartElementNS(x.w, NULL, BAD_CAST "callgraph",
					      BAD_CAST CG_XML_NAMESPACE));
	check(&x, xmlTextWriterWriteAttribute(x.w, BAD_CAST "version", BAD_CAST "1"));
	unsigned kinds = cg_profile_position_kinds(p);
	if (kinds)
		check(&x, xmlTextWriterWriteAttribute(x.w, BAD_CAST "positions",
						      BAD_CAST(kinds == CG_POS_LINE ? "line"
							       : kinds == CG_POS_INSTR ? "instr"
							       : "instr line")));
	for (size_t i = 0; i < cg_profile_meta_count(p); i++) {
		const char *k, *v;
		cg_profile_meta_at(p, i, &k, &v);
		start(&x, "meta");
		attr_string(&x, "key", k);
		attr_string(&x, "value", v ? v : "");
		end(&x);
	}
	write_run(&x, cg_profile_run_info(p));
	const cg_gmon_info *gi = cg_profile_gmon_info(p);
	if (gi)
		write_gmon(&x, gi);
	for (size_t e = 0; e < x.nev; e++) {
		const cg_event *ev = cg_profile_event(p, e);
		start(&x, "event");
		attr_string(&x, "name", ev->name);
		attr_string(&x, "description", ev->description);
		attr_double(&x, "unit-seconds", ev->unit_seconds);
		end(&x);
	}
	for (size_t f = 0; f < cg_profile_function_count(p); f++)
		write_function(&x, cg_profile_function(p, (cg_fid)f), f);
	for (unsigned part = 0; part < cg_profile_part_count(p); part++)
		write_part(&x, p, part);
	check(&x, xmlTextWriterEndDocument(x.w));
	xmlFreeTextWriter(x.w);   /* flushes and closes the output buffer */
	free(x.buf);
	if (x.failed || ferror(out))
		return cg_error_set(err, CG_EIO, "xml: write error");
	return 0;
}
