/*
 * dot_lines.c — source lines in the dot graph (--lines): a node lists the
 * lines holding most of its function's self cost, an edge the lines its
 * calls were made at, where the profile has positions.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dot_internal.h"
#include "positions.h"

/* lines listed per node, most costly first */
#define NODE_LINES 5
/* call sites listed per edge */
#define EDGE_SITES 4

struct line_cost {
	const char *file;
	uint32_t line;
	double v;
};

static int by_cost(const void *a, const void *b)
{
	const struct line_cost *x = a, *y = b;
	if (x->v != y->v)
		return x->v < y->v ? 1 : -1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static void put_line_name(FILE *out, const char *file, uint32_t line)
{
	if (file) {
		const char *base = strrchr(file, '/');
		for (const char *c = base ? base + 1 : file; *c; c++)
			if (*c != '"' && *c != '\\' && (unsigned char)*c >= 0x20)
				putc(*c, out);
		putc(':', out);
	}
	fprintf(out, "%" PRIu32, line);
}

int cg_dot_put_self_lines(FILE *out, const cg_profile *p, cg_fid f, int event, double total)
{
	size_t n = 0, cursor = 0;
	cg_position pos;
	const cg_cost *c;
	double ex;
	while (cg_pos_next_self_exact(p, 0, f, &cursor, &pos, &c, &ex))
		n++;
	if (!n)
		return 0;
	struct line_cost *v = malloc(n * sizeof *v);
	if (!v)
		return CG_ENOMEM;
	size_t k = 0;
	cursor = 0;
	while (cg_pos_next_self_exact(p, 0, f, &cursor, &pos, &c, &ex)) {
		/* the exact share where the input kept one (gmon), as the node's
		 * own self cost is */
		double x = event == 0 && !isnan(ex) ? ex : (double)c[event];
		size_t j = 0;
		while (j < k && !(v[j].line == pos.line && v[j].file == pos.file))
			j++;
		if (j == k)
			v[k++] = (struct line_cost){ pos.file, pos.line, 0 };
		v[j].v += x;
	}
	qsort(v, k, sizeof *v, by_cost);
	for (size_t j = 0; j < k && j < NODE_LINES; j++) {
		if (!(v[j].v > 0) || !v[j].line)
			continue;
		fputs("\\nline ", out);
		put_line_name(out, v[j].file, v[j].line);
		fprintf(out, ": %.6g (%.2f%%)", v[j].v, total > 0 ? 100.0 * v[j].v / total : 0.0);
	}
	free(v);
	return 0;
}

void cg_dot_put_sites(FILE *out, const cg_profile *p, size_t arc)
{
	size_t cursor = 0, n = 0;
	cg_position site;
	uint64_t count;
	const cg_cost *c;
	while (cg_profile_next_arc_site(p, 0, arc, &cursor, &site, &count, &c)) {
		if (!site.line)
			continue;
		if (n == EDGE_SITES) {
			fputs(", ...", out);
			break;
		}
		fputs(n ? ", " : "\\nat line ", out);
		put_line_name(out, site.file, site.line);
		n++;
	}
}
