/*
 * read_cgtree.c — reads the cgtree format (docs/cgtree.md) into the model:
 * one pass over the lines, every id checked against what was defined
 * before, the tree checked to be in pre-order with links pointing at
 * ancestors of the same function.  Symbols are resolved per distinct
 * function, from the objects the file names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "array.h"
#include "cgtree_symbols.h"
#include "checked.h"
#include "hashmap.h"
#include "linereader.h"
#include "positions.h"

#define MAX_FIELDS 64
#define MAX_ID 100000000u   /* ids beyond this are nonsense, not big profiles */

struct object {
	char *path;
	cgt_symtab *syms;
	int tried;
};

/* Where a file function's code is, for placing `at` addresses in it. */
struct fnplace {
	long obj;        /* object index; -1 when not a C function in an object */
	int resolved;    /* its symbol was found: start and end are known */
	uint64_t start;  /* its symbol's address range in the object */
	uint64_t end;    /* 0: up to the end of the section */
};

/* The cost `at` records placed at one address of one function in one
 * part, summed over the function's contexts, kept until the tree's self
 * costs are derived (deriving them starts the positions afresh).  Lines
 * are looked up then, once per entry. */
struct placed {
	unsigned part;
	cg_fid f;
	uint32_t obj;
	unsigned char resolved;  /* the function's object has symbols: ask for the line */
	unsigned char inside;    /* addr is in the function's symbol */
	uint64_t addr;    /* in the object */
};

struct rnode {
	uint32_t func;   /* file function id */
	cg_nid nid;      /* model node */
	uint32_t parent; /* file node id */
	unsigned char open;  /* on the current pre-order path */
	unsigned char link;
};

struct reader {
	cg_profile *p;
	const char *name;
	unsigned long line;
	unsigned flags;
	cg_error *err;
	int nevents;
	int in_thread;
	int seen_thread;
	unsigned threads;
	unsigned part;
	char pid[24];
	struct object *obj;
	size_t nobj, capobj;
	cg_fid *fn;        /* file function id -> model function */
	size_t nfn, capfn;
	struct fnplace *place;  /* file function id -> its code */
	size_t capplace;
	/* `at` records: the node they belong to (the last `node` read, 0
	 * none), its self cost and what its `at` records placed so far. */
	uint32_t at_node;
	cg_cost at_self[CG_MAX_EVENTS], at_sum[CG_MAX_EVENTS];
	struct placed *placed;
	size_t nplaced, capplaced;
	cg_cost *placed_costs;    /* nevents per entry */
	size_t capplaced_costs;
	struct cg_hashmap placed_index;  /* hash of (part, f, addr) -> entries */
	uint64_t unplaced;  /* endthread `unplaced`, summed */
	struct rnode *nodes;
	size_t nnodes, capnodes;
	uint32_t *path;    /* open nodes, root first */
	size_t depth, cappath;
	char **noprofile;
	size_t nnoprofile;
	cg_run_info run;   /* the collector's endthread/ended reports, summed */
	int have_run;
	char *fields[MAX_FIELDS];
	int nfields;
};

static int fail(struct reader *r, const char *what)
{
	return cg_error_set(r->err, CG_EFORMAT, "%s:%lu: %s", r->name, r->line, what);
}

static int failf(struct reader *r, const char *fmt, const char *arg)
{
	char msg[512];
	snprintf(msg, sizeof msg, fmt, arg);
	return fail(r, msg);
}

static int oom(struct reader *r)
{
	return cg_error_set(r->err, CG_ENOMEM, "%s:%lu: out of memory", r->name, r->line);
}

static int grow(void **v, size_t *cap, size_t need, size_t elem)
{
	return cg_array_grow(v, cap, need, elem, 64) ? -1 : 0;
}

/* ---- fields ---------------------------------------------------------------- */

static int parse_u64(struct reader *r, int i, uint64_t *out)
{
	const char *s = r->fields[i];
	uint64_t v = 0;
	if (!*s)
		return failf(r, "field %s: expected a number", i == 1 ? "1" : "value");
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return failf(r, "bad number '%s'", r->fields[i]);
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return failf(r, "number '%s' out of range", r->fields[i]);
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static int parse_id(struct reader *r, int i, uint32_t *out)
{
	uint64_t v;
	int rc = parse_u64(r, i, &v);
	if (rc)
		return rc;
	if (v > MAX_ID)
		return failf(r, "id '%s' out of range", r->fields[i]);
	*out = (uint32_t)v;
	return 0;
}

static int parse_hex(struct reader *r, int i, uint64_t *out)
{
	const char *s = r->fields[i];
	if (s[0] != '0' || s[1] != 'x' || !s[2] || strlen(s) > 18)
		return failf(r, "bad address '%s'", s);
	uint64_t v = 0;
	for (s += 2; *s; s++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0'
			: *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
			: *s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : -1;
		if (d < 0)
			return failf(r, "bad address '%s'", r->fields[i]);
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return 0;
}

static int hexdigit(char c)
{
	return c >= '0' && c <= '9' ? c - '0'
		: c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Decodes a string field in place; *out is NULL for "-". */
static int parse_str(struct reader *r, int i, const char **out)
{
	char *s = r->fields[i], *d = s;
	if (strcmp(s, "-") == 0) {
		*out = NULL;
		return 0;
	}
	for (const char *p = s; *p; p++) {
		if (*p != '%') {
			*d++ = *p;
			continue;
		}
		int hi = hexdigit(p[1]), lo = hi < 0 ? -1 : hexdigit(p[2]);
		if (lo < 0 || (hi == 0 && lo == 0))
			return fail(r, "bad %-escape in a string");
		*d++ = (char)(hi << 4 | lo);
		p += 2;
	}
	*d = '\0';
	*out = s;
	return 0;
}

static int want_fields(struct reader *r, int n)
{
	if (r->nfields != n) {
		char msg[128];
		snprintf(msg, sizeof msg, "'%s' needs %d fields, found %d", r->fields[0], n - 1,
			 r->nfields - 1);
		return fail(r, msg);
	}
	return 0;
}

/* ---- header records ------------------------------------------------------- */

static int header_meta(struct reader *r)
{
	const char *key = r->fields[0];
	if (r->seen_thread)
		return failf(r, "'%s' after the first thread", key);
	if (strcmp(key, "cmd") == 0) {
		size_t len = 0;
		for (int i = 1; i < r->nfields; i++)
			len += strlen(r->fields[i]) + 1;
		char *cmd = malloc(len + 1), *d = cmd;
		if (!cmd)
			return oom(r);
		for (int i = 1; i < r->nfields; i++) {
			const char *arg;
			if (parse_str(r, i, &arg)) {
				free(cmd);
				return CG_EFORMAT;
			}
			size_t n = arg ? strlen(arg) : 0;
			if (i > 1)
				*d++ = ' ';
			memcpy(d, arg ? arg : "", n);
			d += n;
		}
		*d = '\0';
		int rc = cg_profile_set_meta(r->p, "cmd", cmd);
		free(cmd);
		return rc ? oom(r) : 0;
	}
	int rc = want_fields(r, strcmp(key, "creator") == 0 ? 3 : 2);
	if (rc)
		return rc;
	const char *v;
	if (strcmp(key, "creator") == 0) {
		const char *name, *version;
		char both[512];
		if (parse_str(r, 1, &name) || parse_str(r, 2, &version))
			return CG_EFORMAT;
		snprintf(both, sizeof both, "%s %s", name ? name : "-", version ? version : "-");
		return cg_profile_set_meta(r->p, "creator", both) ? oom(r) : 0;
	}
	if (strcmp(key, "pid") == 0 || strcmp(key, "ppid") == 0 || strcmp(key, "hz") == 0 ||
	    strcmp(key, "forked") == 0) {
		uint64_t n;
		if (parse_u64(r, 1, &n))
			return CG_EFORMAT;
		if (strcmp(key, "pid") == 0)
			snprintf(r->pid, sizeof r->pid, "%llu", (unsigned long long)n);
		v = r->fields[1];
	} else if (parse_str(r, 1, &v)) {
		return CG_EFORMAT;
	}
	if (strcmp(key, "time") == 0 && (!v || (strcmp(v, "cpu") && strcmp(v, "wall") &&
						strcmp(v, "calls"))))
		return failf(r, "unknown time kind '%s'", v ? v : "-");
	return cg_profile_set_meta(r->p, key, v ? v : "") ? oom(r) : 0;
}

static int rec_event(struct reader *r)
{
	const char *name = NULL, *desc = NULL;
	uint64_t ns = 0;
	int rc = want_fields(r, 4);
	if (rc || (rc = parse_str(r, 1, &name)) || (rc = parse_u64(r, 2, &ns)) ||
	    (rc = parse_str(r, 3, &desc)))
		return rc;
	if (r->seen_thread)
		return fail(r, "'event' after the first thread");
	if (!name)
		return fail(r, "event without a name");
	if (r->nevents >= CG_MAX_EVENTS)
		return fail(r, "too many events");
	if (cg_profile_find_event(r->p, name) >= 0)
		return failf(r, "event '%s' declared twice", name);
	rc = cg_profile_add_event(r->p, name, desc ? desc : name, (double)ns * 1e-9);
	if (rc < 0)
		return rc == CG_ENOMEM ? oom(r) : fail(r, "cannot declare an event here");
	r->nevents++;
	return 0;
}

static int rec_object(struct reader *r)
{
	uint32_t id = 0;
	uint64_t base = 0;
	const char *path = NULL;
	int rc = want_fields(r, 4);
	if (rc || (rc = parse_id(r, 1, &id)) || (rc = parse_hex(r, 2, &base)) ||
	    (rc = parse_str(r, 3, &path)))
		return rc;
	if (r->seen_thread)
		return fail(r, "'object' after the first thread");
	if (id != r->nobj)
		return fail(r, "object ids must count up from 0");
	if (grow((void **)&r->obj, &r->capobj, r->nobj + 1, sizeof *r->obj))
		return oom(r);
	struct object *o = &r->obj[r->nobj];
	memset(o, 0, sizeof *o);
	o->path = strdup(path ? path : "?");
	if (!o->path)
		return oom(r);
	r->nobj++;
	return 0;
}

static int rec_noprofile(struct reader *r)
{
	const char *name = NULL;
	int rc = want_fields(r, 2);
	if (rc || (rc = parse_str(r, 1, &name)))
		return rc;
	if (!name)
		return 0;
	char **v = realloc(r->noprofile, (r->nnoprofile + 1) * sizeof *v);
	if (!v)
		return oom(r);
	r->noprofile = v;
	if (!(v[r->nnoprofile] = strdup(name)))
		return oom(r);
	r->nnoprofile++;
	return 0;
}

/* ---- functions --------------------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static int func_addr(struct reader *r, uint64_t obj_id, int has_obj, uint64_t off, cg_fid *out,
		     struct fnplace *place)
{
	struct object *o = has_obj ? &r->obj[obj_id] : NULL;
	cgt_symbol sym;
	int found = 0;
	if (o && !(r->flags & CG_CGTREE_NO_SYMBOLS)) {
		if (!o->tried) {
			o->tried = 1;
			o->syms = cg_objsym_open(o->path);
		}
		found = o->syms && cg_objsym_lookup(o->syms, off, &sym) == 0;
	}
	if (!found) {
		/* Unknown extent: addresses in the same object are kept
		 * (without lines). */
		*place = (struct fnplace){ o ? (long)obj_id : -1, 0, 0, 0 };
		char name[600];
		snprintf(name, sizeof name, "0x%llx@%s", (unsigned long long)off,
			 o ? base_name(o->path) : "?");
		return cg_profile_intern_function(r->p, name, o ? o->path : NULL, NULL, out)
			? oom(r) : 0;
	}
	if (cg_profile_intern_function(r->p, sym.name, o->path, sym.file, out))
		return oom(r);
	*place = (struct fnplace){ (long)obj_id, 1, sym.start, sym.end };
	cg_function *f = cg_profile_function(r->p, *out);
	if (!(f->flags & CG_FN_HAS_ADDR)) {
		f->flags |= CG_FN_HAS_ADDR | CG_FN_IS_FUNC | (sym.is_local ? CG_FN_STATIC : 0);
		f->addr = sym.start;
		f->end = sym.end;
		f->line = sym.line;
	}
	return 0;
}

static int rec_func(struct reader *r)
{
	uint32_t id = 0;
	int rc;
	if (r->nfields < 3)
		return fail(r, "'func' needs an id and a kind");
	if ((rc = parse_id(r, 1, &id)))
		return rc;
	if (id != r->nfn)
		return fail(r, "function ids must count up from 0");
	if (grow((void **)&r->fn, &r->capfn, r->nfn + 1, sizeof *r->fn) ||
	    grow((void **)&r->place, &r->capplace, r->nfn + 1, sizeof *r->place))
		return oom(r);
	struct fnplace *place = &r->place[r->nfn];
	*place = (struct fnplace){ -1, 0, 0, 0 };
	cg_fid f;
	if (strcmp(r->fields[2], "addr") == 0) {
		uint64_t obj = 0, off = 0;
		if ((rc = want_fields(r, 5)))
			return rc;
		int has_obj = strcmp(r->fields[3], "-") != 0;
		if ((has_obj && (rc = parse_u64(r, 3, &obj))) || (rc = parse_hex(r, 4, &off)))
			return rc;
		if (has_obj && obj >= r->nobj)
			return fail(r, "function in an undefined object");
		if ((rc = func_addr(r, obj, has_obj, off, &f, place)))
			return rc;
	} else if (strcmp(r->fields[2], "name") == 0) {
		const char *name = NULL, *file = NULL;
		uint64_t line = 0;
		if ((rc = want_fields(r, 6)) || (rc = parse_str(r, 3, &name)) ||
		    (rc = parse_str(r, 4, &file)) || (rc = parse_u64(r, 5, &line)))
			return rc;
		if (!name)
			return fail(r, "function without a name");
		if (line > UINT32_MAX)
			return fail(r, "line number out of range");
		if (cg_profile_intern_function(r->p, name, NULL, file, &f))
			return oom(r);
		cg_function *fn = cg_profile_function(r->p, f);
		if (!fn->line)
			fn->line = (uint32_t)line;
	} else {
		return failf(r, "unknown function kind '%s'", r->fields[2]);
	}
	r->fn[r->nfn++] = f;
	return 0;
}

/* ---- threads and the tree ------------------------------------------------------ */

static int rec_thread(struct reader *r)
{
	uint32_t id = 0;
	uint64_t tid = 0;
	int rc = want_fields(r, 3);
	if (rc || (rc = parse_id(r, 1, &id)) || (rc = parse_u64(r, 2, &tid)))
		return rc;
	if (r->in_thread)
		return fail(r, "'thread' inside a thread (missing 'endthread')");
	if (id != r->threads)
		return fail(r, "thread ids must count up from 0");
	if (r->nevents == 0)
		return fail(r, "'thread' before any 'event'");
	char name[96];
	if (r->pid[0])
		snprintf(name, sizeof name, "pid %s thread %u", r->pid, id);
	else
		snprintf(name, sizeof name, "thread %u", id);
	if (id == 0)
		rc = cg_profile_set_part_name(r->p, 0, name);
	else
		rc = cg_profile_add_part(r->p, name, &r->part);
	if (rc)
		return oom(r);
	if (id == 0)
		r->part = 0;
	r->seen_thread = r->in_thread = 1;
	r->threads++;
	/* file node 0 is the root, always open */
	if (grow((void **)&r->nodes, &r->capnodes, 1, sizeof *r->nodes) ||
	    grow((void **)&r->path, &r->cappath, 1, sizeof *r->path))
		return oom(r);
	r->nodes[0] = (struct rnode){ UINT32_MAX, 0, 0, 1, 0 };
	r->nnodes = 1;
	r->path[0] = 0;
	r->depth = 1;
	return 0;
}

/* Closes the open path down to `parent`; fails when parent is not on it
 * (the file is not in pre-order). */
static int open_to(struct reader *r, uint32_t parent)
{
	if (parent >= r->nnodes || !r->nodes[parent].open)
		return fail(r, "parent is not an open ancestor (nodes must be in pre-order)");
	while (r->path[r->depth - 1] != parent) {
		r->nodes[r->path[r->depth - 1]].open = 0;
		r->depth--;
	}
	return 0;
}

static int rec_node(struct reader *r, int link)
{
	uint32_t id = 0, parent = 0, func = 0;
	int rc;
	if (!r->in_thread)
		return failf(r, "'%s' outside a thread", r->fields[0]);
	if ((rc = want_fields(r, link ? 6 : 7 + r->nevents)) ||
	    (rc = parse_id(r, 1, &id)) || (rc = parse_id(r, 2, &parent)) ||
	    (rc = parse_id(r, 3, &func)))
		return rc;
	if (id != r->nnodes)
		return fail(r, "node ids must count up from 1 in each thread");
	if (func >= r->nfn)
		return fail(r, "node uses an undefined function");
	if ((rc = open_to(r, parent)))
		return rc;
	uint64_t calls = 0;
	if ((rc = parse_u64(r, 4, &calls)))
		return rc;
	if (grow((void **)&r->nodes, &r->capnodes, r->nnodes + 1, sizeof *r->nodes) ||
	    grow((void **)&r->path, &r->cappath, r->depth + 1, sizeof *r->path))
		return oom(r);
	struct rnode *rn = &r->nodes[r->nnodes];
	*rn = (struct rnode){ func, 0, parent, 0, (unsigned char)link };
	uint32_t target = 0;
	uint64_t redos = 0, recursive = 0;
	cg_cost costs[CG_MAX_EVENTS];
	if (link) {
		if ((rc = parse_id(r, 5, &target)))
			return rc;
		if (target == 0 || target >= r->nnodes || !r->nodes[target].open ||
		    r->nodes[target].func != func)
			return fail(r, "link target is not an ancestor of the same function");
	} else {
		if ((rc = parse_u64(r, 5, &redos)) || (rc = parse_u64(r, 6, &recursive)))
			return rc;
		for (int e = 0; e < r->nevents; e++) {
			uint64_t c;
			if ((rc = parse_u64(r, 7 + e, &c)))
				return rc;
			if (c > INT64_MAX)
				return fail(r, "cost out of range");
			costs[e] = (cg_cost)c;
		}
	}
	cg_nid nid;
	rc = cg_profile_node_add(r->p, r->part, r->nodes[parent].nid, r->fn[func], &nid);
	if (rc)
		return rc == CG_ENOMEM ? oom(r) : fail(r, "cannot add the node");
	cg_node *n = cg_profile_node(r->p, r->part, nid);
	n->calls = calls;
	if (link) {
		n->recursion_target = r->nodes[target].nid;
	} else {
		n->redos = redos;
		n->recursive = recursive;
		for (int e = 0; e < r->nevents; e++)
			n->self[e] = costs[e];
		memcpy(r->at_self, costs, sizeof costs);
		memset(r->at_sum, 0, sizeof r->at_sum);
		rn->open = 1;
		r->path[r->depth++] = id;
	}
	rn->nid = nid;
	r->at_node = link ? 0 : id;
	r->nnodes++;
	return 0;
}

/* `at NODE OBJ OFFSET COST...`: part of the self cost of NODE (the node
 * just read) spent at one instruction.  An address in the node's function
 * becomes a position of it (its source line from DWARF), and so does one
 * elsewhere in its object where DWARF says the function was inlined (an
 * inlined function keeps its enter and exit hooks, so its node is
 * current in the copy); any other (a library function that is not
 * instrumented, a callee's prologue before its enter hook) stays
 * unplaced, and finish() puts it with the rest at the function's own
 * line.  When the function's object could not be read (or symbols are
 * off), any address in its object is kept, without a line. */
static int rec_at(struct reader *r)
{
	uint32_t id = 0;
	uint64_t obj = 0, off = 0;
	int rc;
	if (!r->in_thread)
		return fail(r, "'at' outside a thread");
	if ((rc = want_fields(r, 4 + r->nevents)) || (rc = parse_id(r, 1, &id)))
		return rc;
	if (id == 0 || id != r->at_node)
		return fail(r, "'at' does not follow the 'node' record it names");
	int has_obj = strcmp(r->fields[2], "-") != 0;
	if ((has_obj && (rc = parse_u64(r, 2, &obj))) || (rc = parse_hex(r, 3, &off)))
		return rc;
	if (has_obj && obj >= r->nobj)
		return fail(r, "'at' address in an undefined object");
	cg_cost costs[CG_MAX_EVENTS];
	int any = 0;
	for (int e = 0; e < r->nevents; e++) {
		uint64_t c;
		if ((rc = parse_u64(r, 4 + e, &c)))
			return rc;
		if (c > (uint64_t)(r->at_self[e] - r->at_sum[e]))
			return fail(r, "'at' costs exceed the node's self cost");
		costs[e] = (cg_cost)c;
		r->at_sum[e] += costs[e];
		any |= c != 0;
	}
	const struct rnode *rn = &r->nodes[id];
	const struct fnplace *pl = &r->place[rn->func];
	if (!any || !has_obj || pl->obj != (long)obj)
		return 0;
	int inside = !pl->resolved || (off >= pl->start && (!pl->end || off < pl->end));
	cg_fid f = r->fn[rn->func];
	size_t nev = (size_t)r->nevents;
	uint64_t key = cg_hash64(((uint64_t)r->part << 32 | f) ^ cg_hash64(off));
	size_t cursor = 0;
	uint32_t i;
	while (cg_hashmap_next(&r->placed_index, key, &cursor, &i)) {
		const struct placed *pd = &r->placed[i];
		if (pd->part == r->part && pd->f == f && pd->addr == off)
			return cg_checked_add_costs(r->placed_costs + i * nev, costs, nev)
				? fail(r, "costs at one address sum past 2^63-1") : 0;
	}
	if (r->nplaced >= UINT32_MAX - 1 ||
	    grow((void **)&r->placed, &r->capplaced, r->nplaced + 1, sizeof *r->placed) ||
	    grow((void **)&r->placed_costs, &r->capplaced_costs, (r->nplaced + 1) * nev,
		 sizeof *r->placed_costs) ||
	    cg_hashmap_add(&r->placed_index, key, (uint32_t)r->nplaced))
		return oom(r);
	r->placed[r->nplaced] = (struct placed){ r->part, f, (uint32_t)obj,
						 (unsigned char)pl->resolved,
						 (unsigned char)inside, off };
	memcpy(r->placed_costs + r->nplaced * nev, costs, nev * sizeof *costs);
	r->nplaced++;
	return 0;
}

static int rec_endthread(struct reader *r)
{
	static const char *const keys[] = { "samples", "overhead", "lost", "resyncs" };
	uint64_t *const stat[] = { &r->run.samples, &r->run.overhead, &r->run.lost,
				   &r->run.resyncs };
	uint32_t id = 0;
	int rc;
	if (r->nfields < 2 || r->nfields % 2 != 0)
		return fail(r, "'endthread' needs an id and KEY VALUE pairs");
	if ((rc = parse_id(r, 1, &id)))
		return rc;
	if (!r->in_thread || id + 1 != r->threads)
		return fail(r, "'endthread' does not match the open thread");
	for (int i = 2; i + 1 < r->nfields; i += 2) {
		const char *key = r->fields[i];
		if (strcmp(key, "status") == 0) {
			const char *v = r->fields[i + 1];
			if (strcmp(v, "ok") != 0) {
				r->run.threads_cut++;
				r->run.flags |= strcmp(v, "oom") == 0 ? CG_RUN_OOM : CG_RUN_OVERFLOW;
			}
			continue;
		}
		uint64_t v;
		if ((rc = parse_u64(r, i + 1, &v)))
			return rc;
		if (strcmp(key, "unplaced") == 0)
			r->unplaced = r->unplaced > UINT64_MAX - v ? UINT64_MAX : r->unplaced + v;
		if (strcmp(key, "nodes") == 0 && v != r->nnodes - 1)
			return fail(r, "'endthread' node count does not match the nodes read");
		for (int k = 0; k < 4; k++)
			if (strcmp(key, keys[k]) == 0)
				*stat[k] = *stat[k] > UINT64_MAX - v ? UINT64_MAX : *stat[k] + v;
	}
	r->run.threads++;
	r->have_run = 1;
	r->in_thread = 0;
	r->at_node = 0;
	return 0;
}

/* `ended KIND ...`: how the run ended, kept as the collector wrote it. */
static int rec_ended(struct reader *r)
{
	if (r->nfields < 2)
		return fail(r, "'ended' needs a kind");
	const char *kind = r->fields[1];
	if (strcmp(kind, "signal") == 0)
		r->run.flags |= CG_RUN_KILLED;
	else if (strcmp(kind, "snapshot") == 0 || strcmp(kind, "dump") == 0)
		r->run.flags |= CG_RUN_PARTIAL;
	size_t len = 0;
	for (int i = 1; i < r->nfields && len < sizeof r->run.ending - 1; i++)
		len += (size_t)snprintf(r->run.ending + len, sizeof r->run.ending - len, "%s%s",
					i > 1 ? " " : "", r->fields[i]);
	r->have_run = 1;
	return 0;
}

/* ---- lines ---------------------------------------------------------------------- */

static int split(struct reader *r, char *line)
{
	r->nfields = 0;
	for (char *s = line;;) {
		if (r->nfields == MAX_FIELDS)
			return fail(r, "too many fields");
		char *sp = strchr(s, ' ');
		r->fields[r->nfields++] = s;
		if (!sp)
			break;
		*sp = '\0';
		s = sp + 1;
	}
	for (int i = 0; i < r->nfields; i++)
		if (!r->fields[i][0])
			return fail(r, "empty field (fields are separated by one space)");
	return 0;
}

static int record(struct reader *r, char *line)
{
	if (!*line || line[0] == '#')
		return 0;
	int rc = split(r, line);
	if (rc)
		return rc;
	const char *k = r->fields[0];
	if (strcmp(k, "node") == 0)
		return rec_node(r, 0);
	if (strcmp(k, "link") == 0)
		return rec_node(r, 1);
	if (strcmp(k, "at") == 0)
		return rec_at(r);
	if (strcmp(k, "func") == 0)
		return rec_func(r);
	if (strcmp(k, "thread") == 0)
		return rec_thread(r);
	if (strcmp(k, "endthread") == 0)
		return rec_endthread(r);
	if (strcmp(k, "ended") == 0)
		return rec_ended(r);
	if (strcmp(k, "event") == 0)
		return rec_event(r);
	if (strcmp(k, "object") == 0)
		return rec_object(r);
	if (strcmp(k, "noprofile") == 0)
		return rec_noprofile(r);
	if (!strcmp(k, "creator") || !strcmp(k, "pid") || !strcmp(k, "ppid") ||
	    !strcmp(k, "exe") || !strcmp(k, "cmd") || !strcmp(k, "time") || !strcmp(k, "hz") ||
	    !strcmp(k, "forked"))
		return header_meta(r);
	return 0;  /* unknown record: a later minor addition */
}

static int finish(struct reader *r)
{
	if (r->have_run && cg_profile_add_run_info(r->p, &r->run))
		return oom(r);
	size_t nf = cg_profile_function_count(r->p);
	for (size_t i = 0; i < r->nnoprofile; i++)
		for (cg_fid f = 0; f < nf; f++) {
			cg_function *fn = cg_profile_function(r->p, f);
			if (strcmp(fn->name, r->noprofile[i]) == 0)
				fn->flags |= CG_FN_TRANSPARENT;
		}
	int rc = cg_profile_derive_from_tree(r->p, r->err);
	if (rc)
		return rc;
	if (r->unplaced) {
		char v[24];
		snprintf(v, sizeof v, "%llu", (unsigned long long)r->unplaced);
		if (cg_profile_set_meta(r->p, "unplaced", v))
			return oom(r);
	}
	if (!r->nplaced)
		return 0;
	for (size_t i = 0; i < r->nplaced; i++) {
		const struct placed *pd = &r->placed[i];
		cg_position pos = { pd->addr, 0, 0, NULL };
		const char *file = NULL, *func = NULL;
		unsigned line = 0;
		int known = pd->resolved &&
			    cg_objsym_line(r->obj[pd->obj].syms, pd->addr, &file, &line, &func) == 0;
		if (!pd->inside &&
		    (!known || !func || strcmp(func, cg_profile_function(r->p, pd->f)->name) != 0))
			continue;  /* not the function's code: at its own line */
		if (known) {
			pos.line = line;
			pos.file = file;
		}
		if ((rc = cg_pos_add_self_only(r->p, pd->part, pd->f, &pos,
					       r->placed_costs + i * (size_t)r->nevents)))
			return rc == CG_ENOMEM ? oom(r)
					       : cg_error_set(r->err, rc, "%s: positions past 2^63-1",
							      r->name);
	}
	/* Each function's ticks at no known address go to its own line, so
	 * its positions add up to its self cost. */
	for (unsigned part = 0; part < cg_profile_part_count(r->p); part++)
		if ((rc = cg_pos_complete(r->p, part)))
			return rc == CG_ENOMEM ? oom(r)
					       : cg_error_set(r->err, rc, "%s: positions do not add up "
							      "to the self costs", r->name);
	cg_profile_declare_position_kinds(r->p, CG_POS_INSTR | CG_POS_LINE);
	return 0;
}

static void reader_free(struct reader *r)
{
	for (size_t i = 0; i < r->nobj; i++) {
		free(r->obj[i].path);
		cg_objsym_close(r->obj[i].syms);
	}
	for (size_t i = 0; i < r->nnoprofile; i++)
		free(r->noprofile[i]);
	free(r->noprofile);
	free(r->obj);
	free(r->fn);
	free(r->place);
	free(r->placed);
	free(r->placed_costs);
	cg_hashmap_release(&r->placed_index);
	free(r->nodes);
	free(r->path);
}

/* One line of the file (without its '\n', NUL-terminated); *ended is set
 * by the 'end' line.  0 or the error. */
static int handle_line(struct reader *r, char *line, int *ended)
{
	if (*ended)
		return fail(r, "data after 'end'");
	if (r->line == 1) {
		if (strncmp(line, "# cgtree ", 9) != 0)
			return fail(r, "not a cgtree file (no '# cgtree' first line)");
		if (strcmp(line + 9, "1") != 0)
			return failf(r, "unsupported cgtree version '%.20s'", line + 9);
		return 0;
	}
	if (strcmp(line, "end") == 0) {
		*ended = 1;
		return r->in_thread ? fail(r, "'end' inside a thread (missing 'endthread')") : 0;
	}
	return record(r, line);
}

static int finish_read(struct reader *r, int rc, int ended)
{
	if (rc == 0 && r->line == 0)
		rc = cg_error_set(r->err, CG_EFORMAT, "%s: empty file", r->name);
	else if (rc == 0 && !ended)
		rc = cg_error_set(r->err, CG_EFORMAT, "%s:%lu: truncated: no 'end' line", r->name,
				  r->line);
	if (rc == 0)
		rc = finish(r);
	reader_free(r);
	return rc;
}

static void reader_init(struct reader *r, cg_profile *p, const char *name, unsigned flags,
			cg_error *err)
{
	memset(r, 0, sizeof *r);
	r->p = p;
	r->name = name ? name : "<buffer>";
	r->flags = flags;
	r->err = err;
}

int cg_read_cgtree_buffer(cg_profile *p, const char *name, const char *data, size_t len,
			  unsigned flags, cg_error *err)
{
	struct reader r;
	reader_init(&r, p, name, flags, err);
	char *buf = malloc(len + 1);
	if (!buf)
		return cg_error_set(err, CG_ENOMEM, "%s: out of memory", r.name);
	memcpy(buf, data, len);
	buf[len] = '\0';
	int rc = 0, ended = 0;
	size_t pos = 0;
	while (pos < len && rc == 0) {
		r.line++;
		char *line = buf + pos;
		char *nl = memchr(line, '\n', len - pos);
		if (!nl) {
			rc = fail(&r, "truncated: last line has no newline");
			break;
		}
		*nl = '\0';
		pos = (size_t)(nl - buf) + 1;
		if (memchr(line, '\0', (size_t)(nl - line)))
			rc = fail(&r, "NUL byte in a line");
		else
			rc = handle_line(&r, line, &ended);
	}
	free(buf);
	return finish_read(&r, rc, ended);
}

/* Reads the file line by line (bounded memory: a file is never held
 * whole, which for a 2M-node tree was twice its size on top of the
 * model). */
int cg_read_cgtree_stream(cg_profile *p, FILE *in, const char *name, cg_error *err)
{
	struct reader r;
	reader_init(&r, p, name, 0, err);
	cg_line_reader lines;
	cg_line_reader_init(&lines, in, r.name, CG_TEXT_LINE_MAX);
	int rc = 0, ended = 0;
	while (rc == 0) {
		char *line;
		size_t len;
		int got = cg_line_reader_next(&lines, &line, &len, err);
		if (got <= 0) {
			rc = got;
			break;
		}
		r.line++;
		if (lines.unterminated)
			rc = fail(&r, "truncated: last line has no newline");
		else
			rc = handle_line(&r, line, &ended);
	}
	cg_line_reader_release(&lines);
	if (rc) {
		reader_free(&r);
		return rc;
	}
	return finish_read(&r, rc, ended);
}

int cg_read_cgtree(cg_profile *p, const char *path, cg_error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return cg_error_set(err, CG_EIO, "%s: %s", path, strerror(errno));
	int rc = cg_read_cgtree_stream(p, f, path, err);
	fclose(f);
	return rc;
}
