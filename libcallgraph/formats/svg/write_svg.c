/*
 * write_svg.c — a flame graph as one self-contained SVG file (no script,
 * no fonts to fetch): what `cgconvert -t folded | flamegraph.pl` gives,
 * without flamegraph.pl.
 *
 * The stacks are exactly the folded writer's (cg_write_folded: the call
 * tree's paths, one-frame stacks for parts without a tree, the part as
 * the bottom frame when there are several), so the two outputs always
 * agree.  The lines are sorted frame by frame and merged the way
 * flamegraph.pl merges them: a frame is one box across all the stacks
 * that share the path below it; its width is their summed cost.
 * Every box has a <title> (the browser's tooltip) with the cost in the
 * event's unit and its share of the total.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "callgraph.h"
#include "callgraph/sys/format.h"
#include "flame_svg.h"      /* the drawing, shared with cgdiff's picture */

#define WIDTH CG_FLAME_WIDTH
#define MARGIN CG_FLAME_MARGIN
#define FRAME_HEIGHT CG_FLAME_FRAME_HEIGHT
#define MIN_BOX CG_FLAME_MIN_BOX
#define TOP_SPACE 50.0      /* room for the title and subtitle */

struct stack {
	char *frames;       /* "a;b;c", pointing into the folded text */
	int64_t value;
};

struct box {
	const char *name;   /* not terminated: name_len bytes */
	size_t name_len;
	size_t depth;
	int64_t start, end; /* in cost units from the left edge */
};

struct boxes {
	struct box *v;
	size_t n, cap;
};

/* Frame-wise order: ';' sorts before every character of a name, so a
 * stack's frames stay next to the longer stacks that share them. */
static int frame_cmp(const void *a, const void *b)
{
	const unsigned char *x = (const unsigned char *)((const struct stack *)a)->frames;
	const unsigned char *y = (const unsigned char *)((const struct stack *)b)->frames;
	for (;; x++, y++) {
		unsigned cx = *x == ';' ? 1u : *x ? *x + 1u : 0u;
		unsigned cy = *y == ';' ? 1u : *y ? *y + 1u : 0u;
		if (cx != cy)
			return cx < cy ? -1 : 1;
		if (!cx)
			return 0;
	}
}

static int add_box(struct boxes *b, const char *name, size_t len, size_t depth, int64_t start,
		   int64_t end)
{
	if (cg_array_grow((void **)&b->v, &b->cap, b->n + 1, sizeof *b->v, 256))
		return CG_ENOMEM;
	b->v[b->n++] = (struct box){ name, len, depth, start, end };
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

/* Frame boxes from the sorted stacks: each stack closes the open frames
 * it does not share and opens its own from the current offset. */
static int merge_stacks(struct stack *st, size_t n, struct boxes *out, size_t *max_depth,
			int64_t *total)
{
	struct open {
		const char *name;
		size_t len;
		int64_t start;
	} *open = NULL;
	size_t nopen = 0, cap = 0;
	int64_t x = 0;
	int rc = 0;
	*max_depth = 0;
	for (size_t i = 0; i <= n && !rc; i++) {
		/* the frames of this stack (none after the last: close all) */
		const char *f = i < n ? st[i].frames : "";
		size_t depth = 0;
		size_t common = 0;
		int diverged = 0;
		while (i < n && *f) {
			const char *semi = strchr(f, ';');
			size_t len = semi ? (size_t)(semi - f) : strlen(f);
			if (!diverged && depth < nopen && open[depth].len == len &&
			    memcmp(open[depth].name, f, len) == 0) {
				common = depth + 1;
			} else {
				if (!diverged) {
					/* close what this stack does not share */
					while (nopen > depth && !rc) {
						nopen--;
						rc = add_box(out, open[nopen].name, open[nopen].len, nopen,
							     open[nopen].start, x);
					}
					diverged = 1;
				}
				if (cg_array_grow((void **)&open, &cap, nopen + 1, sizeof *open, 64)) {
					rc = CG_ENOMEM;
					break;
				}
				open[nopen++] = (struct open){ f, len, x };
			}
			depth++;
			f = semi ? semi + 1 : f + len;
		}
		if (!diverged)
			while (nopen > common && !rc) {
				nopen--;
				rc = add_box(out, open[nopen].name, open[nopen].len, nopen,
					     open[nopen].start, x);
			}
		if (depth > *max_depth)
			*max_depth = depth;
		if (i < n)
			x += st[i].value;
	}
	free(open);
	*total = x;
	return rc;
}

/* Splits the folded text into stacks (in place). */
static int parse_folded(char *text, struct stack **out, size_t *count)
{
	size_t n = 0, cap = 0;
	struct stack *st = NULL;
	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		char *sp = strrchr(line, ' ');
		if (sp) {
			*sp = '\0';
			int64_t v = strtoll(sp + 1, NULL, 10);
			if (v > 0) {
				if (cg_array_grow((void **)&st, &cap, n + 1, sizeof *st, 256)) {
					free(st);
					return CG_ENOMEM;
				}
				st[n++] = (struct stack){ line, v };
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	*out = st;
	*count = n;
	return 0;
}

static void put_amount(FILE *out, int64_t v, const cg_event *ev)
{
	fprintf(out, "%" PRId64 " %s", v, ev && ev->name ? ev->name : "");
	if (ev && ev->unit_seconds > 0)
		fprintf(out, " = %.6g s", (double)v * ev->unit_seconds);
}

static void write_picture(FILE *out, const cg_profile *p, const cg_event *ev,
			  const struct boxes *b, size_t max_depth, int64_t total)
{
	double height = TOP_SPACE + (double)(max_depth ? max_depth : 1) * FRAME_HEIGHT + 2 * MARGIN;
	double scale = total > 0 ? (WIDTH - 2 * MARGIN) / (double)total : 0;
	const char *cmd = cg_profile_meta(p, "cmd");
	if (!cmd)
		cmd = cg_profile_meta(p, "executable");
	cg_flame_begin(out, height);
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
	for (size_t i = 0; i < b->n; i++) {
		const struct box *x = &b->v[i];
		double w = (double)(x->end - x->start) * scale;
		if (w < MIN_BOX)
			continue;
		double left = MARGIN + (double)x->start * scale;
		double y = height - MARGIN - (double)(x->depth + 1) * FRAME_HEIGHT;
		int rgb[3];
		color_of(x->name, x->name_len, rgb);
		cg_flame_box_begin(out);
		cg_flame_put_escaped(out, x->name, x->name_len);
		fputs(" (", out);
		put_amount(out, x->end - x->start, ev);
		fprintf(out, ", %.2f%%)", total > 0 ? 100.0 * (double)(x->end - x->start) / (double)total : 0.0);
		cg_flame_box_end(out, x->name, x->name_len, left, y, w, rgb, CG_FLAME_STROKE);
	}
	cg_flame_end(out);
}

static int write_flame(const cg_profile *p, FILE *out, int event, cg_error *err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem)
		return cg_error_set(err, CG_ENOMEM, "svg: out of memory");
	int rc = cg_write_folded(p, mem, event, err);
	if (fclose(mem) != 0 && !rc)
		rc = cg_error_set(err, CG_ENOMEM, "svg: out of memory");
	if (rc) {
		free(text);
		return rc;
	}
	struct stack *st = NULL;
	size_t n = 0;
	struct boxes b = { 0 };
	size_t max_depth = 0;
	int64_t total = 0;
	rc = parse_folded(text, &st, &n);
	if (!rc) {
		qsort(st, n, sizeof *st, frame_cmp);
		rc = merge_stacks(st, n, &b, &max_depth, &total);
	}
	if (!rc) {
		size_t nev = cg_profile_event_count(p);
		const cg_event *ev = nev ? cg_profile_event(p, event < 0 ? 0 : (size_t)event) : NULL;
		write_picture(out, p, ev, &b, max_depth, total);
		if (ferror(out))
			rc = cg_error_set(err, CG_EIO, "svg: write error");
	} else {
		rc = cg_error_set(err, rc, "svg: out of memory");
	}
	free(b.v);
	free(st);
	free(text);
	return rc;
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
