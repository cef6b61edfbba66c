/*
 * write_pprof.c — a profile as pprof's profile.proto, gzip-compressed (what
 * `go tool pprof`, Pyroscope, Parca and speedscope read).  docs/pprof.md
 * has the mapping; in short:
 *
 *  - one sample type per event; a time event of an odd unit (100 Hz
 *    histogram samples) keeps its counts with unit "count" and gives its
 *    period as period_type cpu/nanoseconds;
 *  - call counts become one more sample type, "calls" (unit "count"),
 *    unless an event already has that name;
 *  - a part with a call tree gives one sample per tree node that carries
 *    any cost or calls, whose stack is the node's path, so stacks are
 *    exact;
 *  - a part with arcs only (gmon, Callgrind without context) cannot give
 *    stacks: each function's self cost is a one-frame sample, and each arc
 *    a two-frame sample (callee, caller) holding only its call count.  The
 *    profile's comments say so; no tree is invented;
 *  - one location and one function per function of the profile, one
 *    mapping per object (executable, library);
 *  - with several parts every sample carries a "thread" label naming its
 *    part.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "callgraph.h"
#include "callgraph/sys/format.h"
#include "pb.h"
#include "pprof_strings.h"
#include "pprof_internal.h"

/* Field numbers of the messages we write (see docs/pprof.md). */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6,
	PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12, PROFILE_COMMENT = 13,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
	LABEL_KEY = 1, LABEL_STR = 2,
	MAPPING_ID = 1, MAPPING_FILENAME = 5, MAPPING_HAS_FUNCTIONS = 7,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4, FUNCTION_START_LINE = 5
};

/* How much of the Profile message is kept before it is compressed. */
#define DRAIN_BYTES ((size_t)1 << 20)

struct writer {
	const cg_profile *p;
	struct pb_buf out;          /* the Profile message */
	struct pb_buf msg, sub;     /* scratch for nested messages */
	struct pprof_strings strs;
	size_t nev;                 /* events written as sample types */
	int calls_type;             /* a "calls" sample type follows the events */
	int64_t *values;            /* one sample's values */
	int64_t label_key;          /* "thread", when parts are labelled */
	int64_t part_label;         /* the current part's name, or -1 */
	unsigned char *used;        /* per function: appears in a sample */
	/* The Profile message goes out as it is made: `out` holds only what
	 * was not compressed yet (its top-level fields are independent, and
	 * deflate gives the same bytes however its input is cut). */
	FILE *file;
	z_stream z;
	int z_ready;
	int io_error;
};

/* The unit pprof understands for an event, and whether it is a period. */
static const char *event_unit(const cg_event *ev, int *is_period)
{
	*is_period = 0;
	double s = ev->unit_seconds;
	if (s == 1e-9)
		return "nanoseconds";
	if (s == 1e-6)
		return "microseconds";
	if (s == 1e-3)
		return "milliseconds";
	if (s == 1.0)
		return "seconds";
	if (s > 0)
		*is_period = 1;
	return "count";
}

static void put_value_type(struct writer *w, unsigned field, const char *type, const char *unit)
{
	pb_int(&w->sub, VALUE_TYPE_TYPE, (uint64_t)pprof_string(&w->strs, type));
	pb_int(&w->sub, VALUE_TYPE_UNIT, (uint64_t)pprof_string(&w->strs, unit));
	pb_message(&w->out, field, &w->sub);
}

static void drain(struct writer *w, int finish);

/* One Sample: `stack` holds function indexes leaf first. */
static void put_sample(struct writer *w, const cg_fid *stack, size_t depth)
{
	for (size_t i = 0; i < depth; i++) {
		pb_raw_varint(&w->sub, (uint64_t)stack[i] + 1);
		w->used[stack[i]] = 1;
	}
	pb_message(&w->msg, SAMPLE_LOCATION_ID, &w->sub);
	size_t nv = w->nev + (size_t)w->calls_type;
	for (size_t i = 0; i < nv; i++)
		pb_raw_varint(&w->sub, (uint64_t)w->values[i]);
	pb_message(&w->msg, SAMPLE_VALUE, &w->sub);
	if (w->part_label >= 0) {
		pb_int(&w->sub, LABEL_KEY, (uint64_t)w->label_key);
		pb_int(&w->sub, LABEL_STR, (uint64_t)w->part_label);
		pb_message(&w->msg, SAMPLE_LABEL, &w->sub);
	}
	pb_message(&w->out, PROFILE_SAMPLE, &w->msg);
	if (w->out.len >= DRAIN_BYTES)
		drain(w, 0);
}

static int any_value(const struct writer *w)
{
	for (size_t i = 0; i < w->nev + (size_t)w->calls_type; i++)
		if (w->values[i])
			return 1;
	return 0;
}

/* Every node that carries cost or calls becomes a sample whose stack is its
 * path; preorder, so reading the samples back in order rebuilds the tree
 * with its children in the same order.  Memory grows with the depth, not
 * with the number of nodes. */
static int write_tree_part(struct writer *w, unsigned part)
{
	cg_fid *stack = NULL, *path = NULL;   /* path[d] is the function at depth d + 1 */
	size_t stack_cap = 0, path_cap = 0;
	int rc = 0;
	size_t d = 1;                         /* depth of n; the root is 0 */
	cg_nid n = cg_profile_node(w->p, part, 0)->first_child;
	while (n != CG_NO_NODE && !rc) {
		const cg_node *node = cg_profile_node(w->p, part, n);
		if (CG_ARRAY_GROW(path, path_cap, d) || CG_ARRAY_GROW(stack, stack_cap, d)) {
			rc = CG_ENOMEM;
			break;
		}
		path[d - 1] = node->func;
		for (size_t e = 0; e < w->nev; e++)
			w->values[e] = node->self[e];
		if (w->calls_type)
			w->values[w->nev] = (int64_t)node->calls;
		if (any_value(w)) {
			for (size_t i = 0; i < d; i++)
				stack[i] = path[d - 1 - i];
			put_sample(w, stack, d);
		}
		if (node->first_child != CG_NO_NODE) {
			n = node->first_child;
			d++;
			continue;
		}
		while (n != CG_NO_NODE) {
			const cg_node *x = cg_profile_node(w->p, part, n);
			if (x->next_sibling != CG_NO_NODE) {
				n = x->next_sibling;
				break;
			}
			n = x->parent == 0 ? CG_NO_NODE : x->parent;
			d--;
		}
	}
	free(stack);
	free(path);
	return rc;
}

/* Arcs only: self costs as one-frame samples, calls as (callee, caller). */
static void write_flat_part(struct writer *w, unsigned part)
{
	size_t nf = cg_profile_function_count(w->p);
	size_t nv = w->nev + (size_t)w->calls_type;
	for (size_t f = 0; f < nf; f++) {
		const cg_cost *self = cg_profile_self(w->p, part, (cg_fid)f);
		memset(w->values, 0, nv * sizeof *w->values);
		for (size_t e = 0; e < w->nev; e++)
			w->values[e] = self[e];
		if (any_value(w)) {
			cg_fid fid = (cg_fid)f;
			put_sample(w, &fid, 1);
		}
	}
	if (!w->calls_type)
		return;
	for (size_t a = 0; a < cg_profile_arc_count(w->p, part); a++) {
		const cg_arc *arc = cg_profile_arc(w->p, part, a);
		if (!arc->count)
			continue;
		memset(w->values, 0, nv * sizeof *w->values);
		w->values[w->nev] = (int64_t)arc->count;
		cg_fid stack[2] = { arc->callee, arc->caller };
		int spontaneous = cg_profile_function(w->p, arc->caller)->flags & CG_FN_SPONTANEOUS;
		put_sample(w, stack, spontaneous ? 1 : 2);
	}
}

static int has_calls(const cg_profile *p)
{
	for (unsigned part = 0; part < cg_profile_part_count(p); part++) {
		size_t nn = cg_profile_node_count(p, part);
		if (nn > 1) {
			for (cg_nid n = 1; n < nn; n++)
				if (cg_profile_node(p, part, n)->calls)
					return 1;
			continue;
		}
		for (size_t a = 0; a < cg_profile_arc_count(p, part); a++)
			if (cg_profile_arc(p, part, a)->count)
				return 1;
	}
	return 0;
}

/* mapping index + 1 per object string, in order of first use */
static void write_tables(struct writer *w)
{
	size_t nf = cg_profile_function_count(w->p);
	const char **objects = calloc(nf + 1, sizeof *objects);
	uint64_t *mapping_of = calloc(nf + 1, sizeof *mapping_of);
	if (!objects || !mapping_of) {
		w->out.oom = 1;
		free(objects);
		free(mapping_of);
		return;
	}
	size_t nobj = 0;
	/* pprof takes the first mapping for the program ("File:" in its
	 * reports): the object main() is in goes first */
	size_t first = nf;
	for (size_t f = 0; f < nf && first == nf; f++) {
		const cg_function *fn = cg_profile_function(w->p, (cg_fid)f);
		if (w->used[f] && fn->object && strcmp(fn->name, "main") == 0)
			first = f;
	}
	for (size_t k = 0; k <= nf; k++) {
		size_t f = k == 0 ? first : k - 1;
		if (f >= nf)
			continue;
		const cg_function *fn = cg_profile_function(w->p, (cg_fid)f);
		if (!w->used[f] || !fn->object)
			continue;
		size_t m = 0;
		/* interned strings: equal objects are equal pointers */
		while (m < nobj && objects[m] != fn->object)
			m++;
		if (m == nobj) {
			objects[nobj++] = fn->object;
			pb_int(&w->msg, MAPPING_ID, m + 1);
			pb_int(&w->msg, MAPPING_FILENAME, (uint64_t)pprof_string(&w->strs, fn->object));
			pb_int(&w->msg, MAPPING_HAS_FUNCTIONS, 1);
			pb_message(&w->out, PROFILE_MAPPING, &w->msg);
		}
		mapping_of[f] = m + 1;
	}
	for (size_t f = 0; f < nf; f++) {
		if (!w->used[f])
			continue;
		const cg_function *fn = cg_profile_function(w->p, (cg_fid)f);
		pb_int(&w->msg, LOCATION_ID, f + 1);
		pb_int(&w->msg, LOCATION_MAPPING_ID, mapping_of[f]);
		pb_int(&w->sub, LINE_FUNCTION_ID, f + 1);
		pb_message(&w->msg, LOCATION_LINE, &w->sub);
		pb_message(&w->out, PROFILE_LOCATION, &w->msg);

		int64_t name = pprof_string(&w->strs, fn->name);
		pb_int(&w->msg, FUNCTION_ID, f + 1);
		pb_int(&w->msg, FUNCTION_NAME, (uint64_t)name);
		pb_int(&w->msg, FUNCTION_SYSTEM_NAME, (uint64_t)name);
		pb_int(&w->msg, FUNCTION_FILENAME, (uint64_t)pprof_string(&w->strs, fn->file));
		pb_int(&w->msg, FUNCTION_START_LINE, fn->line);
		pb_message(&w->out, PROFILE_FUNCTION, &w->msg);
	}
	free(objects);
	free(mapping_of);
}

/* Compresses what w->out holds and empties it; `finish` ends the gzip
 * stream.  A failure is remembered (w->io_error, w->out.oom) and later
 * calls do nothing. */
static void drain(struct writer *w, int finish)
{
	if (w->io_error || w->out.oom)
		return;
	if (!w->z_ready) {
		/* 15 window bits + 16: a gzip header, as pprof files have */
		if (deflateInit2(&w->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
				 Z_DEFAULT_STRATEGY) != Z_OK) {
			w->out.oom = 1;
			return;
		}
		w->z_ready = 1;
	}
	unsigned char chunk[1 << 16];
	size_t done = 0;
	int zr = Z_OK;
	do {
		size_t take = w->out.len - done;
		if (take > (1u << 30))
			take = 1u << 30;
		w->z.next_in = w->out.data + done;
		w->z.avail_in = (uInt)take;
		done += take;
		int flush = finish && done == w->out.len ? Z_FINISH : Z_NO_FLUSH;
		do {
			w->z.next_out = chunk;
			w->z.avail_out = sizeof chunk;
			zr = deflate(&w->z, flush);
			size_t have = sizeof chunk - w->z.avail_out;
			if (have && fwrite(chunk, 1, have, w->file) != have)
				w->io_error = 1;
		} while (w->z.avail_out == 0 && !w->io_error);
	} while (done < w->out.len && !w->io_error);
	w->out.len = 0;
	if (finish && zr != Z_STREAM_END)
		w->io_error = 1;
}

int cg_pprof_write(const cg_profile *p, FILE *out, const cg_write_options *opts, cg_error *err)
{
	struct writer w = { .p = p, .part_label = -1, .file = out };
	int rc = cg_format_event_index(p, opts, err);
	if (rc < 0)
		return rc;
	int default_event = rc;
	rc = 0;
	pprof_string(&w.strs, "");
	w.nev = cg_profile_event_count(p);
	w.calls_type = cg_profile_find_event(p, "calls") < 0 && has_calls(p);
	w.values = calloc(w.nev + 1, sizeof *w.values);
	w.used = calloc(cg_profile_function_count(p) + 1, 1);
	if (!w.values || !w.used) {
		rc = CG_ENOMEM;
		goto done;
	}

	const cg_event *period_event = NULL;
	for (size_t e = 0; e < w.nev; e++) {
		const cg_event *ev = cg_profile_event(p, e);
		int is_period;
		put_value_type(&w, PROFILE_SAMPLE_TYPE, ev->name, event_unit(ev, &is_period));
		if (is_period && !period_event)
			period_event = ev;
	}
	if (w.calls_type)
		put_value_type(&w, PROFILE_SAMPLE_TYPE, "calls", "count");

	unsigned nparts = (unsigned)cg_profile_part_count(p);
	int arc_only = 0;
	/* unnamed parts are labelled "part N"; the table borrows the strings */
	char (*fallback)[32] = calloc(nparts, sizeof *fallback);
	if (!fallback) {
		rc = CG_ENOMEM;
		goto done;
	}
	w.label_key = pprof_string(&w.strs, "thread");
	for (unsigned part = 0; part < nparts && !rc; part++) {
		if (nparts > 1) {
			const char *name = cg_profile_part_name(p, part);
			if (!name || !*name) {
				snprintf(fallback[part], sizeof fallback[part], "part %u", part + 1);
				name = fallback[part];
			}
			w.part_label = pprof_string(&w.strs, name);
		}
		if (cg_profile_node_count(p, part) > 1) {
			rc = write_tree_part(&w, part);
		} else {
			arc_only = 1;
			write_flat_part(&w, part);
		}
	}
	if (rc) {
		free(fallback);
		goto done;
	}
	write_tables(&w);

	if (period_event) {
		put_value_type(&w, PROFILE_PERIOD_TYPE, "cpu", "nanoseconds");
		pb_int(&w.out, PROFILE_PERIOD, (uint64_t)(period_event->unit_seconds * 1e9 + 0.5));
	}
	char creator[64];
	snprintf(creator, sizeof creator, "written by callgraph %s", cg_version());
	pb_int(&w.out, PROFILE_COMMENT, (uint64_t)pprof_string(&w.strs, creator));
	if (arc_only)
		pb_int(&w.out, PROFILE_COMMENT, (uint64_t)pprof_string(&w.strs,
			"the input knows arcs, not call stacks: one-frame samples hold self costs, "
			"two-frame samples (callee, caller) hold call counts only"));
	pb_int(&w.out, PROFILE_DEFAULT_SAMPLE_TYPE,
	       (uint64_t)pprof_string(&w.strs, cg_profile_event(p, (size_t)default_event)->name));
	/* the string table last: by now it holds every string used above */
	for (size_t i = 0; i < w.strs.count; i++)
		pb_bytes(&w.out, PROFILE_STRING_TABLE, w.strs.strs[i], strlen(w.strs.strs[i]));

	if (w.out.oom || w.msg.oom || w.sub.oom || w.strs.oom)
		rc = CG_ENOMEM;
	else {
		drain(&w, 1);
		rc = w.out.oom ? CG_ENOMEM : w.io_error ? CG_EIO : 0;
	}
	free(fallback);
done:
	if (w.z_ready)
		deflateEnd(&w.z);
	free(w.out.data);
	free(w.msg.data);
	free(w.sub.data);
	free(w.values);
	free(w.used);
	pprof_strings_free(&w.strs);
	if (rc == CG_ENOMEM)
		return cg_error_set(err, rc, "pprof: out of memory");
	if (rc || ferror(out))
		return cg_error_set(err, CG_EIO, "pprof: write error");
	return 0;
}
