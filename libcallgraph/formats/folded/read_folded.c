/*
 * read_folded.c — folded stacks ("main;work;leaf 42", what
 * stackcollapse-*.pl, inferno, Pyroscope and our own writer produce) into
 * a call tree: each line is one path, root first, and its count the self
 * cost of its last frame in one event, "samples".  Equal paths add up.
 * Frames are functions by name only (folded stacks carry nothing else);
 * empty frames ("a;;b") are skipped.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "callgraph/sys/format.h"
#include "../stacks/stack_tree.h"
#include "linereader.h"
#include "folded_internal.h"

static int bad(cg_error *err, const char *name, uint64_t line, uint64_t offset, const char *what)
{
	return cg_error_set(err, CG_EFORMAT, "%s: line %" PRIu64 " (byte offset %" PRIu64 "): %s",
			    name, line, offset, what);
}

static int read_lines(cg_profile *p, struct cg_stack_tree *tree, FILE *in, const char *name,
		      cg_error *err)
{
	/* bounded: a NUL byte or an endless line fails at once */
	cg_line_reader lines;
	cg_line_reader_init(&lines, in, name, CG_TEXT_LINE_MAX);
	char *line;
	size_t len;
	int got = 0;
	uint64_t lineno = 0, offset = 0, stacks = 0;
	int rc = 0;
	uint32_t root;
	if (cg_stack_tree_root(tree, 0, &root))
		rc = CG_ENOMEM;
	while (!rc && (got = cg_line_reader_next(&lines, &line, &len, err)) > 0) {
		lineno++;
		uint64_t at = offset;
		offset += (uint64_t)len + 1;
		while (len && line[len - 1] == '\r')
			len--;
		if (len == 0 || line[0] == '#')
			continue;
		char *space = NULL;
		for (size_t i = len; i-- > 0;)
			if (line[i] == ' ' || line[i] == '\t') {
				space = line + i;
				break;
			}
		if (!space || space + 1 == line + len) {
			rc = bad(err, name, lineno, at, "no count at the end (\"frame;frame COUNT\")");
			break;
		}
		line[len] = 0;
		char *end;
		errno = 0;
		long long count = strtoll(space + 1, &end, 10);
		if (*end || errno || count < 0 || space[1] == '-' || space[1] == '+') {
			rc = bad(err, name, lineno, at, "the count is not a non-negative integer");
			break;
		}
		uint32_t node = root;
		const char *frame = line;
		const char *stack_end = space;
		int frames = 0;
		while (frame < stack_end && !rc) {
			const char *semi = memchr(frame, ';', (size_t)(stack_end - frame));
			const char *fend = semi ? semi : stack_end;
			if (fend > frame) {
				const char *fname = cg_profile_intern_len(p, frame, (size_t)(fend - frame));
				cg_fid f;
				if (!fname || cg_profile_intern_function(p, fname, NULL, NULL, &f) ||
				    cg_stack_tree_child(tree, node, f, &node))
					rc = CG_ENOMEM;
				frames++;
			}
			frame = fend + 1;
		}
		if (rc)
			break;
		if (!frames) {
			rc = bad(err, name, lineno, at, "a count without frames");
			break;
		}
		if ((rc = cg_stack_tree_add(tree, node, 0, count)) == CG_EFORMAT) {
			rc = bad(err, name, lineno, at, "the counts add up to more than 2^62");
			break;
		}
		stacks++;
	}
	cg_line_reader_release(&lines);
	if (!rc && got < 0)
		return got;
	if (rc == CG_ENOMEM)
		return cg_error_set(err, rc, "%s: out of memory", name);
	if (!rc && !stacks)
		return cg_error_set(err, CG_EFORMAT, "%s: no stacks in it", name);
	return rc;
}

int cg_folded_read(cg_profile **out, cg_source *src, cg_error *err)
{
	*out = NULL;
	const char *name = cg_source_name(src);
	FILE *in;
	int rc = cg_source_stream(src, &in, err);
	if (rc)
		return rc;
	cg_profile *p;
	if (cg_profile_new(&p))
		return cg_error_set(err, CG_ENOMEM, "%s: out of memory", name);
	struct cg_stack_tree tree = { 0 };
	rc = read_lines(p, &tree, in, name, err);
	if (!rc && cg_profile_add_event(p, "samples", "samples (folded stack counts)", 0) < 0)
		rc = cg_error_set(err, CG_ENOMEM, "%s: out of memory", name);
	if (!rc && (rc = cg_stack_tree_emit(&tree, p, err))) {
		char why[CG_ERROR_MSG_MAX];
		snprintf(why, sizeof why, "%s", err->message);
		cg_error_set(err, rc, "%s: %s", name, why);
	}
	cg_stack_tree_release(&tree);
	if (rc) {
		cg_profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}
