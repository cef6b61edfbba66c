/*
 * write_folded.c — folded stacks ("main;work;leaf 42"), the input of
 * FlameGraph's flamegraph.pl, inferno and speedscope.
 *
 * Stacks come from the call tree; a part without one gives one-frame
 * stacks (self cost per function), since arcs alone do not say which
 * paths the cost took.
 *
 * With lines (--lines) frames say where in the function they were, only
 * where the profile knows it for that frame: a one-frame stack per
 * (function, line) of its self positions; in a call tree a caller frame
 * becomes "caller:LINE" when all its calls to that callee were made at
 * one line (the arc's only call site), and a leaf "func:LINE" when all
 * of the function's self cost is on one line.  Positions are per
 * function, not per context, so a tree's self costs are never split by
 * them.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "folded_internal.h"

/* the demangler lives in the gmon module; without it names stay raw */
#pragma weak cg_demangle

struct path {
	char *buf;
	size_t len, cap;
};

/* ';' separates frames and the last blank the count: keep both out of
 * names (a name's blanks are fine: the count is after the last one) */
static char frame_char(char c)
{
	return c == ';' ? ':' : ((unsigned char)c < 0x20 ? '?' : c);
}

/* The frame a function name becomes: demangled, with ';' as ':' and
 * control characters as '?'.  Shared with the svg writer, whose boxes
 * are these frames. */
char *cg_folded_frame_name(const char *s)
{
	char *dem = cg_demangle ? cg_demangle(s) : NULL;
	const char *name = dem ? dem : s;
	size_t n = strlen(name);
	char *frame = dem ? dem : malloc(n + 1);
	if (!frame)
		return NULL;
	for (size_t i = 0; i < n; i++)
		frame[i] = frame_char(name[i]);
	frame[n] = 0;
	return frame;
}

static int path_push(struct path *p, const char *s)
{
	char *dem = cg_demangle ? cg_demangle(s) : NULL;
	const char *name = dem ? dem : s;
	size_t n = strlen(name);
	if (p->len + n + 2 > p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;
		while (cap < p->len + n + 2)
			cap *= 2;
		char *b = realloc(p->buf, cap);
		if (!b) {
			free(dem);
			return CG_ENOMEM;
		}
		p->buf = b;
		p->cap = cap;
	}
	if (p->len)
		p->buf[p->len++] = ';';
	for (size_t i = 0; i < n; i++)
		p->buf[p->len++] = frame_char(name[i]);
	p->buf[p->len] = 0;
	free(dem);
	return 0;
}

/* Appends ":LINE" (or ":FILE:LINE" for another file, by its base name)
 * to the frame just pushed. */
static int path_suffix(struct path *p, const char *file, uint32_t line)
{
	char buf[64];
	const char *base = file ? strrchr(file, '/') : NULL;
	base = base ? base + 1 : file;
	size_t need = (base ? strlen(base) + 1 : 0) + sizeof buf;
	if (p->len + need + 1 > p->cap) {
		size_t cap = p->cap ? p->cap : 256;
		while (cap < p->len + need + 1)
			cap *= 2;
		char *b = realloc(p->buf, cap);
		if (!b)
			return CG_ENOMEM;
		p->buf = b;
		p->cap = cap;
	}
	if (base) {
		p->buf[p->len++] = ':';
		for (const char *c = base; *c; c++)
			p->buf[p->len++] = *c == ';' ? ':' : ((unsigned char)*c < 0x20 ? '?' : *c);
	}
	int n = snprintf(buf, sizeof buf, ":%" PRIu32, line);
	memcpy(p->buf + p->len, buf, (size_t)n + 1);
	p->len += (size_t)n;
	return 0;
}

/* The one line all of f's self cost (or arc i's calls) is at: 1 and
 * *file, *line when there is exactly one such line, else 0. */
static int only_self_line(const cg_profile *prof, unsigned part, cg_fid f, const char **file,
			  uint32_t *line)
{
	size_t cursor = 0;
	cg_position pos;
	const cg_cost *c;
	int n = 0;
	while (cg_profile_next_self_position(prof, part, f, &cursor, &pos, &c)) {
		if (!pos.line || (n && (pos.line != *line || pos.file != *file)))
			return 0;
		*file = pos.file;
		*line = pos.line;
		n = 1;
	}
	return n;
}

static int only_site_line(const cg_profile *prof, unsigned part, cg_fid caller, cg_fid callee,
			  const char **file, uint32_t *line)
{
	long i = cg_profile_find_arc(prof, part, caller, callee);
	size_t cursor = 0;
	cg_position site;
	uint64_t count;
	const cg_cost *c;
	int n = 0;
	if (i < 0)
		return 0;
	while (cg_profile_next_arc_site(prof, part, (size_t)i, &cursor, &site, &count, &c)) {
		if (!site.line || (n && (site.line != *line || site.file != *file)))
			return 0;
		*file = site.file;
		*line = site.line;
		n = 1;
	}
	return n;
}

static void put_line(FILE *out, const struct path *p, cg_cost v)
{
	fwrite(p->buf, 1, p->len, out);
	fprintf(out, " %" PRId64 "\n", v);
}

/* A caller's frame in a call tree with lines: "caller:LINE" when its
 * calls to `callee` were all made at one line. */
static int push_caller(const cg_profile *prof, unsigned part, struct path *path, cg_fid caller,
		       cg_fid callee)
{
	const char *file;
	uint32_t line;
	int rc = path_push(path, cg_profile_function(prof, caller)->name);
	if (!rc && only_site_line(prof, part, caller, callee, &file, &line))
		rc = path_suffix(path, file, line);
	return rc;
}

static int write_tree(const cg_profile *prof, unsigned part, FILE *out, int event,
		      struct path *path, size_t base, int lines)
{
	size_t nn = cg_profile_node_count(prof, part);
	/* depth_len[n]: the path's length up to and including n's frame;
	 * with lines up to the frame before it (a child renames n's frame
	 * after the call it made, so only what comes before n is stable) */
	size_t *depth_len = malloc((nn ? nn : 1) * sizeof *depth_len);
	if (!depth_len)
		return CG_ENOMEM;
	int rc = 0;
	/* iterative preorder walk: call trees of deep recursion are deep */
	cg_nid n = cg_profile_node(prof, part, 0)->first_child;
	while (n != CG_NO_NODE && !rc) {
		const cg_node *node = cg_profile_node(prof, part, n);
		cg_nid parent = node->parent;
		if (lines && parent != 0) {
			/* the parent's frame again, named for this call */
			path->len = depth_len[parent];
			if (path->buf)
				path->buf[path->len] = 0;
			if ((rc = push_caller(prof, part, path, cg_profile_node(prof, part, parent)->func,
					      node->func)))
				break;
		} else {
			path->len = parent == 0 ? base : depth_len[parent];
			if (path->buf)
				path->buf[path->len] = 0;
		}
		if (lines)
			depth_len[n] = path->len;
		if ((rc = path_push(path, cg_profile_function(prof, node->func)->name)))
			break;
		if (!lines)
			depth_len[n] = path->len;
		if (node->self[event] > 0) {
			const char *file;
			uint32_t line;
			size_t plain = path->len;
			if (lines && only_self_line(prof, part, node->func, &file, &line) &&
			    (rc = path_suffix(path, file, line)))
				break;
			put_line(out, path, node->self[event]);
			path->len = plain;
			path->buf[plain] = 0;
		}
		if (node->first_child != CG_NO_NODE) {
			n = node->first_child;
			continue;
		}
		while (n != CG_NO_NODE) {
			const cg_node *x = cg_profile_node(prof, part, n);
			if (x->next_sibling != CG_NO_NODE) {
				n = x->next_sibling;
				break;
			}
			n = x->parent == 0 ? CG_NO_NODE : x->parent;
		}
	}
	free(depth_len);
	return rc;
}

/* One-frame stacks per (function, line) of f's self positions, summed
 * per line in the order the lines first come; 0 when f has none. */
static int write_self_lines(const cg_profile *p, unsigned part, cg_fid f, int event, FILE *out,
			    struct path *path, size_t base, int *done)
{
	size_t n = 0, cursor = 0;
	cg_position pos;
	const cg_cost *c;
	*done = 0;
	while (cg_profile_next_self_position(p, part, f, &cursor, &pos, &c))
		n++;
	if (!n)
		return 0;
	struct line_sum {
		const char *file;
		uint32_t line;
		cg_cost v;
	} *sums = malloc(n * sizeof *sums);
	if (!sums)
		return CG_ENOMEM;
	size_t k = 0;
	cursor = 0;
	while (cg_profile_next_self_position(p, part, f, &cursor, &pos, &c)) {
		size_t j = 0;
		while (j < k && !(sums[j].line == pos.line && sums[j].file == pos.file))
			j++;
		if (j == k)
			sums[k++] = (struct line_sum){ pos.file, pos.line, 0 };
		sums[j].v += c[event];
	}
	int rc = 0;
	for (size_t j = 0; j < k && !rc; j++) {
		if (sums[j].v <= 0)
			continue;
		path->len = base;
		if (!(rc = path_push(path, cg_profile_function(p, f)->name)) &&
		    (!sums[j].line || !(rc = path_suffix(path, sums[j].file, sums[j].line))))
			put_line(out, path, sums[j].v);
	}
	free(sums);
	*done = 1;
	return rc;
}

int cg_write_folded(const cg_profile *p, FILE *out, int event, cg_error *err)
{
	return cg_folded_write(p, out, event, 0, err);
}

int cg_folded_write(const cg_profile *p, FILE *out, int event, int lines, cg_error *err)
{
	if (event < 0)
		event = 0;
	if ((size_t)event >= cg_profile_event_count(p))
		return cg_error_set(err, CG_EUSAGE, "folded: the profile has no event %d", event);
	struct path path = { 0 };
	int rc = 0;
	unsigned nparts = (unsigned)cg_profile_part_count(p);
	for (unsigned part = 0; part < nparts && !rc; part++) {
		path.len = 0;
		/* several parts: the part is the bottom frame */
		if (nparts > 1) {
			const char *name = cg_profile_part_name(p, part);
			char fallback[32];
			if (!name || !*name) {
				snprintf(fallback, sizeof fallback, "part %u", part + 1);
				name = fallback;
			}
			if ((rc = path_push(&path, name)))
				break;
		}
		size_t base = path.len;
		if (cg_profile_node_count(p, part) > 1) {
			rc = write_tree(p, part, out, event, &path, base, lines);
			continue;
		}
		for (size_t f = 0; f < cg_profile_function_count(p) && !rc; f++) {
			cg_cost v = cg_profile_self(p, part, (cg_fid)f)[event];
			if (v <= 0)
				continue;
			int done = 0;
			if (lines && ((rc = write_self_lines(p, part, (cg_fid)f, event, out, &path, base,
							     &done)) || done))
				continue;
			path.len = base;
			if (!(rc = path_push(&path, cg_profile_function(p, (cg_fid)f)->name)))
				put_line(out, &path, v);
		}
	}
	free(path.buf);
	if (rc)
		return cg_error_set(err, rc, "folded: out of memory");
	if (ferror(out))
		return cg_error_set(err, CG_EIO, "folded: write error");
	return 0;
}
