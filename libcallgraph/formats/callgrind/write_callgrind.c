/*
 * write_callgrind.c — Callgrind output for KCachegrind and callgrind_annotate.
 *
 * What the two readers need (docs/formats.md, spec part A): header keys in
 * their order with `positions:` and `event:` before `events:` and
 * `summary:` after it; one function id per (object, file, name); `cob=` and
 * `cfi=` repeated before every `cfn=` whose callee lives elsewhere; call
 * costs that never count recursion twice; no negative numbers and no
 * `calls=0`.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "arc_cost.h"
#include "array.h"
#include "hashmap.h"
#include "jumps.h"
#include "options.h"
#include "positions.h"

/* the demangler lives in the gmon module; without it names stay raw */
#pragma weak cg_demangle

/* Fractional self costs (gprof splits histogram bins between functions)
 * are written in thousandths of the event's unit. */
#define FRACTION_SCALE 1000.0

struct writer {
	const cg_profile *p;
	FILE *out;
	size_t nf, nev;
	double scale[CG_MAX_EVENTS];
	/* event 0 written in microseconds (named "us"): its fractional costs
	 * scaled by unit_seconds * 1e6 instead of 1000, so viewers show a
	 * unit people read rather than thousandths of a sample */
	int event0_in_us;
	/* name compression, restarted for every part (KCachegrind clears its
	 * id tables at each part) */
	struct cg_hashmap ob_ids, fl_ids;
	uint32_t next_ob, next_fl, next_fn;
	uint32_t *fn_ids;     /* nf, 0 = not yet defined */
	int any_object;
	const char *cur_ob, *cur_fl;
	/* positions: the file in force (fl= or the inlined file of fi=/fe=),
	 * and whether cost lines carry an instruction address */
	const char *cur_in;
	int instr;
	int use_pos;          /* this part's positions are written */
	/* the position of the last cost line, which the next one is written
	 * relative to (`+N`, `-N`, `*` as valgrind compresses them); unset
	 * after every fn= line, where positions start absolute again */
	int have_last;
	uint64_t last_addr;
	uint32_t last_line;
	/* the files the current function's block has written a self cost
	 * line in: callgrind_annotate's source annotation takes a file in
	 * which a function only has call lines, or no lines at all (its
	 * costs all in inlined code), for an empty one and prints perl
	 * warnings about it ("Use of uninitialized value"), so every file a
	 * block names gets a self line, zero if need be */
	const char **self_files;
	size_t n_self_files, cap_self_files;
};

static cg_cost clamp(cg_cost c)
{
	return c < 0 ? 0 : c;
}

static cg_cost round_cost(double v)
{
	if (!(v > 0))
		return 0;
	if (v >= 9.2e18)
		return INT64_MAX;
	return (cg_cost)llround(v);
}

/* Names go out on one line with no control characters; an empty name is
 * Callgrind's "unknown". */
static void put_text(FILE *out, const char *s);

/* Header text is cut at HEADER_TEXT_MAX bytes so that `events:` stays
 * within the 2 KiB KCachegrind looks at to recognise the format. */
#define HEADER_TEXT_MAX 200

static void put_text_max(FILE *out, const char *s, size_t max)
{
	char buf[HEADER_TEXT_MAX + 1];
	size_t n = strlen(s);
	if (n > max)
		n = max;
	memcpy(buf, s, n);
	buf[n] = 0;
	put_text(out, buf);
}

static void put_text(FILE *out, const char *s)
{
	if (!s || !*s) {
		fputs("???", out);
		return;
	}
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			putc(c, out);
	}
}

/* `key=(id) name` the first time, `key=(id)` afterwards. */
static int put_compressed(struct writer *w, const char *key, struct cg_hashmap *ids,
			  uint32_t *next, const char *name)
{
	uint32_t id;
	uint64_t k = (uint64_t)(uintptr_t)name;
	if (cg_hashmap_get(ids, k, &id)) {
		fprintf(w->out, "%s=(%" PRIu32 ")\n", key, id);
		return 0;
	}
	id = ++*next;
	if (cg_hashmap_put(ids, k, id))
		return CG_ENOMEM;
	fprintf(w->out, "%s=(%" PRIu32 ") ", key, id);
	put_text(w->out, name);
	putc('\n', w->out);
	return 0;
}

static void put_function(struct writer *w, const char *key, cg_fid f)
{
	const cg_function *fn = cg_profile_function(w->p, f);
	if (w->fn_ids[f]) {
		fprintf(w->out, "%s=(%" PRIu32 ")\n", key, w->fn_ids[f]);
		return;
	}
	w->fn_ids[f] = ++w->next_fn;
	fprintf(w->out, "%s=(%" PRIu32 ") ", key, w->fn_ids[f]);
	/* gmon names are raw symbols; Callgrind shows what people read */
	char *dem = cg_demangle ? cg_demangle(fn->name) : NULL;
	put_text(w->out, dem ? dem : fn->name);
	free(dem);
	putc('\n', w->out);
}

/* The position columns of a cost line or a calls= target. */
static void put_position(struct writer *w, uint64_t addr, uint32_t line)
{
	if (w->instr)
		fprintf(w->out, "0x%" PRIx64 " ", addr);
	fprintf(w->out, "%" PRIu32, line);
}

/* One column of a cost line's position: `*` for the same value, else the
 * difference, signed (absolute when there is nothing to compare with). */
static void put_relative(struct writer *w, uint64_t v, uint64_t last, int hex)
{
	if (!w->have_last)
		fprintf(w->out, hex ? "0x%" PRIx64 : "%" PRIu64, v);
	else if (v == last)
		putc('*', w->out);
	else if (v > last)
		fprintf(w->out, "+%" PRIu64, v - last);
	else
		fprintf(w->out, "-%" PRIu64, last - v);
}

static void put_costs_at(struct writer *w, uint64_t addr, uint32_t line, const cg_cost *c)
{
	if (w->instr) {
		put_relative(w, addr, w->last_addr, 1);
		putc(' ', w->out);
	}
	put_relative(w, line, w->last_line, 0);
	w->have_last = 1;
	w->last_addr = addr;
	w->last_line = line;
	/* trailing zeros may be left out; keep at least one number */
	size_t n = w->nev;
	while (n > 1 && c[n - 1] == 0)
		n--;
	for (size_t e = 0; e < n; e++)
		fprintf(w->out, " %" PRId64, c[e]);
	putc('\n', w->out);
}

/* Makes `file` (NULL: the function's own, cur_fl) the file in force:
 * fi= into inlined code, fe= back.  callgrind_annotate names the
 * function after the file in force, KCachegrind puts the lines there. */
static int switch_file(struct writer *w, const char *file)
{
	const char *want = file ? file : w->cur_fl;
	if (want == w->cur_in)
		return 0;
	int rc = put_compressed(w, want == w->cur_fl ? "fe" : "fi", &w->fl_ids, &w->next_fl, want);
	w->cur_in = want;
	return rc;
}

/* Whether the file in force has a self line of this block (self_files). */
static int has_self_line(const struct writer *w)
{
	for (size_t i = 0; i < w->n_self_files; i++)
		if (w->self_files[i] == w->cur_in)
			return 1;
	return 0;
}

/* A self cost line at a position of the file in force, noted as that
 * file's self line in this block. */
static int put_self_at(struct writer *w, uint64_t addr, uint32_t line, const cg_cost *c)
{
	put_costs_at(w, addr, line, c);
	if (has_self_line(w))
		return 0;
	if (cg_array_grow((void **)&w->self_files, &w->cap_self_files, w->n_self_files + 1,
			  sizeof *w->self_files, 8))
		return CG_ENOMEM;
	w->self_files[w->n_self_files++] = w->cur_in;
	return 0;
}

/* A zero self line at addr/line when the file in force has none yet in
 * this block (a call made from inlined code that has no cost of its
 * own): see self_files.  "???" is never annotated. */
static int put_self_line_if_none(struct writer *w, uint64_t addr, uint32_t line)
{
	if (has_self_line(w) || !strcmp(w->cur_in, "???"))
		return 0;
	const cg_cost zero[CG_MAX_EVENTS] = { 0 };
	return put_self_at(w, addr, line, zero);
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* One call: cob=/cfi= when the callee lives elsewhere than the object
 * and file in force, cfn=, calls= with the callee's position, and the
 * cost line at the call site. */
static int put_call(struct writer *w, const cg_arc *a, uint64_t addr, uint32_t line,
		    uint64_t count, const cg_cost *costs)
{
	const cg_function *callee = cg_profile_function(w->p, a->callee);
	const char *cob = callee->object ? callee->object : "???";
	const char *cfl = callee->file ? callee->file : "???";
	int rc;
	if (w->any_object && cob != w->cur_ob &&
	    (rc = put_compressed(w, "cob", &w->ob_ids, &w->next_ob, cob)))
		return rc;
	if (cfl != w->cur_in && (rc = put_compressed(w, "cfi", &w->fl_ids, &w->next_fl, cfl)))
		return rc;
	put_function(w, "cfn", a->callee);
	/* calls=0 would make callgrind_annotate add the cost to the
	 * caller's self cost: a costed call with no count is written as one
	 * call */
	fprintf(w->out, "calls=%" PRIu64 " ", count ? count : 1);
	put_position(w, callee->flags & CG_FN_HAS_ADDR ? callee->addr : 0, callee->line);
	putc('\n', w->out);
	put_costs_at(w, addr, line, costs);
	return 0;
}

/* One jump of function f as valgrind writes it: jfi=/jfn= when the target
 * lies outside the file and function in force, `jump=COUNT TARGET` or
 * `jcnd=FOLLOWED/EXECUTED TARGET` with the target relative to the last
 * position (which it does not move), then the jump's own position line,
 * relative too, which does. */
static int put_jump(struct writer *w, cg_fid f, const cg_jump *j)
{
	int rc = switch_file(w, j->at.file);
	if (rc)
		return rc;
	const cg_function *to = cg_profile_function(w->p, j->to);
	const char *tfile = j->target.file ? j->target.file : to->file ? to->file : "???";
	if (tfile != w->cur_in && (rc = put_compressed(w, "jfi", &w->fl_ids, &w->next_fl, tfile)))
		return rc;
	if (j->to != f)
		put_function(w, "jfn", j->to);
	if (j->conditional)
		fprintf(w->out, "jcnd=%" PRIu64 "/%" PRIu64 " ", j->followed, j->executed);
	else
		fprintf(w->out, "jump=%" PRIu64 " ", j->followed);
	if (w->instr) {
		put_relative(w, j->target.addr, w->last_addr, 1);
		putc(' ', w->out);
	}
	put_relative(w, j->target.line, w->last_line, 0);
	putc('\n', w->out);
	if (w->instr) {
		put_relative(w, j->at.addr, w->last_addr, 1);
		putc(' ', w->out);
	}
	put_relative(w, j->at.line, w->last_line, 0);
	putc('\n', w->out);
	w->have_last = 1;
	w->last_addr = j->at.addr;
	w->last_line = j->at.line;
	return 0;
}

/* Integer parts of `total` for n shares v[0..n) (already in the written
 * unit): floors, then the units left to the largest fractions (ties:
 * the earlier share), or taken back from the smallest when floating
 * point put the floors past the total. */
static void split_total(cg_cost total, const double *v, size_t n, cg_cost *out)
{
	cg_cost left = total;
	for (size_t i = 0; i < n; i++) {
		out[i] = v[i] > 0 ? round_cost(floor(v[i])) : 0;
		left -= out[i];
	}
	while (left != 0) {
		size_t best = n;
		double best_frac = 0;
		for (size_t i = 0; i < n; i++) {
			double frac = v[i] > 0 ? v[i] - (double)out[i] : 0;
			if (left > 0 ? frac > 0 && (best == n || frac > best_frac)
				     : out[i] > 0 && (best == n || frac < best_frac)) {
				best = i;
				best_frac = frac;
			}
		}
		if (best == n) {
			/* no share to round: the first takes what is left */
			if (n && (left > 0 || out[0] + left >= 0))
				out[0] += left;
			return;
		}
		out[best] += left > 0 ? 1 : -1;
		left += left > 0 ? -1 : 1;
	}
}

/* f's self cost per position in the written units.  Scaled events
 * (fractional exact costs, e.g. gmon's microseconds) take each
 * position's exact share where the input gave one, and are rounded so
 * that the positions add up to what the function line would say (`s`). */
static int put_self_positions(struct writer *w, unsigned part, cg_fid f, const cg_cost *s,
			      int *any)
{
	const cg_profile *p = w->p;
	const cg_function *fn = cg_profile_function(p, f);
	int exact = cg_profile_has_self_exact(p, part);
	size_t n = 0, cursor = 0;
	int in_own_file = 0;
	cg_position at;
	const cg_cost *pc;
	double ex;
	*any = 0;
	while (cg_pos_next_self_exact(p, part, f, &cursor, &at, &pc, &ex)) {
		n++;
		in_own_file |= !at.file || at.file == fn->file;
	}
	if (!n)
		return 0;
	double *v = malloc(n * sizeof *v);
	cg_cost *out = malloc(n * w->nev * sizeof *out), *col = malloc(n * sizeof *col);
	int rc = CG_ENOMEM;
	if (!v || !out || !col)
		goto done;
	for (size_t e = 0; e < w->nev; e++) {
		int scaled = w->scale[e] != 1.0 || (e == 0 && exact);
		size_t i = 0;
		cursor = 0;
		while (cg_pos_next_self_exact(p, part, f, &cursor, &at, &pc, &ex)) {
			double x = e == 0 && !isnan(ex) ? ex : (double)pc[e];
			v[i] = x * w->scale[e];
			out[i * w->nev + e] = clamp(pc[e]);
			i++;
		}
		if (!scaled)
			continue;
		split_total(s[e], v, n, col);
		for (i = 0; i < n; i++)
			out[i * w->nev + e] = col[i];
	}
	/* all of f's cost in inlined code (a few samples that all fell in
	 * a header's lines): its own file gets a zero line at f's entry, as
	 * a function without positions does, before the fi= lines */
	if (!in_own_file && fn->file) {
		const cg_cost zero[CG_MAX_EVENTS] = { 0 };
		if ((rc = put_self_at(w, fn->flags & CG_FN_HAS_ADDR ? fn->addr : 0, fn->line, zero)))
			goto done;
	}
	size_t i = 0;
	cursor = 0;
	while (cg_pos_next_self_exact(p, part, f, &cursor, &at, &pc, &ex)) {
		if ((rc = switch_file(w, at.file)) ||
		    (rc = put_self_at(w, at.addr, at.line, out + i * w->nev)))
			goto done;
		i++;
	}
	*any = 1;
	rc = 0;
done:
	free(v);
	free(out);
	free(col);
	return rc;
}

/* The calls of arc i per call site.  An arc whose inclusive cost the
 * writer computed (gprof's propagation: the input knows no call costs)
 * shares that cost between its sites by their call counts, as the
 * propagation shares a callee's time between its callers. */
static int put_call_sites(struct writer *w, unsigned part, size_t i, const cg_cost *call_cost,
			  int *any)
{
	const cg_profile *p = w->p;
	const cg_arc *a = cg_profile_arc(p, part, i);
	size_t n = 0, cursor = 0;
	cg_position site;
	uint64_t count;
	const cg_cost *incl;
	*any = 0;
	while (cg_profile_next_arc_site(p, part, i, &cursor, &site, &count, &incl))
		n++;
	if (!n)
		return 0;
	int unscaled = 1;
	for (size_t e = 0; e < w->nev; e++)
		unscaled &= w->scale[e] == 1.0;
	if (a->inclusive && unscaled) {
		cursor = 0;
		while (cg_profile_next_arc_site(p, part, i, &cursor, &site, &count, &incl)) {
			int rc = switch_file(w, site.file);
			if (rc || (rc = put_self_line_if_none(w, site.addr, site.line)) ||
			    (rc = put_call(w, a, site.addr, site.line, count, incl)))
				return rc;
		}
		*any = 1;
		return 0;
	}
	double *v = malloc(n * sizeof *v);
	cg_cost *out = malloc(n * w->nev * sizeof *out), *col = malloc(n * sizeof *col);
	int rc = CG_ENOMEM;
	if (!v || !out || !col)
		goto done;
	for (size_t e = 0; e < w->nev; e++) {
		size_t k = 0;
		cursor = 0;
		while (cg_profile_next_arc_site(p, part, i, &cursor, &site, &count, &incl))
			v[k++] = a->inclusive && a->inclusive[e] > 0
					 ? (double)call_cost[e] * (double)incl[e] / (double)a->inclusive[e]
				 : a->count ? (double)call_cost[e] * (double)count / (double)a->count
					    : (double)call_cost[e] / (double)n;
		split_total(call_cost[e], v, n, col);
		for (k = 0; k < n; k++)
			out[k * w->nev + e] = col[k];
	}
	size_t k = 0;
	cursor = 0;
	while (cg_profile_next_arc_site(p, part, i, &cursor, &site, &count, &incl)) {
		if ((rc = switch_file(w, site.file)) ||
		    (rc = put_self_line_if_none(w, site.addr, site.line)) ||
		    (rc = put_call(w, a, site.addr, site.line, count, out + k * w->nev)))
			goto done;
		k++;
	}
	*any = 1;
	rc = 0;
done:
	free(v);
	free(out);
	free(col);
	return rc;
}

/* Integer self costs of a part in the written units.  A scaled event is
 * rounded by largest remainder, so the written total is the rounded
 * exact total. */
static int part_self(struct writer *w, unsigned part, cg_cost *self, double *dself)
{
	const cg_profile *p = w->p;
	int exact = cg_profile_has_self_exact(p, part);
	for (size_t f = 0; f < w->nf; f++) {
		const cg_cost *s = cg_profile_self(p, part, (cg_fid)f);
		for (size_t e = 0; e < w->nev; e++) {
			double v = (e == 0 && exact) ? cg_profile_self_exact(p, part, (cg_fid)f)
						     : (double)s[e];
			dself[f * w->nev + e] = v > 0 ? v * w->scale[e] : 0;
			self[f * w->nev + e] = w->scale[e] == 1.0 && !(e == 0 && exact)
				? clamp(s[e]) : 0;
		}
	}
	for (size_t e = 0; e < w->nev; e++) {
		if (w->scale[e] == 1.0 && !(e == 0 && exact))
			continue;
		double sum = 0, floors = 0;
		for (size_t f = 0; f < w->nf; f++) {
			double v = dself[f * w->nev + e];
			sum += v;
			self[f * w->nev + e] = (cg_cost)floor(v);
			floors += floor(v);
		}
		double left = llround(sum) - floors;
		if (left <= 0)
			continue;
		/* hand the remaining units to the largest fractions (ties: lower
		 * function number) */
		size_t *order = malloc((w->nf ? w->nf : 1) * sizeof *order);
		if (!order)
			return CG_ENOMEM;
		size_t n = 0;
		for (size_t f = 0; f < w->nf; f++)
			if (dself[f * w->nev + e] - floor(dself[f * w->nev + e]) > 0)
				order[n++] = f;
		for (size_t i = 1; i < n; i++) {  /* insertion sort is fine: few */
			size_t x = order[i], j = i;
			double fx = dself[x * w->nev + e] - floor(dself[x * w->nev + e]);
			while (j > 0) {
				size_t y = order[j - 1];
				double fy = dself[y * w->nev + e] - floor(dself[y * w->nev + e]);
				if (fy > fx || (fy == fx && y < x))
					break;
				order[j] = y;
				j--;
			}
			order[j] = x;
		}
		for (size_t i = 0; i < n && left > 0; i++, left--)
			self[order[i] * w->nev + e]++;
		free(order);
	}
	return 0;
}

/* The name event e is written under. */
static const char *event_name(const struct writer *w, size_t e)
{
	return e == 0 && w->event0_in_us ? "us" : cg_profile_event(w->p, e)->name;
}

static void put_header_events(struct writer *w, const cg_cost *totals, int first)
{
	const cg_profile *p = w->p;
	/* a reader starts each part with line positions: say it again in
	 * later parts when they carry addresses */
	if (!first && w->instr)
		fputs("positions: instr line\n", w->out);
	if (first) {
		fputs(w->instr ? "positions: instr line\n" : "positions: line\n", w->out);
		for (size_t e = 0; e < w->nev; e++) {
			const cg_event *ev = cg_profile_event(p, e);
			fprintf(w->out, "event: %s : ", event_name(w, e));
			put_text_max(w->out, ev->description && *ev->description ? ev->description
										 : ev->name, 60);
			if (e == 0 && w->event0_in_us)
				fprintf(w->out, " in microseconds");
			else if (w->scale[e] != 1.0)
				fprintf(w->out, " (thousandths)");
			if (ev->unit_seconds > 0)
				fprintf(w->out, " [1 = %.6g s]", ev->unit_seconds / w->scale[e]);
			putc('\n', w->out);
		}
	}
	fputs("events:", w->out);
	for (size_t e = 0; e < w->nev; e++)
		fprintf(w->out, " %s", event_name(w, e));
	fputs("\nsummary:", w->out);
	for (size_t e = 0; e < w->nev; e++)
		fprintf(w->out, " %" PRId64, totals[e]);
	fputs("\n\n", w->out);
}

/* The collector's overhead ticks in the first event's unit, when that
 * event counts the collector's ticks (cpu or wall time: one unit per
 * tick); 0 otherwise. */
static cg_cost overhead_cost(const struct writer *w)
{
	const cg_run_info *run = cg_profile_run_info(w->p);
	if (!run || !run->overhead || !run->samples || w->nev == 0 ||
	    !(cg_profile_event(w->p, 0)->unit_seconds > 0))
		return 0;
	return round_cost((double)run->overhead * w->scale[0]);
}


static uint32_t arc_owner(const cg_profile *p, unsigned part, size_t i)
{
	return cg_profile_arc(p, part, i)->caller;
}

static uint32_t jump_owner(const cg_profile *p, unsigned part, size_t i)
{
	return cg_jump_at(p, part, i)->from;
}

/* Items 0..n grouped by their function, each group in model order:
 * order[first[f] .. first[f + 1]) are function f's (first: nf + 1
 * zeroed entries, order: n). */
static int group_by_function(const cg_profile *p, unsigned part, size_t nf, size_t n,
			     uint32_t (*owner)(const cg_profile *, unsigned, size_t),
			     uint32_t *first, uint32_t *order)
{
	uint32_t *fill = malloc((nf + 1) * sizeof *fill);
	if (!fill)
		return CG_ENOMEM;
	for (size_t i = 0; i < n; i++)
		first[owner(p, part, i) + 1]++;
	for (size_t f = 0; f < nf; f++)
		first[f + 1] += first[f];
	memcpy(fill, first, (nf + 1) * sizeof *fill);
	for (size_t i = 0; i < n; i++)
		order[fill[owner(p, part, i)]++] = (uint32_t)i;
	free(fill);
	return 0;
}

static int write_part(struct writer *w, const cg_profile *p, unsigned part, unsigned number)
{
	size_t nf = w->nf, nev = w->nev, na = cg_profile_arc_count(p, part);
	cg_cost *self = calloc((nf ? nf : 1) * nev, sizeof *self);
	double *dself = calloc((nf ? nf : 1) * nev, sizeof *dself);
	double *arc_incl = calloc((na ? na : 1) * nev, sizeof *arc_incl);
	uint32_t *first = calloc(nf + 1, sizeof *first);
	uint32_t *order = malloc((na ? na : 1) * sizeof *order);
	uint64_t *fn_order = NULL;
	size_t nj = cg_jump_count(p, part);
	/* jumps grouped by function, as the arcs by caller */
	uint32_t *jfirst = calloc(nf + 1, sizeof *jfirst);
	uint32_t *jorder = malloc((nj ? nj : 1) * sizeof *jorder);
	int rc = CG_ENOMEM;
	if (!self || !dself || !arc_incl || !first || !order || !jfirst || !jorder)
		goto out;
	if (group_by_function(p, part, nf, nj, jump_owner, jfirst, jorder))
		goto out;
	if (part_self(w, part, self, dself) ||
	    cg_graph_arc_costs(p, part, dself, w->scale, arc_incl))
		goto out;
	/* arcs grouped by caller, in their model order */
	if (group_by_function(p, part, nf, na, arc_owner, first, order))
		goto out;

	/* positions are written in the file's units: only where those are
	 * the model's (no fractional exact costs to round) */
	w->use_pos = cg_profile_has_positions(p, part);
	cg_cost totals[CG_MAX_EVENTS] = { 0 };
	for (size_t f = 0; f < nf; f++)
		for (size_t e = 0; e < nev; e++)
			totals[e] += self[f * nev + e];
	/* The collector's own ticks, as a function of their own in the first
	 * part, so that KCachegrind's total is the CPU the run really used
	 * and the distortion is visible where people look. */
	cg_cost overhead = number == 1 ? overhead_cost(w) : 0;
	totals[0] += overhead;

	if (number > 1)
		fputs("\n", w->out);
	fprintf(w->out, "part: %u\n", number);
	const char *pname = cg_profile_part_name(p, part);
	if (pname && *pname) {
		fputs("desc: Part: ", w->out);
		put_text_max(w->out, pname, HEADER_TEXT_MAX);
		putc('\n', w->out);
	}
	put_header_events(w, totals, number == 1);

	cg_hashmap_release(&w->ob_ids);
	cg_hashmap_release(&w->fl_ids);
	memset(w->fn_ids, 0, (nf ? nf : 1) * sizeof *w->fn_ids);
	w->next_ob = w->next_fl = w->next_fn = 0;
	w->cur_ob = w->cur_fl = NULL;
	int have_cur = 0;

	/* With positions, functions come in the order of their first cost
	 * in the input: callgrind_annotate shows the calls made at a source
	 * line from the first function it saw calling there (recursion
	 * levels such as f and f'2 share lines), so the order is part of
	 * what it reports. */
	if (w->use_pos) {
		/* rank << 32 | function: sorting the keys sorts by rank, ties
		 * by function number */
		if (!(fn_order = malloc((nf ? nf : 1) * sizeof *fn_order)))
			goto out;
		for (size_t f = 0; f < nf; f++)
			fn_order[f] = (uint64_t)cg_pos_first_rank(p, part, (cg_fid)f) << 32 | f;
		qsort(fn_order, nf, sizeof *fn_order, by_u64);
	}
	cg_cost call_cost[CG_MAX_EVENTS];
	for (size_t fi = 0; fi < nf; fi++) {
		size_t f = fn_order ? (uint32_t)fn_order[fi] : fi;
		const cg_cost *s = self + f * nev;
		int has_self = 0, has_calls = 0;
		for (size_t e = 0; e < nev; e++)
			has_self |= s[e] != 0;
		for (uint32_t k = first[f]; k < first[f + 1]; k++) {
			const cg_arc *a = cg_profile_arc(p, part, order[k]);
			int cost = 0;
			for (size_t e = 0; e < nev; e++)
				cost |= round_cost(arc_incl[(size_t)order[k] * nev + e]) != 0;
			has_calls |= a->count != 0 || cost;
		}
		if (!has_self && !has_calls && jfirst[f] == jfirst[f + 1])
			continue;
		const cg_function *fn = cg_profile_function(p, (cg_fid)f);
		const char *fob = fn->object ? fn->object : "???";
		const char *ffl = fn->file ? fn->file : "???";
		if (w->any_object && (!have_cur || w->cur_ob != fob)) {
			if ((rc = put_compressed(w, "ob", &w->ob_ids, &w->next_ob, fob)))
				goto out;
			w->cur_ob = fob;
		}
		if (!have_cur || w->cur_fl != ffl) {
			if ((rc = put_compressed(w, "fl", &w->fl_ids, &w->next_fl, ffl)))
				goto out;
			w->cur_fl = ffl;
		}
		have_cur = 1;
		put_function(w, "fn", (cg_fid)f);
		w->have_last = 0;
		w->cur_in = w->cur_fl;
		w->n_self_files = 0;
		/* a self line even when it is zero: callgrind_annotate's
		 * source annotation warns about files with call lines only */
		int any_pos = 0;
		if (w->use_pos && (rc = put_self_positions(w, part, (cg_fid)f, s, &any_pos)))
			goto out;
		/* without a position of its own, a cost or a call sits at the
		 * function's first instruction, not at address 0: KCachegrind's
		 * machine code view lists it there */
		uint64_t entry = fn->flags & CG_FN_HAS_ADDR ? fn->addr : 0;
		if (!any_pos && (rc = put_self_at(w, entry, fn->line, s)))
			goto out;
		for (uint32_t k = first[f]; k < first[f + 1]; k++) {
			uint32_t i = order[k];
			const cg_arc *a = cg_profile_arc(p, part, i);
			int cost = 0;
			for (size_t e = 0; e < nev; e++) {
				if (a->inclusive && w->scale[e] == 1.0)
					call_cost[e] = clamp(a->inclusive[e]);
				else
					call_cost[e] = round_cost(arc_incl[(size_t)i * nev + e]);
				cost |= call_cost[e] != 0;
			}
			if (a->count == 0 && !cost)
				continue;
			int any_site = 0;
			if (w->use_pos && (rc = put_call_sites(w, part, i, call_cost, &any_site)))
				goto out;
			/* a call without a site of its own is at the function's
			 * line, in its own file (the last self line may have
			 * left an inlined file in force) */
			if (!any_site && ((rc = switch_file(w, NULL)) ||
					  (rc = put_call(w, a, entry, a->line ? a->line : fn->line,
							 a->count, call_cost))))
				goto out;
		}
		for (uint32_t k = jfirst[f]; k < jfirst[f + 1]; k++)
			if ((rc = put_jump(w, (cg_fid)f, cg_jump_at(p, part, jorder[k]))))
				goto out;
		/* back to the function's file: callgrind_annotate keeps the
		 * file in force across fn= lines */
		if ((rc = switch_file(w, NULL)))
			goto out;
		putc('\n', w->out);
	}
	if (overhead) {
		fputs("fl=(collector)\nfn=(collector overhead)\n", w->out);
		put_position(w, 0, 0);
		for (size_t e = 0; e < nev; e++)
			fprintf(w->out, " %" PRId64, e == 0 ? overhead : 0);
		fputs("\n\n", w->out);
	}
	fputs("totals:", w->out);
	for (size_t e = 0; e < nev; e++)
		fprintf(w->out, " %" PRId64, totals[e]);
	putc('\n', w->out);
	rc = 0;
out:
	free(self);
	free(dself);
	free(arc_incl);
	free(first);
	free(order);
	free(fn_order);
	free(jfirst);
	free(jorder);
	return rc;
}

/* An event needs the finer unit when some part has fractional exact self
 * costs for it. */
static void choose_scales(struct writer *w, const cg_profile *p)
{
	for (size_t e = 0; e < w->nev; e++)
		w->scale[e] = 1.0;
	if (!w->nev)
		return;
	for (unsigned part = 0; part < cg_profile_part_count(p); part++) {
		if (!cg_profile_has_self_exact(p, part))
			continue;
		for (size_t f = 0; f < w->nf; f++) {
			double v = cg_profile_self_exact(p, part, (cg_fid)f);
			if (v != floor(v)) {
				/* a time event whose unit is a whole number of
				 * microseconds (gprof's 100 Hz: 10000) at least as fine
				 * as thousandths: write microseconds */
				double us = cg_profile_event(p, 0)->unit_seconds * 1e6;
				w->event0_in_us = us >= FRACTION_SCALE && us == floor(us) && us < 1e12;
				w->scale[0] = w->event0_in_us ? us : FRACTION_SCALE;
				return;
			}
		}
	}
}

static void put_header(struct writer *w, const cg_profile *p)
{
	fputs("# callgrind format\nversion: 1\n", w->out);
	fprintf(w->out, "creator: libcallgraph %s", cg_version());
	const char *creator = cg_profile_meta(p, "creator");
	if (creator) {
		fputs(" (from ", w->out);
		put_text_max(w->out, creator, HEADER_TEXT_MAX);
		putc(')', w->out);
	}
	putc('\n', w->out);
	const char *pid = cg_profile_meta(p, "pid");
	if (pid) {
		char *end;
		unsigned long long v = strtoull(pid, &end, 10);
		if (*pid && !*end)
			fprintf(w->out, "pid: %llu\n", v);
	}
	const char *cmd = cg_profile_meta(p, "cmd");
	if (!cmd)
		cmd = cg_profile_meta(p, "executable");
	if (cmd) {
		fputs("cmd: ", w->out);
		put_text_max(w->out, cmd, HEADER_TEXT_MAX);
		putc('\n', w->out);
	}
	/* the input's own description lines (valgrind's cache geometry,
	 * time range, trigger), kept by the reader as "desc: KEY" metadata */
	for (size_t i = 0; i < cg_profile_meta_count(p); i++) {
		const char *k, *v;
		cg_profile_meta_at(p, i, &k, &v);
		if (strncmp(k, "desc: ", 6) != 0 || !k[6])
			continue;
		fputs("desc: ", w->out);
		put_text_max(w->out, k + 6, HEADER_TEXT_MAX);
		if (k[strlen(k) - 1] == ':') {
			putc(' ', w->out);
			if (v && *v)
				put_text_max(w->out, v, HEADER_TEXT_MAX);
		}
		putc('\n', w->out);
	}	const cg_run_info *run = cg_profile_run_info(p);
	if (run) {
		char line[512];
		cg_run_info_format(run, line, sizeof line);
		fputs("# ", w->out);
		put_text(w->out, line);
		putc('\n', w->out);
	}
}

int cg_write_callgrind(const cg_profile *profile, FILE *out, const cg_callgrind_options *opts,
		       cg_error *err)
{
	if (CG_CHECK_OPTIONS(opts, CG_CALLGRIND_OPTIONS_VERSION, "cg_callgrind_options", err))
		return CG_EUSAGE;
	cg_profile *merged = NULL;
	const cg_profile *p = profile;
	if (cg_profile_event_count(profile) == 0)
		return cg_error_set(err, CG_EUSAGE, "callgrind: the profile has no events");
	if (opts && opts->merge_parts && cg_profile_part_count(profile) > 1) {
		int rc = cg_profile_merge_parts(&merged, profile, err);
		if (rc)
			return rc;
		p = merged;
	}
	struct writer w = { 0 };
	w.p = p;
	w.out = out;
	w.nf = cg_profile_function_count(p);
	w.nev = cg_profile_event_count(p);
	w.fn_ids = calloc(w.nf ? w.nf : 1, sizeof *w.fn_ids);
	int rc = CG_ENOMEM;
	if (!w.fn_ids)
		goto out;
	for (size_t f = 0; f < w.nf; f++)
		if (cg_profile_function(p, (cg_fid)f)->object)
			w.any_object = 1;
	choose_scales(&w, p);
	w.instr = (cg_profile_position_kinds(p) & CG_POS_INSTR) != 0;
	put_header(&w, p);
	for (unsigned part = 0; part < cg_profile_part_count(p); part++)
		if ((rc = write_part(&w, p, part, part + 1)))
			goto out;
	rc = ferror(out) ? CG_EIO : 0;
out:
	free(w.fn_ids);
	free(w.self_files);
	cg_hashmap_release(&w.ob_ids);
	cg_hashmap_release(&w.fl_ids);
	cg_profile_free(merged);
	if (rc == CG_ENOMEM)
		return cg_error_set(err, rc, "callgrind: out of memory");
	if (rc == CG_EIO)
		return cg_error_set(err, rc, "callgrind: write error");
	return rc;
}
