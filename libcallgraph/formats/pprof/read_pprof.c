/*
 * read_pprof.c — pprof's profile.proto (gzip-compressed or raw) into the
 * model.  docs/pprof.md has the mapping; in short:
 *
 *  - every sample type becomes an event (name = type, unit from the unit
 *    and, for counts, from period_type/period), except a sample type
 *    "calls" of unit "count" next to others: those values are call counts
 *    of the call-tree node (what our writer puts there);
 *  - every sample's stack becomes a path of the call tree, the leaf's node
 *    getting the sample's values; a location with several lines (inlined
 *    functions) gives one frame per line, the last line outermost;
 *  - a label "thread", "process", "pid" or "tid" selects the part;
 *  - functions are identified by (name, mapping's file, source file).
 *
 * The top-level message is walked a few times (strings, then tables, then
 * locations, then samples), so the order of fields in the file does not
 * matter, as protobuf requires.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "callgraph.h"
#include "callgraph/sys/format.h"
#include "hashmap.h"
#include "pb.h"
#include "pprof_internal.h"

#define PPROF_MAX_INFLATED CG_PPROF_MAX_BYTES
#define PPROF_VALUE_LIMIT ((uint64_t)1 << 62)

struct str {
	const uint8_t *p;
	size_t len;
};

struct mapping {
	uint64_t filename;
};

struct function {
	uint64_t name, system_name, filename;
	int64_t start_line;
};

struct location {
	uint32_t mapping;          /* index + 1, 0 none */
	uint64_t address;
	size_t first, count;       /* frames[first..first+count), leaf first */
};

struct reader {
	const char *name;
	const char *where;         /* "" or " of the decompressed data" */
	cg_profile *p;
	cg_error *err;
	struct pb_reader top;

	struct str *strs;
	size_t nstrs;
	struct mapping *maps;
	size_t nmaps;
	struct cg_hashmap map_ids, fn_ids, loc_ids;  /* pprof id -> index */
	struct function *fns;
	size_t nfns;
	struct location *locs;
	size_t nlocs;
	cg_fid *frames;
	size_t nframes, frames_cap;
	int64_t *frame_lines;          /* Line.line of each frame while locations are read */
	size_t nframe_lines, frame_lines_cap;

	/* sample types */
	size_t ntypes;
	int event_of[CG_MAX_EVENTS + 1];   /* per sample type: event, or -1 calls */
	uint64_t type_name[CG_MAX_EVENTS + 1], type_unit[CG_MAX_EVENTS + 1];
	uint64_t magnitude[CG_MAX_EVENTS + 1];   /* sum of |values| per sample type */
	uint64_t period_type_unit;
	int64_t period;

	size_t strs_cap, maps_cap, fns_cap, locs_cap;
	/* the sample being read */
	uint64_t *sample_locs;
	size_t nsample_locs, sample_locs_cap;
	int64_t sample_values[CG_MAX_EVENTS + 1];
	size_t nsample_values;
	int values_overflow;
	const char *sample_part;           /* interned name, NULL unlabelled */

	struct cg_hashmap parts;           /* interned part name -> part */
	int part0_taken;
	cg_fid unknown_fid;
	int have_unknown;
};

static int fail(struct reader *r, size_t offset, const char *what)
{
	return cg_error_set(r->err, CG_EFORMAT, "%s: byte offset %zu%s: %s", r->name, offset,
			    r->where, what);
}

static int oom(struct reader *r)
{
	return cg_error_set(r->err, CG_ENOMEM, "%s: out of memory", r->name);
}

/* The string at index i, interned; NULL for "" (when empty_is_null). */
static int get_string(struct reader *r, uint64_t i, size_t offset, const char **out,
		      int empty_is_null)
{
	if (i >= r->nstrs)
		return fail(r, offset, "string index out of range");
	if (empty_is_null && r->strs[i].len == 0) {
		*out = NULL;
		return 0;
	}
	*out = cg_profile_intern_len(r->p, (const char *)r->strs[i].p, r->strs[i].len);
	return *out ? 0 : oom(r);
}

static int str_equals(const struct reader *r, uint64_t i, const char *s)
{
	size_t n = strlen(s);
	return i < r->nstrs && r->strs[i].len == n && memcmp(r->strs[i].p, s, n) == 0;
}

#define GROW(r, arr, n, cap)                                                   \
	do {                                                                   \
		if ((n) == (cap)) {                                            \
			size_t c_ = (cap) ? (cap) * 2 : 64;                    \
			void *a_ = realloc((arr), c_ * sizeof *(arr));         \
			if (!a_)                                               \
				return oom(r);                                 \
			(arr) = a_;                                            \
			(cap) = c_;                                            \
		}                                                              \
	} while (0)

/* Calls fn(r, &field) for every top-level field numbered `number`. */
static int each_field(struct reader *r, unsigned number,
		      int (*fn)(struct reader *, const struct pb_field *))
{
	struct pb_reader it = r->top;
	struct pb_field f;
	const char *why = NULL;
	int k, rc;
	while ((k = pb_next(&it, &f, &why)) > 0) {
		if (f.number != number)
			continue;
		if ((rc = fn(r, &f)))
			return rc;
	}
	return k < 0 ? fail(r, f.offset, why) : 0;
}

static int expect_len(struct reader *r, const struct pb_field *f, const char *what)
{
	if (f->wire == PB_LEN)
		return 0;
	char msg[96];
	snprintf(msg, sizeof msg, "%s is not a length-delimited field", what);
	return fail(r, f->offset, msg);
}

static int take_string(struct reader *r, const struct pb_field *f)
{
	if (expect_len(r, f, "a string"))
		return CG_EFORMAT;
	GROW(r, r->strs, r->nstrs, r->strs_cap);
	r->strs[r->nstrs].p = f->data;
	r->strs[r->nstrs].len = f->len;
	r->nstrs++;
	return 0;
}

/* ---- small message walkers ---------------------------------------------- */

/* Walks a nested message, calling field(r, ctx, f) per field. */
static int walk(struct reader *r, const struct pb_field *outer, void *ctx,
		int (*field)(struct reader *, void *, const struct pb_field *))
{
	struct pb_reader sub;
	pb_sub(&sub, &r->top, outer);
	struct pb_field f;
	const char *why = NULL;
	int k, rc;
	while ((k = pb_next(&sub, &f, &why)) > 0)
		if ((rc = field(r, ctx, &f)))
			return rc;
	return k < 0 ? fail(r, f.offset, why) : 0;
}

static int want_varint(struct reader *r, const struct pb_field *f)
{
	return f->wire == PB_VARINT ? 0 : fail(r, f->offset, "integer field of the wrong wire type");
}

/* ValueType: type (1), unit (2) */
struct value_type { uint64_t type, unit; };

static int value_type_field(struct reader *r, void *ctx, const struct pb_field *f)
{
	struct value_type *vt = ctx;
	if (f->number == 1 || f->number == 2) {
		if (want_varint(r, f))
			return CG_EFORMAT;
		if (f->value >= r->nstrs)
			return fail(r, f->offset, "string index out of range");
		*(f->number == 1 ? &vt->type : &vt->unit) = f->value;
	}
	return 0;
}

static int take_sample_type(struct reader *r, const struct pb_field *f)
{
	if (expect_len(r, f, "a sample type"))
		return CG_EFORMAT;
	struct value_type vt = { 0, 0 };
	int rc = walk(r, f, &vt, value_type_field);
	if (rc)
		return rc;
	if (r->ntypes == CG_MAX_EVENTS + 1)
		return fail(r, f->offset, "more sample types than the model's 32 events");
	r->type_name[r->ntypes] = vt.type;
	r->type_unit[r->ntypes] = vt.unit;
	r->ntypes++;
	return 0;
}

static int take_period_type(struct reader *r, const struct pb_field *f)
{
	if (expect_len(r, f, "the period type"))
		return CG_EFORMAT;
	struct value_type vt = { 0, 0 };
	int rc = walk(r, f, &vt, value_type_field);
	r->period_type_unit = vt.unit;
	return rc;
}

static int take_period(struct reader *r, const struct pb_field *f)
{
	if (want_varint(r, f))
		return CG_EFORMAT;
	r->period = (int64_t)f->value;
	return 0;
}

/* Mapping: id (1), filename (5) */
struct mapping_ctx { uint64_t id; struct mapping m; };

static int mapping_field(struct reader *r, void *ctx, const struct pb_field *f)
{
	struct mapping_ctx *c = ctx;
	if (f->number == 1 || f->number == 5) {
		if (want_varint(r, f))
			return CG_EFORMAT;
		if (f->number == 1)
			c->id = f->value;
		else if (f->value >= r->nstrs)
			return fail(r, f->offset, "string index out of range");
		else
			c->m.filename = f->value;
	}
	return 0;
}

static int take_mapping(struct reader *r, const struct pb_field *f)
{
	if (expect_len(r, f, "a mapping"))
		return CG_EFORMAT;
	struct mapping_ctx c = { 0, { 0 } };
	int rc = walk(r, f, &c, mapping_field);
	if (rc)
		return rc;
	GROW(r, r->maps, r->nmaps, r->maps_cap);
	r->maps[r->nmaps] = c.m;
	if (c.id >= UINT64_MAX || r->nmaps >= UINT32_MAX - 1 ||
	    cg_hashmap_put(&r->map_ids, c.id, (uint32_t)r->nmaps))
		return oom(r);
	r->nmaps++;
	return 0;
}

/* Function: id (1), name (2), system_name (3), filename (4), start_line (5) */
struct function_ctx { uint64_t id; struct function fn; };

static int function_field(struct reader *r, void *ctx, const struct pb_field *f)
{
	struct function_ctx *c = ctx;
	if (f->number < 1 || f->number > 5)
		return 0;
	if (want_varint(r, f))
		return CG_EFORMAT;
	if (f->number >= 2 && f->number <= 4 && f->value >= r->nstrs)
		return fail(r, f->offset, "string index out of range");
	switch (f->number) {
	case 1: c->id = f->value; break;
	case 2: c->fn.name = f->value; break;
	case 3: c->fn.system_name = f->value; break;
	case 4: c->fn.filename = f->value; break;
	case 5: c->fn.start_line = (int64_t)f->value; break;
	}
	return 0;
}

static int take_function(struct reader *r, const struct pb_field *f)
{
	if (expect_len(r, f, "a function"))
		return CG_EFORMAT;
	struct function_ctx c = { 0, { 0, 0, 0, 0 } };
	int rc = walk(r, f, &c, function_field);
	if (rc)
		return rc;
	GROW(r, r->fns, r->nfns, r->fns_cap);
	r->fns[r->nfns] = c.fn;
	if (r->nfns >= UINT32_MAX - 1 || cg_hashmap_put(&r->fn_ids, c.id, (uint32_t)r->nfns))
		return oom(r);
	r->nfns++;
	return 0;
}

/* The function of the model for pprof function fi seen through mapping mi
 * (index + 1, 0 none). */
static int model_function(struct reader *r, size_t fi, uint32_t mi, int64_t line, size_t offset,
			  cg_fid *out)
{
	const struct function *fn = &r->fns[fi];
	const char *name, *file, *object = NULL;
	uint64_t name_index = r->strs[fn->name].len ? fn->name : fn->system_name;
	int rc = get_string(r, name_index, offset, &name, 1);
	if (!rc)
		rc = get_string(r, fn->filename, offset, &file, 1);
	if (!rc && mi)
		rc = get_string(r, r->maps[mi - 1].filename, offset, &object, 1);
	if (rc)
		return rc;
	if (cg_profile_intern_function(r->p, name ? name : "[unknown]", object, file, out))
		return oom(r);
	cg_function *cf = cg_profile_function(r->p, *out);
	/* the model has no positions inside a function yet: its line is the
	 * start line, or else the first line of it a location names, so
	 * that line-based tools (callgrind_annotate) have one */
	if (fn->start_line > 0 && fn->start_line <= UINT32_MAX)
		line = fn->start_line;
	if (!cf->line && line > 0 && line <= UINT32_MAX)
		cf->line = (uint32_t)line;
	return 0;
}

/* Location: id (1), mapping_id (2), address (3), line (4: function_id 1, line 2) */
struct location_ctx { uint64_t id, mapping_id, address; struct location loc; };

struct line_ctx { uint64_t function_id; int64_t line; };

static int line_field(struct reader *r, void *ctx, const struct pb_field *f)
{
	struct line_ctx *c = ctx;
	if (f->number == 1 || f->number == 2) {
		if (want_varint(r, f))
			return CG_EFORMAT;
		if (f->number == 1)
			c->function_id = f->value;
		else
			c->line = (int64_t)f->value;
	}
	return 0;
}

static int location_field(struct reader *r, void *ctx, const struct pb_field *f)
{
	struct location_ctx *c = ctx;
	switch (f->number) {
	case 1: case 2: case 3:
		if (want_varint(r, f))
			return CG_EFORMAT;
		*(f->number == 1 ? &c->id : f->number == 2 ? &c->mapping_id : &c->address) = f->value;
		return 0;
	case 4: {
		if (expect_len(r, f, "a line"))
			return CG_EFORMAT;
		struct line_ctx line = { 0, 0 };
		int rc = walk(r, f, &line, line_field);
		if (rc)
			return rc;
		uint32_t fi;
		if (!cg_hashmap_get(&r->fn_ids, line.function_id, &fi))
			return fail(r, f->offset, "line names a function id that no function has");
		/* the frame is resolved once the mapping is known: keep the
		 * pprof function index for now */
		GROW(r, r->frames, r->nframes, r->frames_cap);
		GROW(r, r->frame_lines, r->nframe_lines, r->frame_lines_cap);
		r->frames[r->nframes++] = fi;
		r->frame_lines[r->nframe_lines++] = line.line;
		c->loc.count++;
		return 0;
	}
	default:
		return 0;
	}
}

static int take_location(struct reader *r, const struct pb_field *f)
{
	if (expect_len(r, f, "a location"))
		return CG_EFORMAT;
	struct location_ctx c = { 0 };
	c.loc.first = r->nframes;
	int rc = walk(r, f, &c, location_field);
	if (rc)
		return rc;
	if (c.mapping_id) {
		uint32_t mi;
		if (!cg_hashmap_get(&r->map_ids, c.mapping_id, &mi))
			return fail(r, f->offset, "location names a mapping id that no mapping has");
		c.loc.mapping = mi + 1;
	}
	for (size_t i = c.loc.first; i < c.loc.first + c.loc.count; i++)
		if ((rc = model_function(r, r->frames[i], c.loc.mapping, r->frame_lines[i], f->offset,
					 &r->frames[i])))
			return rc;
	if (!c.loc.count) {
		/* not symbolized: the address stands for the function */
		char name[32];
		snprintf(name, sizeof name, "0x%" PRIx64, c.address);
		const char *object = NULL;
		if (c.loc.mapping &&
		    (rc = get_string(r, r->maps[c.loc.mapping - 1].filename, f->offset, &object, 1)))
			return rc;
		GROW(r, r->frames, r->nframes, r->frames_cap);
		GROW(r, r->frame_lines, r->nframe_lines, r->frame_lines_cap);
		r->frame_lines[r->nframe_lines++] = 0;
		if (cg_profile_intern_function(r->p, name, object, NULL, &r->frames[r->nframes]))
			return oom(r);
		r->nframes++;
		c.loc.count = 1;
	}
	c.loc.address = c.address;
	GROW(r, r->locs, r->nlocs, r->locs_cap);
	r->locs[r->nlocs] = c.loc;
	if (r->nlocs >= UINT32_MAX - 1 || cg_hashmap_put(&r->loc_ids, c.id, (uint32_t)r->nlocs))
		return oom(r);
	r->nlocs++;
	return 0;
}

/* ---- samples ---------------------------------------------------------------- */

/* Label: key (1), str (2), num (3) */
struct label_ctx { uint64_t key, str; int64_t num; int has_num; };

static int label_field(struct reader *r, void *ctx, const struct pb_field *f)
{
	struct label_ctx *c = ctx;
	if (f->number < 1 || f->number > 3)
		return 0;
	if (want_varint(r, f))
		return CG_EFORMAT;
	if (f->number < 3 && f->value >= r->nstrs)
		return fail(r, f->offset, "string index out of range");
	if (f->number == 1)
		c->key = f->value;
	else if (f->number == 2)
		c->str = f->value;
	else {
		c->num = (int64_t)f->value;
		c->has_num = 1;
	}
	return 0;
}

/* The labels that name a part, in the order they are preferred. */
static int part_key_rank(const struct reader *r, uint64_t key)
{
	static const char *const keys[] = { "thread", "process", "pid", "tid" };
	for (int i = 0; i < 4; i++)
		if (str_equals(r, key, keys[i]))
			return i;
	return -1;
}

static int sample_field(struct reader *r, void *ctx, const struct pb_field *f)
{
	int *best_rank = ctx;
	if (f->number == 1 || f->number == 2) {
		/* packed (LEN) or one value per field (VARINT): both are valid */
		struct pb_reader vals = { f->data, f->data + f->len, r->top.base };
		uint64_t v = f->value;
		int packed = f->wire == PB_LEN;
		if (!packed && want_varint(r, f))
			return CG_EFORMAT;
		for (;;) {
			if (packed) {
				if (vals.p >= vals.end)
					break;
				if (pb_read_varint(&vals.p, vals.end, &v))
					return fail(r, (size_t)(vals.p - r->top.base), "truncated packed varint");
			}
			if (f->number == 1) {
				GROW(r, r->sample_locs, r->nsample_locs, r->sample_locs_cap);
				r->sample_locs[r->nsample_locs++] = v;
			} else if (r->nsample_values < CG_MAX_EVENTS + 1) {
				r->sample_values[r->nsample_values++] = (int64_t)v;
			} else {
				r->values_overflow = 1;
			}
			if (!packed)
				break;
		}
		return 0;
	}
	if (f->number == 3) {
		if (expect_len(r, f, "a label"))
			return CG_EFORMAT;
		struct label_ctx c = { 0 };
		int rc = walk(r, f, &c, label_field);
		if (rc)
			return rc;
		int rank = part_key_rank(r, c.key);
		if (rank < 0 || (*best_rank >= 0 && rank >= *best_rank))
			return 0;
		*best_rank = rank;
		char name[512];
		if (rank == 0 && c.str && !c.has_num)
			snprintf(name, sizeof name, "%.*s", (int)r->strs[c.str].len,
				 (const char *)r->strs[c.str].p);
		else if (c.str)
			snprintf(name, sizeof name, "%.*s %.*s", (int)r->strs[c.key].len,
				 (const char *)r->strs[c.key].p, (int)r->strs[c.str].len,
				 (const char *)r->strs[c.str].p);
		else
			snprintf(name, sizeof name, "%.*s %" PRId64, (int)r->strs[c.key].len,
				 (const char *)r->strs[c.key].p, c.num);
		if (!(r->sample_part = cg_profile_intern(r->p, name)))
			return oom(r);
	}
	return 0;
}

static int part_of(struct reader *r, const char *name, unsigned *out)
{
	uint32_t part;
	uint64_t key = (uint64_t)(uintptr_t)name;
	if (cg_hashmap_get(&r->parts, key, &part)) {
		*out = part;
		return 0;
	}
	if (!r->part0_taken) {
		part = 0;
		r->part0_taken = 1;
		if (name && cg_profile_set_part_name(r->p, 0, name))
			return oom(r);
	} else {
		unsigned np;
		if (cg_profile_add_part(r->p, name ? name : "unlabelled", &np))
			return oom(r);
		part = np;
	}
	if (cg_hashmap_put(&r->parts, key, part))
		return oom(r);
	*out = part;
	return 0;
}

static int take_sample(struct reader *r, const struct pb_field *f)
{
	if (expect_len(r, f, "a sample"))
		return CG_EFORMAT;
	r->nsample_locs = 0;
	r->nsample_values = 0;
	r->values_overflow = 0;
	r->sample_part = NULL;
	int best_rank = -1;
	int rc = walk(r, f, &best_rank, sample_field);
	if (rc)
		return rc;
	if (r->values_overflow || r->nsample_values != r->ntypes) {
		char msg[128];
		snprintf(msg, sizeof msg, "sample has %s%zu values for %zu sample types",
			 r->values_overflow ? "more than " : "", r->nsample_values, r->ntypes);
		return fail(r, f->offset, msg);
	}
	unsigned part = 0;
	if ((rc = part_of(r, r->sample_part, &part)))
		return rc;
	cg_nid node = 0;
	if (!r->nsample_locs) {
		/* pprof counts stackless samples in its totals: so do we */
		if (!r->have_unknown) {
			if (cg_profile_intern_function(r->p, "[no stack]", NULL, NULL, &r->unknown_fid))
				return oom(r);
			cg_profile_function(r->p, r->unknown_fid)->flags |= CG_FN_SYNTHETIC;
			r->have_unknown = 1;
		}
		if (cg_profile_node_child(r->p, part, 0, r->unknown_fid, &node))
			return oom(r);
	}
	/* the stack is leaf first: the tree is built from the outermost frame */
	for (size_t i = r->nsample_locs; i-- > 0;) {
		uint32_t li;
		if (!cg_hashmap_get(&r->loc_ids, r->sample_locs[i], &li))
			return fail(r, f->offset, "sample names a location id that no location has");
		const struct location *loc = &r->locs[li];
		for (size_t k = loc->first + loc->count; k-- > loc->first;)
			if (cg_profile_node_child(r->p, part, node, r->frames[k], &node))
				return oom(r);
	}
	/* every later sum (inclusive costs, totals) stays far from int64_t
	 * overflow when each sample type's values do */
	for (size_t t = 0; t < r->ntypes; t++) {
		int64_t v = r->sample_values[t];
		uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
		if (mag > PPROF_VALUE_LIMIT - r->magnitude[t])
			return fail(r, f->offset, "the values of a sample type add up to more than 2^62");
		r->magnitude[t] += mag;
	}
	cg_node *n = cg_profile_node(r->p, part, node);
	for (size_t t = 0; t < r->ntypes; t++) {
		if (r->event_of[t] >= 0)
			n->self[r->event_of[t]] += r->sample_values[t];
		else
			n->calls += (uint64_t)r->sample_values[t];
	}
	return 0;
}

/* ---- events ------------------------------------------------------------------- */

static int declare_events(struct reader *r)
{
	int has_calls = -1;
	for (size_t t = 0; t < r->ntypes; t++)
		if (str_equals(r, r->type_name[t], "calls") && str_equals(r, r->type_unit[t], "count"))
			has_calls = (int)t;
	if (r->ntypes < 2)
		has_calls = -1;
	if (r->ntypes - (has_calls >= 0) > CG_MAX_EVENTS)
		return cg_error_set(r->err, CG_EFORMAT, "%s: %zu sample types, more than the model's %d events",
				    r->name, r->ntypes, CG_MAX_EVENTS);
	for (size_t t = 0; t < r->ntypes; t++) {
		if ((int)t == has_calls) {
			r->event_of[t] = -1;
			continue;
		}
		const struct str *type = &r->strs[r->type_name[t]], *unit = &r->strs[r->type_unit[t]];
		char name[128], desc[300];
		/* event names are short ids without blanks */
		size_t n = 0;
		for (size_t i = 0; i < type->len && n < sizeof name - 8; i++)
			name[n++] = type->p[i] <= ' ' ? '_' : (char)type->p[i];
		if (!n)
			n = (size_t)snprintf(name, sizeof name, "value%zu", t + 1);
		name[n] = 0;
		/* two sample types of one name stay two events */
		for (int k = 2; cg_profile_find_event(r->p, name) >= 0; k++)
			snprintf(name + n, sizeof name - n, "_%d", k);
		snprintf(desc, sizeof desc, "%.*s (%.*s)", (int)(type->len > 120 ? 120 : type->len),
			 (const char *)type->p, (int)(unit->len > 120 ? 120 : unit->len),
			 (const char *)unit->p);
		double seconds = 0;
		if (str_equals(r, r->type_unit[t], "nanoseconds"))
			seconds = 1e-9;
		else if (str_equals(r, r->type_unit[t], "microseconds"))
			seconds = 1e-6;
		else if (str_equals(r, r->type_unit[t], "milliseconds"))
			seconds = 1e-3;
		else if (str_equals(r, r->type_unit[t], "seconds"))
			seconds = 1;
		else if ((str_equals(r, r->type_unit[t], "count") ||
			  str_equals(r, r->type_unit[t], "samples")) &&
			 str_equals(r, r->period_type_unit, "nanoseconds") && r->period > 0)
			seconds = (double)r->period * 1e-9;   /* CPU samples of that period */
		int e = cg_profile_add_event(r->p, name, desc, seconds);
		if (e < 0)
			return oom(r);
		r->event_of[t] = e;
	}
	if (cg_profile_event_count(r->p) == 0 &&
	    cg_profile_add_event(r->p, "samples", "samples (the profile declares no sample type)", 0) < 0)
		return oom(r);
	return 0;
}

/* ---- gzip ------------------------------------------------------------------------ */

static int inflate_all(const char *name, const uint8_t *data, size_t len, uint8_t **out,
		       size_t *out_len, cg_error *err)
{
	z_stream z = { 0 };
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return cg_error_set(err, CG_ENOMEM, "%s: out of memory", name);
	size_t cap = len < (1u << 20) ? (1u << 20) : len * 4, used = 0;
	uint8_t *buf = malloc(cap);
	int rc = buf ? 0 : CG_ENOMEM, zr = Z_OK;
	size_t consumed = 0;
	while (!rc) {
		if (used == cap) {
			if ((uint64_t)cap * 2 > PPROF_MAX_INFLATED) {
				rc = cg_error_set(err, CG_EFORMAT, "%s: decompresses to more than %" PRIu64 " bytes",
						  name, PPROF_MAX_INFLATED);
				break;
			}
			uint8_t *b = realloc(buf, cap * 2);
			if (!b) {
				rc = CG_ENOMEM;
				break;
			}
			buf = b;
			cap *= 2;
		}
		size_t in_left = len - consumed;
		z.next_in = (Bytef *)(uintptr_t)(data + consumed);
		z.avail_in = (uInt)(in_left > (1u << 30) ? (1u << 30) : in_left);
		z.next_out = buf + used;
		size_t room = cap - used;
		z.avail_out = (uInt)(room > (1u << 30) ? (1u << 30) : room);
		uInt in_before = z.avail_in, out_before = z.avail_out;
		zr = inflate(&z, Z_NO_FLUSH);
		consumed += in_before - z.avail_in;
		used += out_before - z.avail_out;
		if (zr == Z_STREAM_END) {
			/* gzip allows several members one after the other */
			if (consumed < len && len - consumed >= 2 && data[consumed] == 0x1f &&
			    data[consumed + 1] == 0x8b) {
				inflateReset(&z);
				continue;
			}
			break;
		}
		if (zr == Z_OK || (zr == Z_BUF_ERROR && used == cap))
			continue;
		if (zr == Z_BUF_ERROR || (zr == Z_OK && consumed == len))
			rc = cg_error_set(err, CG_EFORMAT, "%s: byte offset %zu: gzip data ends early",
					  name, consumed);
		else if (zr == Z_MEM_ERROR)
			rc = CG_ENOMEM;
		else
			rc = cg_error_set(err, CG_EFORMAT, "%s: byte offset %zu: corrupt gzip data (%s)",
					  name, consumed, z.msg ? z.msg : "inflate failed");
	}
	inflateEnd(&z);
	if (rc == CG_ENOMEM)
		cg_error_set(err, rc, "%s: out of memory", name);
	if (rc) {
		free(buf);
		return rc;
	}
	*out = buf;
	*out_len = used;
	return 0;
}

/* ---- the whole profile ----------------------------------------------------------- */

static int read_payload(struct reader *r)
{
	int rc;
	if ((rc = each_field(r, 6, take_string)))
		return rc;
	if (r->nstrs == 0)
		return fail(r, (size_t)(r->top.end - r->top.base),
			    "not a pprof profile, or cut short: no string table up to the end");
	if (r->strs[0].len != 0)
		return fail(r, (size_t)(r->strs[0].p - r->top.base),
			    "not a pprof profile: its string table does not start with the empty string");
	if ((rc = each_field(r, 1, take_sample_type)) || (rc = each_field(r, 11, take_period_type)) ||
	    (rc = each_field(r, 12, take_period)) || (rc = declare_events(r)) ||
	    (rc = each_field(r, 3, take_mapping)) || (rc = each_field(r, 5, take_function)) ||
	    (rc = each_field(r, 4, take_location)) || (rc = each_field(r, 2, take_sample)))
		return rc;
	return 0;
}

int cg_pprof_read(cg_profile **out, const char *name, const void *data, size_t len,
		  const cg_read_options *opts, cg_error *err)
{
	(void)opts;
	*out = NULL;
	uint8_t *inflated = NULL;
	const uint8_t *payload = data;
	size_t payload_len = len;
	int gzipped = len >= 2 && payload[0] == 0x1f && payload[1] == 0x8b;
	int rc;
	if (gzipped) {
		if ((rc = inflate_all(name, data, len, &inflated, &payload_len, err)))
			return rc;
		payload = inflated;
	}
	struct reader r = { .name = name, .err = err };
	r.where = gzipped ? " of the decompressed data" : "";
	r.top.p = r.top.base = payload;
	r.top.end = payload + payload_len;
	if (cg_profile_new(&r.p)) {
		free(inflated);
		return cg_error_set(err, CG_ENOMEM, "%s: out of memory", name);
	}
	rc = read_payload(&r);
	if (!rc) {
		/* keep the profile's own words */
		struct pb_reader it = r.top;
		struct pb_field f;
		const char *why;
		while (!rc && pb_next(&it, &f, &why) > 0) {
			const char *s = NULL;
			if (f.number == 13 && f.wire == PB_VARINT && f.value < r.nstrs && r.strs[f.value].len &&
			    !(rc = get_string(&r, f.value, f.offset, &s, 1)) && !cg_profile_meta(r.p, "comment"))
				rc = cg_profile_set_meta(r.p, "comment", s) ? oom(&r) : 0;
		}
	}
	if (!rc && cg_profile_derive_from_tree(r.p, err))
		rc = CG_ERROR;
	free(r.strs);
	free(r.maps);
	free(r.fns);
	free(r.locs);
	free(r.frames);
	free(r.frame_lines);
	free(r.sample_locs);
	cg_hashmap_release(&r.map_ids);
	cg_hashmap_release(&r.fn_ids);
	cg_hashmap_release(&r.loc_ids);
	cg_hashmap_release(&r.parts);
	free(inflated);
	if (rc) {
		cg_profile_free(r.p);
		return rc;
	}
	*out = r.p;
	return 0;
}
