/*
 * diff_svg.c — the diff as a differential flame graph: one self-contained
 * SVG file (no script, nothing fetched), drawn with the same boxes as
 * cgconvert's flame graph (core/flame_svg).
 *
 * The picture is the NEW profile's flame graph: each box is a calling
 * context (the path of functions from the outermost call), as wide as its
 * inclusive cost in NEW.  Contexts of the two sides are matched through
 * the diff's function items, so renames, --ignore-object and the source
 * root apply as everywhere else in the diff.  A box's colour is the
 * change of its own (self) cost in that context: red grew, blue shrank,
 * the deeper the larger the ratio (full at twice or half); grey when
 * unchanged (or, for a single sampled run on each side, within the
 * Poisson noise z*sqrt(base+new)).  Colouring by self cost points at the
 * function whose own work changed, not at every caller above it.  A
 * context NEW has and BASE has not gets a dashed outline; contexts only
 * BASE has cannot have a width in NEW, so they are named in their
 * parent's tooltip and the functions gone altogether in the header.
 *
 * When a part of either profile has cost but no call tree (gmon.out,
 * Callgrind: arcs only), paths are unknown: every function becomes one
 * box on the bottom row, as wide as its self cost in NEW, from the diff's
 * own per-function values.  Repeated runs: each context's value is the
 * mean over a side's runs.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "diff_internal.h"
#include "flame_svg.h"

/* the demangler lives in the gmon module; without it names stay raw */
#pragma weak cg_demangle

#define TOP_SPACE 110.0     /* title, subtitle, legend, gone and new functions */
#define MAX_GONE_NAMED 5    /* removed calls named in one tooltip */

struct ctx {
	uint32_t item;          /* function item; UINT32_MAX for the root */
	uint32_t parent;
	uint32_t first_child, next_sibling;
	double self[2], incl[2];    /* per side (0 base, 1 new), mean over runs */
	unsigned char present[2];   /* the context exists in that profile */
	unsigned depth;
	double start;           /* in NEW's cost units from the left edge */
};

struct picture {
	const cg_diff *d;
	size_t event;
	struct ctx *v;
	size_t n, cap;
	struct cg_hashmap index;    /* parent<<32 | item -> context */
	char **label;               /* per item, demangled, for humans */
	int flat;                   /* no call tree: one row of functions */
};

static int get_child(struct picture *pc, uint32_t parent, uint32_t item, uint32_t *out)
{
	uint64_t key = (uint64_t)parent << 32 | item;
	if (cg_hashmap_get(&pc->index, key, out))
		return 0;
	if (cg_array_grow((void **)&pc->v, &pc->cap, pc->n + 1, sizeof *pc->v, 256))
		return CG_ENOMEM;
	uint32_t c = (uint32_t)pc->n++;
	pc->v[c] = (struct ctx){ .item = item, .parent = parent, .first_child = UINT32_MAX,
				 .next_sibling = pc->v[parent].first_child,
				 .depth = pc->v[parent].depth + 1 };
	pc->v[parent].first_child = c;
	*out = c;
	return cg_hashmap_put(&pc->index, key, c);
}

/* 1 when some part of some run has cost in the event but no call tree. */
static int lacks_tree(const cg_diff *d, size_t event)
{
	for (int s = 0; s < 2; s++)
		for (size_t r = 0; r < d->nruns[s]; r++) {
			const struct diff_side *side = cg_diff_run_side(d, s, r);
			unsigned np = (unsigned)cg_profile_part_count(side->p);
			for (unsigned part = 0; part < np; part++) {
				if (cg_profile_node_count(side->p, part) > 1)
					continue;
				cg_cost totals[CG_MAX_EVENTS];
				cg_profile_part_totals(side->p, part, totals);
				if (totals[side->ev[event]] != 0)
					return 1;
			}
		}
	return 0;
}

/* Every context of every part of one run of one side, its self cost
 * weighted by `weight` (1 / the side's runs). */
static int add_run(struct picture *pc, int s, const struct diff_side *side, double weight)
{
	int ev = side->ev[pc->event];
	unsigned np = (unsigned)cg_profile_part_count(side->p);
	for (unsigned part = 0; part < np; part++) {
		size_t nn = cg_profile_node_count(side->p, part);
		if (nn < 2)
			continue;
		uint32_t *at = malloc(nn * sizeof *at);
		if (!at)
			return CG_ENOMEM;
		at[0] = 0;
		for (size_t n = 1; n < nn; n++) {
			const cg_node *node = cg_profile_node(side->p, part, (cg_nid)n);
			/* a parent is always added before its children */
			uint32_t parent = node->parent < n ? at[node->parent] : 0;
			uint32_t c;
			if (node->func >= cg_profile_function_count(side->p)) {
				at[n] = parent;     /* no function: its calls count from the parent */
				continue;
			}
			if (get_child(pc, parent, side->item_of[node->func], &c)) {
				free(at);
				return CG_ENOMEM;
			}
			at[n] = c;
			pc->v[c].self[s] += (double)node->self[ev] * weight;
			pc->v[c].present[s] = 1;
		}
		free(at);
	}
	return 0;
}

/* No tree: one context per function under the root, from the diff's
 * values (medians when there are repeated runs). */
static int add_functions(struct picture *pc)
{
	const cg_diff *d = pc->d;
	for (size_t i = 0; i < d->nfuncs; i++) {
		cg_diff_value v;
		cg_diff_value_get(d, 0, CG_DIFF_SELF, i, pc->event, &v);
		if (!v.base && !v.new_value)
			continue;
		uint32_t c;
		if (get_child(pc, 0, (uint32_t)i, &c))
			return CG_ENOMEM;
		pc->v[c].self[0] = (double)v.base;
		pc->v[c].self[1] = (double)v.new_value;
		pc->v[c].present[0] = d->funcs[i].in_base;
		pc->v[c].present[1] = d->funcs[i].in_new;
	}
	return 0;
}

static int cmp_label(const void *a, const void *b, void *arg)
{
	const struct picture *pc = arg;
	const struct ctx *x = &pc->v[*(const uint32_t *)a], *y = &pc->v[*(const uint32_t *)b];
	int c = strcmp(pc->label[x->item], pc->label[y->item]);
	return c ? c : (x->item > y->item) - (x->item < y->item);
}

/* Inclusive costs (children come after their parents), then each
 * context's children in name order, laid out from the parent's left edge
 * as flamegraph.pl does. */
static int lay_out(struct picture *pc)
{
	for (size_t c = pc->n; c-- > 1;) {
		struct ctx *x = &pc->v[c];
		for (int s = 0; s < 2; s++) {
			x->incl[s] += x->self[s];
			pc->v[x->parent].incl[s] += x->incl[s];
		}
	}
	pc->v[0].incl[0] += pc->v[0].self[0];
	pc->v[0].incl[1] += pc->v[0].self[1];
	uint32_t *kids = malloc(pc->n * sizeof *kids);
	if (!kids)
		return CG_ENOMEM;
	for (size_t c = 0; c < pc->n; c++) {
		size_t k = 0;
		for (uint32_t ch = pc->v[c].first_child; ch != UINT32_MAX; ch = pc->v[ch].next_sibling)
			kids[k++] = ch;
		qsort_r(kids, k, sizeof *kids, cmp_label, pc);
		double x = pc->v[c].start;
		pc->v[c].first_child = k ? kids[0] : UINT32_MAX;
		for (size_t i = 0; i < k; i++) {
			struct ctx *ch = &pc->v[kids[i]];
			ch->next_sibling = i + 1 < k ? kids[i + 1] : UINT32_MAX;
			ch->start = x;
			x += ch->incl[1] > 0 ? ch->incl[1] : 0;
		}
	}
	free(kids);
	return 0;
}

static int make_labels(struct picture *pc)
{
	const cg_diff *d = pc->d;
	pc->label = calloc(d->nfuncs ? d->nfuncs : 1, sizeof *pc->label);
	if (!pc->label)
		return CG_ENOMEM;
	for (size_t i = 0; i < d->nfuncs; i++) {
		char buf[1024];
		char *dem = cg_demangle ? cg_demangle(d->funcs[i].name) : NULL;
		if (dem && !d->dupname[i])
			snprintf(buf, sizeof buf, "%s", dem);
		else
			cg_diff_item_label(d, i, buf, sizeof buf);
		free(dem);
		if (!(pc->label[i] = strdup(buf)))
			return CG_ENOMEM;
	}
	return 0;
}

/* A value as an integer when it is one (single runs), else with a decimal. */
static void put_number(FILE *out, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		fprintf(out, "%.0f", v);
	else
		fprintf(out, "%.1f", v);
}

/* "BASE -> NEW UNIT (+DELTA, +PCT%)" */
static void put_change(FILE *out, double base, double new_value, const char *unit)
{
	put_number(out, base);
	fputs(" -&gt; ", out);
	put_number(out, new_value);
	if (unit) {
		putc(' ', out);
		cg_flame_put_escaped(out, unit, strlen(unit));
	}
	fputs(" (", out);
	if (new_value >= base)
		putc('+', out);
	put_number(out, new_value - base);
	if (base != 0)
		fprintf(out, ", %+.1f%%)", 100.0 * (new_value - base) / base);
	else
		fputs(new_value != 0 ? ", new)" : ")", out);
}

static int within_noise(const struct picture *pc, double base, double new_value)
{
	const cg_diff *d = pc->d;
	if (d->kind[pc->event] != CG_DIFF_SAMPLED || d->nruns[0] > 1 || d->nruns[1] > 1)
		return 0;
	return fabs(new_value - base) <= d->z * sqrt(base + new_value);
}

static const int grey[3] = { 221, 221, 221 };

/* Red for growth, blue for shrinking, deeper with |log2(new/base)|, full
 * at a doubling or halving (or a cost appearing from nothing). */
static void change_colour(const struct picture *pc, double base, double new_value, int rgb[3])
{
	if (base == new_value || within_noise(pc, base, new_value)) {
		memcpy(rgb, grey, sizeof grey);
		return;
	}
	double t = base > 0 && new_value > 0 ? fabs(log2(new_value / base)) : 1.0;
	t = t > 1 ? 1 : t < 0.15 ? 0.15 : t;
	int pale = (int)lround(225 * (1 - t) + 40 * t);
	rgb[0] = new_value > base ? 255 : pale;
	rgb[1] = pale;
	rgb[2] = new_value > base ? pale : 255;
}

static void put_tooltip(FILE *out, const struct picture *pc, const struct ctx *x, const char *unit)
{
	const cg_diff *d = pc->d;
	const char *name = pc->label[x->item];
	cg_flame_put_escaped(out, name, strlen(name));
	if (pc->flat) {
		/* the box is the function's self cost; its inclusive cost is
		 * the diff's (known or estimated from the arcs) */
		cg_diff_value v;
		fputs(": self ", out);
		put_change(out, x->self[0], x->self[1], unit);
		cg_diff_value_get(d, 0, CG_DIFF_INCLUSIVE, x->item, pc->event, &v);
		if (v.known) {
			fputs("; inclusive ", out);
			put_change(out, (double)v.base, (double)v.new_value, NULL);
		}
	} else {
		fputs(": inclusive ", out);
		put_change(out, x->incl[0], x->incl[1], unit);
		fputs("; self ", out);
		put_change(out, x->self[0], x->self[1], NULL);
	}
	if (!x->present[0])
		fputs(d->funcs[x->item].in_base ? "; call path new in NEW" : "; function new in NEW",
		      out);
	if (x->self[0] != x->self[1] && within_noise(pc, x->self[0], x->self[1]))
		fputs("; self change within sampling noise", out);
	size_t gone = 0;
	for (uint32_t c = x->first_child; c != UINT32_MAX; c = pc->v[c].next_sibling) {
		const struct ctx *ch = &pc->v[c];
		if (ch->present[1] || ch->incl[0] == 0)
			continue;
		if (gone < MAX_GONE_NAMED) {
			fputs(gone ? ", " : "; calls gone from NEW: ", out);
			cg_flame_put_escaped(out, pc->label[ch->item], strlen(pc->label[ch->item]));
			fputs(" (base ", out);
			put_number(out, ch->incl[0]);
			fputs(")", out);
		}
		gone++;
	}
	if (gone > MAX_GONE_NAMED)
		fprintf(out, " and %zu more", gone - MAX_GONE_NAMED);
}

static void put_swatch(FILE *out, double x, const int rgb[3], const char *stroke, const char *text)
{
	fprintf(out, "<rect x=\"%.0f\" y=\"52\" width=\"14\" height=\"12\" rx=\"2\" "
		     "fill=\"rgb(%d,%d,%d)\" %s/><text x=\"%.0f\" y=\"62\">%s</text>\n",
		x, rgb[0], rgb[1], rgb[2], stroke, x + 19, text);
}

/* One header line: the functions only BASE has (side 0) or only NEW. */
static void put_functions(FILE *out, const struct picture *pc, int y, int side)
{
	const cg_diff *d = pc->d;
	fprintf(out, "<text x=\"%.0f\" y=\"%d\" fill=\"#555\">%s", CG_FLAME_MARGIN, y,
		side ? "new in NEW: " : "gone from NEW: ");
	size_t count = 0, shown = 0, room = 150;
	for (size_t i = 0; i < d->nfuncs; i++) {
		int only = side ? d->funcs[i].in_new && !d->funcs[i].in_base
				: d->funcs[i].in_base && !d->funcs[i].in_new;
		if (!only)
			continue;
		size_t len = strlen(pc->label[i]);
		if (len + 2 <= room) {
			fputs(shown ? ", " : "", out);
			cg_flame_put_escaped(out, pc->label[i], len);
			room -= len + 2;
			shown++;
		}
		count++;
	}
	if (!count)
		fputs("no function", out);
	else if (count > shown)
		fprintf(out, "%sand %zu more", shown ? ", " : "", count - shown);
	fputs("</text>\n", out);
}

#define NEW_STROKE "stroke=\"#000\" stroke-width=\"1.2\" stroke-dasharray=\"3,2\""

static void put_header(FILE *out, const struct picture *pc, const cg_diff_write_options *o)
{
	const cg_diff *d = pc->d;
	const cg_event *ev = d->events[pc->event];
	const char *names[2] = { o->names[0] ? o->names[0] : "base",
				 o->names[1] ? o->names[1] : "new" };
	double mid = CG_FLAME_WIDTH / 2;
	fprintf(out, "<text x=\"%.0f\" y=\"24\" text-anchor=\"middle\" font-size=\"17\">"
		     "Differential flame graph: ", mid);
	cg_flame_put_escaped(out, names[0], strlen(names[0]));
	fputs(" -&gt; ", out);
	cg_flame_put_escaped(out, names[1], strlen(names[1]));
	fputs("</text>\n", out);
	fprintf(out, "<text x=\"%.0f\" y=\"42\" text-anchor=\"middle\" fill=\"#555\">", mid);
	fputs("event ", out);
	cg_flame_put_escaped(out, ev->name, strlen(ev->name));
	if (ev->description && *ev->description && strcmp(ev->description, ev->name)) {
		fputs(" (", out);
		cg_flame_put_escaped(out, ev->description, strlen(ev->description));
		fputs(")", out);
	}
	fputs(": total ", out);
	put_change(out, pc->v[0].incl[0], pc->v[0].incl[1], NULL);
	if (d->nruns[0] > 1 || d->nruns[1] > 1)
		fprintf(out, ", means of %zu and %zu runs", d->nruns[0], d->nruns[1]);
	if (pc->flat)
		fputs("; no call tree: one box per function, width = its self cost in NEW</text>\n",
		      out);
	else
		fputs("; width = cost in NEW, bottom = outermost call</text>\n", out);
	/* legend: the colour is the change of each box's own cost */
	const int red[3] = { 255, 40, 40 }, pink[3] = { 255, 191, 191 };
	const int blue[3] = { 40, 40, 255 }, light[3] = { 191, 191, 255 };
	fputs("<g id=\"legend\">\n", out);
	fprintf(out, "<text x=\"%.0f\" y=\"62\">self cost:</text>\n", CG_FLAME_MARGIN);
	put_swatch(out, 85, red, CG_FLAME_STROKE, "grew 2x or more");
	put_swatch(out, 215, pink, CG_FLAME_STROKE, "grew a little");
	put_swatch(out, 330, blue, CG_FLAME_STROKE, "shrank to half or less");
	put_swatch(out, 500, light, CG_FLAME_STROKE, "shrank a little");
	put_swatch(out, 625, grey, CG_FLAME_STROKE,
		   d->kind[pc->event] == CG_DIFF_SAMPLED ? "unchanged or noise" : "unchanged");
	put_swatch(out, 790, grey, NEW_STROKE, pc->flat ? "function new in NEW"
							: "call path new in NEW");
	fputs("</g>\n", out);
	/* functions BASE has and NEW has not: no width to draw them with;
	 * and the new ones, which may be too narrow to see */
	put_functions(out, pc, 82, 0);
	put_functions(out, pc, 98, 1);
}
static void draw(FILE *out, const struct picture *pc, const cg_diff_write_options *o)
{
	unsigned max_depth = 1;
	for (size_t c = 1; c < pc->n; c++)
		if (pc->v[c].incl[1] > 0 && pc->v[c].depth > max_depth)
			max_depth = pc->v[c].depth;
	double height = TOP_SPACE + (double)max_depth * CG_FLAME_FRAME_HEIGHT + 2 * CG_FLAME_MARGIN;
	double total = pc->v[0].incl[1];
	double scale = (CG_FLAME_WIDTH - 2 * CG_FLAME_MARGIN) / total;
	const char *unit = pc->d->events[pc->event]->name;
	cg_flame_begin(out, height);
	put_header(out, pc, o);
	for (size_t c = 1; c < pc->n; c++) {
		const struct ctx *x = &pc->v[c];
		double w = x->incl[1] * scale;
		if (w < CG_FLAME_MIN_BOX)
			continue;
		double left = CG_FLAME_MARGIN + x->start * scale;
		double y = height - CG_FLAME_MARGIN - (double)x->depth * CG_FLAME_FRAME_HEIGHT;
		int rgb[3];
		change_colour(pc, x->self[0], x->self[1], rgb);
		cg_flame_box_begin(out);
		put_tooltip(out, pc, x, unit);
		const char *name = pc->label[x->item];
		cg_flame_box_end(out, name, strlen(name), left, y, w, rgb,
				 x->present[0] ? CG_FLAME_STROKE : NEW_STROKE);
	}
	cg_flame_end(out);
}

int cg_diff_write_svg(const cg_diff *d, FILE *out, const cg_diff_write_options *o,
		      cg_error *err)
{
	struct picture pc = { .d = d };
	pc.event = d->nchecked_ev ? d->checked_ev[0] : 0;
	pc.flat = lacks_tree(d, pc.event);
	int rc = make_labels(&pc);
	if (!rc && !(pc.v = malloc((pc.cap = 256) * sizeof *pc.v)))
		rc = CG_ENOMEM;
	if (!rc) {
		pc.v[0] = (struct ctx){ .item = UINT32_MAX, .parent = 0, .first_child = UINT32_MAX,
					.next_sibling = UINT32_MAX };
		pc.n = 1;
		if (pc.flat)
			rc = add_functions(&pc);
		for (int s = 0; s < 2 && !rc && !pc.flat; s++)
			for (size_t r = 0; r < d->nruns[s] && !rc; r++)
				rc = add_run(&pc, s, cg_diff_run_side(d, s, r), 1.0 / (double)d->nruns[s]);
	}
	if (!rc)
		rc = lay_out(&pc);
	if (!rc && !(pc.v[0].incl[1] > 0))
		rc = cg_error_set(err, CG_EFORMAT,
				  "svg: the new profile has no %s cost to draw a flame graph with",
				  d->events[pc.event]->name);
	else if (!rc)
		draw(out, &pc, o);
	else if (rc == CG_ENOMEM)
		cg_error_set(err, rc, "svg: out of memory");
	if (pc.label)
		for (size_t i = 0; i < d->nfuncs; i++)
			free(pc.label[i]);
	free(pc.label);
	free(pc.v);
	cg_hashmap_release(&pc.index);
	return rc;
}
