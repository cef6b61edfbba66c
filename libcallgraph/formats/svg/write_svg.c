/*
 * write_svg.c — a flame graph as one self-contained SVG file (no script,
 * no fonts to fetch): what `cgconvert -t folded | flamegraph.pl` gives,
 * without flamegraph.pl.
 *
 * The stacks are exactly the folded writer's (cg_write_folded: the call
 * tree's paths, one-frame stacks for parts without a tree, the part as
 * the bottom frame when there are several), merged the way flamegraph.pl
 * merges folded lines: the stacks sorted frame by frame, a frame is one
 * box across all the stacks that share the path below it, and its width
 * is their summed cost.  Every box has a <title> (the browser's tooltip)
 * with the cost in the event's unit and its share of the total.
 *
 * The boxes are computed from the call tree itself, not from the folded
 * text: a walk visits each group of same-named frames (a tree node, or
 * several when siblings print alike) with its children sorted by name,
 * which is the order of the sorted lines.  It keeps only the children of
 * the groups on the current path, so a 2M-node tree needs no memory
 * beyond the profile's (the text and its boxes took 1 GB).  It runs
 * twice: once for the total and the depth (the picture's scale and
 * height come first in the file), once to write the boxes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "callgraph.h"
#include "callgraph/sys/format.h"
#include "flame_svg.h"      /* the drawing, shared with cgdiff's picture */
#include "folded/folded_internal.h"  /* the frames' names */

#define WIDTH CG_FLAME_WIDTH
#define MARGIN CG_FLAME_MARGIN
#define FRAME_HEIGHT CG_FLAME_FRAME_HEIGHT
#define MIN_BOX CG_FLAME_MIN_BOX
#define TOP_SPACE 50.0      /* room for the title and subtitle */

/* One source of a frame: a part (the bottom frame when there are
 * several), a call-tree node, or a function of a part without a tree. */
enum item_kind { ITEM_PART, ITEM_NODE, ITEM_FLAT };

struct item {
	uint32_t rank;      /* order of the frame's name; equal names, equal ranks */
	uint32_t part;
	uint32_t id;        /* part, node or function index */
	uint32_t kind;
};

/* The frames at one depth: the children of the group open one level
 * down, sorted; [run, run_end) is the group open at this depth. */
struct level {
	struct item *v;
	size_t n, cap;
	size_t run, run_end;
	int64_t start;      /* the open group's left edge */
	int has;            /* a stack goes through the open group's frame */
};

struct flame {
	const cg_profile *p;
	int event;
	unsigned nparts;
	char **fname;       /* per function: its frame name */
	uint32_t *frank;
	char **pname;       /* per part (several parts): its frame name */
	uint32_t *prank;
	struct level *lv;
	size_t nlv, lvcap;
	/* what the walk finds */
	int64_t x;          /* cost units from the left edge */
	size_t max_depth;
	/* the drawing (second walk) */
	FILE *out;
	const cg_event *ev;
	double height, scale;
	int64_t total;
};

struct named {
	const char *name;
	uint32_t index;
};

static int named_cmp(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

/* rank[i]: names[i]'s place among the distinct names, by strcmp (which
 * is the order of the sorted folded lines: ';' sorts before every
 * character a name can hold, so a name sorts before its extensions). */
static int rank_names(char **names, size_t n, uint32_t **rank_out)
{
	struct named *order = malloc((n ? n : 1) * sizeof *order);
	uint32_t *rank = malloc((n ? n : 1) * sizeof *rank);
	if (!order || !rank) {
		free(order);
		free(rank);
		return CG_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = (struct named){ names[i], (uint32_t)i };
	if (n > 1)
		qsort(order, n, sizeof *order, named_cmp);
	uint32_t r = 0;
	for (size_t i = 0; i < n; i++) {
		if (i && strcmp(order[i].name, order[i - 1].name) != 0)
			r++;
		rank[order[i].index] = r;
	}
	free(order);
	*rank_out = rank;
	return 0;
}

static int item_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct item *)a)->rank, y = ((const struct item *)b)->rank;
	return x < y ? -1 : x > y;
}

static const char *item_name(const struct flame *f, const struct item *it)
{
	if (it->kind == ITEM_PART)
		return f->pname[it->part];
	const cg_profile *p = f->p;
	cg_fid fid = it->kind == ITEM_NODE ? cg_profile_node(p, it->part, it->id)->func : it->id;
	return f->fname[fid];
}

/* The cost of the stack that ends at the item (the folded line's count). */
static cg_cost item_own(const struct flame *f, const struct item *it)
{
	if (it->kind == ITEM_NODE)
		return cg_profile_node(f->p, it->part, it->id)->self[f->event];
	if (it->kind == ITEM_FLAT)
		return cg_profile_self(f->p, it->part, it->id)[f->event];
	return 0;
}

static int push_item(struct flame *f, struct level *l, enum item_kind kind, unsigned part,
		     uint32_t id)
{
	if (cg_array_grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v, 64))
		return CG_ENOMEM;
	struct item it = { 0, part, id, kind };
	if (kind == ITEM_PART)
		it.rank = f->prank[part];
	else
		it.rank = f->frank[kind == ITEM_NODE ? cg_profile_node(f->p, part, id)->func : id];
	l->v[l->n++] = it;
	return 0;
}

/* The frames one above `it`, appended to l. */
static int push_children(struct flame *f, struct level *l, const struct item *it)
{
	const cg_profile *p = f->p;
	unsigned part = it->part;
	int rc = 0;
	if (it->kind == ITEM_FLAT)
		return 0;
	cg_nid n;
	if (it->kind == ITEM_PART) {
		if (cg_profile_node_count(p, part) <= 1) {
			/* no tree: one-frame stacks of self costs */
			size_t nf = cg_profile_function_count(p);
			for (size_t fid = 0; fid < nf && !rc; fid++)
				if (cg_profile_self(p, part, (cg_fid)fid)[f->event] > 0)
					rc = push_item(f, l, ITEM_FLAT, part, (uint32_t)fid);
			return rc;
		}
		n = cg_profile_node(p, part, 0)->first_child;
	} else {
		n = cg_profile_node(p, part, it->id)->first_child;
	}
	for (; n != CG_NO_NODE && !rc; n = cg_profile_node(p, part, n)->next_sibling)
		rc = push_item(f, l, ITEM_NODE, part, n);
	return rc;
}

static struct level *level_at(struct flame *f, size_t d)
{
	if (cg_array_grow((void **)&f->lv, &f->lvcap, d + 1, sizeof *f->lv, 64))
		return NULL;
	if (f->nlv < d + 1)
		f->nlv = d + 1;
	return &f->lv[d];
}

static void draw_box(struct flame *f, const char *name, size_t depth, int64_t start, int64_t end);

/* Opens the group of same-named frames at l->run (depth d): its own
 * stacks are counted, its children become depth d + 1. */
static int open_group(struct flame *f, size_t d)
{
	struct level *l = &f->lv[d];
	size_t a = l->run, b = a + 1;
	while (b < l->n && l->v[b].rank == l->v[a].rank)
		b++;
	l->run_end = b;
	int64_t own = 0;
	int has_own = 0;
	for (size_t i = a; i < b; i++) {
		cg_cost v = item_own(f, &l->v[i]);
		if (v > 0) {
			own = (int64_t)((uint64_t)own + (uint64_t)v);
			has_own = 1;
		}
	}
	if (*item_name(f, &l->v[a]) == '\0') {
		/* a stack's last frame when empty is no frame ("a;" is "a"):
		 * these stacks end one level down, before the frame's box */
		f->x = (int64_t)((uint64_t)f->x + (uint64_t)own);
		if (has_own) {
			if (d > f->max_depth)
				f->max_depth = d;
			if (d > 0)
				f->lv[d - 1].has = 1;
		}
		l->start = f->x;
		l->has = 0;
	} else {
		l->start = f->x;
		f->x = (int64_t)((uint64_t)f->x + (uint64_t)own);
		l->has = has_own;
		if (has_own && d + 1 > f->max_depth)
			f->max_depth = d + 1;
	}
	struct level *next = level_at(f, d + 1);
	if (!next)
		return CG_ENOMEM;
	l = &f->lv[d];    /* level_at may have moved the levels */
	next->n = 0;
	next->run = 0;
	int rc = 0;
	for (size_t i = a; i < b && !rc; i++)
		rc = push_children(f, next, &l->v[i]);
	if (!rc && next->n > 1)
		qsort(next->v, next->n, sizeof *next->v, item_cmp);
	return rc;
}

/* One walk over the merged frames in the order of the sorted stacks;
 * each frame's box is drawn (when `draw`) as it closes, deepest first,
 * as the folded-text merge closed them. */
static int walk(struct flame *f, int draw)
{
	f->x = 0;
	f->max_depth = 0;
	struct level *root = level_at(f, 0);
	if (!root)
		return CG_ENOMEM;
	root->n = 0;
	root->run = 0;
	int rc = 0;
	if (f->nparts > 1) {
		for (unsigned part = 0; part < f->nparts && !rc; part++)
			rc = push_item(f, root, ITEM_PART, part, part);
	} else if (f->nparts == 1) {
		struct item top = { 0, 0, 0, ITEM_PART };
		rc = push_children(f, root, &top);
		/* Empty names at the bottom of a stack leave no trace in its
		 * folded line ("" then "a" is "a"): their children are
		 * bottom frames too, and their own stacks have no frame at all
		 * (they sort first: the left edge moves, no box). */
		size_t keep = 0;
		for (size_t i = 0; i < root->n && !rc; i++) {
			struct item it = root->v[i];
			if (*item_name(f, &it) != '\0') {
				root->v[keep++] = it;
				continue;
			}
			cg_cost v = item_own(f, &it);
			if (v > 0)
				f->x = (int64_t)((uint64_t)f->x + (uint64_t)v);
			rc = push_children(f, root, &it);
		}
		root->n = keep;
	}
	if (rc)
		return rc;
	if (root->n > 1)
		qsort(root->v, root->n, sizeof *root->v, item_cmp);
	size_t d = 0;
	for (;;) {
		struct level *l = &f->lv[d];
		if (l->run < l->n) {
			if ((rc = open_group(f, d)))
				return rc;
			d++;
			continue;
		}
		if (d == 0)
			break;
		/* depth d is done: close the group one level down */
		d--;
		l = &f->lv[d];
		if (l->has) {
			if (draw)
				draw_box(f, item_name(f, &l->v[l->run]), d, l->start, f->x);
			if (d > 0)
				f->lv[d - 1].has = 1;
		}
		l->run = l->run_end;
	}
	return 0;
}

/* A warm colour that depends only on the name, so a function keeps its
 * colour from one picture to the next. */
static void color_of(const char *name, size_t len, int rgb[3])
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	rgb[0] = 205 + (int)(h % 50);
	rgb[1] = (int)((h >> 8) % 180);
	rgb[2] = (int)((h >> 16) % 55);
}

static void put_amount(FILE *out, int64_t v, const cg_event *ev)
{
	fprintf(out, "%" PRId64 " %s", v, ev && ev->name ? ev->name : "");
	if (ev && ev->unit_seconds > 0)
		fprintf(out, " = %.6g s", (double)v * ev->unit_seconds);
}

static void draw_box(struct flame *f, const char *name, size_t depth, int64_t start, int64_t end)
{
	FILE *out = f->out;
	double w = (double)(end - start) * f->scale;
	if (w < MIN_BOX)
		return;
	size_t len = strlen(name);
	double left = MARGIN + (double)start * f->scale;
	double y = f->height - MARGIN - (double)(depth + 1) * FRAME_HEIGHT;
	int rgb[3];
	color_of(name, len, rgb);
	cg_flame_box_begin(out);
	cg_flame_put_escaped(out, name, len);
	fputs(" (", out);
	put_amount(out, end - start, f->ev);
	fprintf(out, ", %.2f%%)",
		f->total > 0 ? 100.0 * (double)(end - start) / (double)f->total : 0.0);
	cg_flame_box_end(out, name, len, left, y, w, rgb, CG_FLAME_STROKE);
}

static void write_heading(struct flame *f)
{
	FILE *out = f->out;
	const cg_profile *p = f->p;
	const cg_event *ev = f->ev;
	int64_t total = f->total;
	f->height = TOP_SPACE + (double)(f->max_depth ? f->max_depth : 1) * FRAME_HEIGHT + 2 * MARGIN;
	f->scale = total > 0 ? (WIDTH - 2 * MARGIN) / (double)total : 0;
	const char *cmd = cg_profile_meta(p, "cmd");
	if (!cmd)
		cmd = cg_profile_meta(p, "executable");
	cg_flame_begin(out, f->height);
	fprintf(out, "<text x=\"%.0f\" y=\"24\" text-anchor=\"middle\" font-size=\"17\">Flame graph",
		WIDTH / 2);
	if (cmd) {
		fputs(": ", out);
		cg_flame_put_escaped(out, cmd, strlen(cmd));
	}
	fputs("</text>\n", out);
	fprintf(out, "<text x=\"%.0f\" y=\"42\" text-anchor=\"middle\" fill=\"#555\">total ", WIDTH / 2);
	put_amount(out, total, ev);
	if (ev && ev->description && *ev->description) {
		fputs(" (", out);
		cg_flame_put_escaped(out, ev->description, strlen(ev->description));
		fputs(")", out);
	}
	fputs("; width = share of the total, bottom = outermost call</text>\n", out);
}

/* The frame names of the functions and parts, ranked. */
static int name_frames(struct flame *f)
{
	const cg_profile *p = f->p;
	size_t nf = cg_profile_function_count(p);
	f->fname = calloc(nf ? nf : 1, sizeof *f->fname);
	if (!f->fname)
		return CG_ENOMEM;
	for (size_t i = 0; i < nf; i++)
		if (!(f->fname[i] = cg_folded_frame_name(cg_profile_function(p, (cg_fid)i)->name)))
			return CG_ENOMEM;
	if (rank_names(f->fname, nf, &f->frank))
		return CG_ENOMEM;
	if (f->nparts <= 1)
		return 0;
	f->pname = calloc(f->nparts, sizeof *f->pname);
	if (!f->pname)
		return CG_ENOMEM;
	for (unsigned part = 0; part < f->nparts; part++) {
		/* as the folded writer names them */
		const char *name = cg_profile_part_name(p, part);
		char fallback[32];
		if (!name || !*name) {
			snprintf(fallback, sizeof fallback, "part %u", part + 1);
			name = fallback;
		}
		if (!(f->pname[part] = cg_folded_frame_name(name)))
			return CG_ENOMEM;
	}
	return rank_names(f->pname, f->nparts, &f->prank);
}

static void flame_free(struct flame *f)
{
	size_t nf = cg_profile_function_count(f->p);
	for (size_t i = 0; f->fname && i < nf; i++)
		free(f->fname[i]);
	for (unsigned i = 0; f->pname && i < f->nparts; i++)
		free(f->pname[i]);
	free(f->fname);
	free(f->frank);
	free(f->pname);
	free(f->prank);
	for (size_t d = 0; d < f->nlv; d++)
		free(f->lv[d].v);
	free(f->lv);
}

static int write_flame(const cg_profile *p, FILE *out, int event, cg_error *err)
{
	if (event < 0)
		event = 0;
	size_t nev = cg_profile_event_count(p);
	if ((size_t)event >= nev)
		return cg_error_set(err, CG_EUSAGE, "folded: the profile has no event %d", event);
	struct flame f = { .p = p, .event = event, .out = out };
	f.nparts = (unsigned)cg_profile_part_count(p);
	f.ev = cg_profile_event(p, (size_t)event);
	int rc = name_frames(&f);
	if (!rc)
		rc = walk(&f, 0);
	if (!rc) {
		f.total = f.x;
		write_heading(&f);
		/* the second walk finds what the first did, needing no memory the
		 * first did not take */
		rc = walk(&f, 1);
		cg_flame_end(out);
	}
	flame_free(&f);
	if (rc)
		return cg_error_set(err, rc, "svg: out of memory");
	if (ferror(out))
		return cg_error_set(err, CG_EIO, "svg: write error");
	return 0;
}

static int write_svg(const cg_format_ops *self, const cg_profile *p, FILE *out,
		     const cg_write_options *opts, cg_error *err)
{
	int e = cg_format_event_index(p, opts, err);
	return e < 0 ? e : write_flame(p, out, e, err);
}

const cg_format_ops cg_fmt_svg = {
	.version = CG_FORMAT_OPS_VERSION,
	.name = "svg",
	.description = "flame graph, one self-contained SVG file for any browser",
	.keeps = "the call tree's paths weighted by one event (the folded stacks)",
	.loses = "call counts, other events, boxes under 0.1 pixel",
	.write = write_svg,
};
