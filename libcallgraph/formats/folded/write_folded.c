/*
 * write_folded.c — folded stacks ("main;work;leaf 42"), the input of
 * FlameGraph's flamegraph.pl, inferno and speedscope.
 *
 * Stacks come from the call tree; a part without one gives one-frame
 * stacks (self cost per function), since arcs alone do not say which
 * paths the cost took.
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

static void put_line(FILE *out, const struct path *p, cg_cost v)
{
	fwrite(p->buf, 1, p->len, out);
	fprintf(out, " %" PRId64 "\n", v);
}

static int write_tree(const cg_profile *prof, unsigned part, FILE *out, int event,
		      struct path *path, size_t base)
{
	size_t nn = cg_profile_node_count(prof, part);
	size_t *depth_len = malloc((nn ? nn : 1) * sizeof *depth_len);
	if (!depth_len)
		return CG_ENOMEM;
	int rc = 0;
	/* iterative preorder walk: call trees of deep recursion are deep */
	cg_nid n = cg_profile_node(prof, part, 0)->first_child;
	while (n != CG_NO_NODE && !rc) {
		const cg_node *node = cg_profile_node(prof, part, n);
		cg_nid parent = node->parent;
		path->len = parent == 0 ? base : depth_len[parent];
		if (path->buf)
			path->buf[path->len] = 0;
		if ((rc = path_push(path, cg_profile_function(prof, node->func)->name)))
			break;
		depth_len[n] = path->len;
		if (node->self[event] > 0)
			put_line(out, path, node->self[event]);
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

int cg_write_folded(const cg_profile *p, FILE *out, int event, cg_error *err)
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
			rc = write_tree(p, part, out, event, &path, base);
			continue;
		}
		for (size_t f = 0; f < cg_profile_function_count(p) && !rc; f++) {
			cg_cost v = cg_profile_self(p, part, (cg_fid)f)[event];
			if (v <= 0)
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
