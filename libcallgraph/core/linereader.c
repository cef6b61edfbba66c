/*
 * linereader.c — bounded line reading (see linereader.h).
 *
 * The input is read in blocks with fread into one buffer; a line is found
 * with memchr and handed out in place, so the common case copies nothing.
 * The buffer only grows while a single line is longer than it, and never
 * much past the line limit, which bounds memory whatever the input.
 * Lines are returned without their '\n', NUL-terminated in place.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "linereader.h"

#define BLOCK ((size_t)64 << 10)

void cg_line_reader_init(cg_line_reader *r, FILE *in, const char *name, size_t max_line)
{
	memset(r, 0, sizeof *r);
	r->in = in;
	r->name = name;
	r->max_line = max_line ? max_line : CG_TEXT_LINE_MAX;
}

void cg_line_reader_release(cg_line_reader *r)
{
	free(r->buf);
	r->buf = NULL;
	r->cap = r->start = r->end = 0;
}

/* Reads one more block after the buffered bytes, moving them to the front
 * or growing the buffer first.  0, or a cg_status with err set. */
static int refill(cg_line_reader *r, cg_error *err)
{
	size_t have = r->end - r->start;
	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, have);
		r->start = 0;
		r->end = have;
	}
	/* +1: room for the terminating NUL of a last unterminated line. */
	if (r->cap - r->end < BLOCK + 1) {
		size_t want = r->end + BLOCK + 1;
		size_t cap = r->cap ? r->cap : want;
		while (cap < want)
			cap *= 2;
		char *nb = realloc(r->buf, cap);
		if (!nb)
			return cg_error_set(err, CG_ENOMEM, "%s: out of memory", r->name);
		r->buf = nb;
		r->cap = cap;
	}
	size_t n = fread(r->buf + r->end, 1, r->cap - r->end - 1, r->in);
	if (n == 0) {
		if (ferror(r->in))
			return cg_error_set(err, CG_EIO, "%s: read error: %s", r->name,
					    strerror(errno));
		r->at_eof = 1;
	}
	/* NUL bytes are refused where they arrive, before they can be part of
	 * an endless line. */
	const char *nul = n ? memchr(r->buf + r->end, 0, n) : NULL;
	if (nul) {
		uint64_t at = r->offset + (uint64_t)(nul - (r->buf + r->start));
		uint64_t line = r->line + 1;   /* the NUL's own line, maybe ahead of the caller */
		for (const char *q = r->buf + r->start; (q = memchr(q, '\n', (size_t)(nul - q))); q++)
			line++;
		return cg_error_set(err, CG_EFORMAT,
				    "%s:%llu: NUL byte at byte offset %llu: binary data, not a text profile",
				    r->name, (unsigned long long)line, (unsigned long long)at);
	}
	r->end += n;
	return 0;
}

int cg_line_reader_next(cg_line_reader *r, char **line, size_t *len, cg_error *err)
{
	size_t scanned = 0;   /* bytes of the current line known to hold no '\n' */
	for (;;) {
		/* no buffer before the first refill (arithmetic on NULL is
		 * undefined, even adding 0: clang's UBSan in make fuzz) */
		char *from = r->buf ? r->buf + r->start : NULL;
		size_t have = r->end - r->start;
		char *nl = have > scanned ? memchr(from + scanned, '\n', have - scanned) : NULL;
		if (nl || (r->at_eof && have > 0)) {
			size_t n = nl ? (size_t)(nl - from) + 1 : have;
			if (n > r->max_line)
				break;
			/* In place: the '\n' becomes the terminator; a last line
			 * without one uses the spare byte refill() keeps free. */
			from[nl ? n - 1 : n] = 0;
			*line = from;
			*len = nl ? n - 1 : n;
			r->unterminated = !nl;
			r->start += n;
			r->offset += n;
			r->line++;
			return 1;
		}
		if (r->at_eof)
			return 0;
		if (have > r->max_line)
			break;
		scanned = have;
		int rc = refill(r, err);
		if (rc)
			return rc;
	}
	return cg_error_set(err, CG_EFORMAT, "%s:%llu: line longer than %zu bytes: not a text profile",
			    r->name, (unsigned long long)r->line + 1, r->max_line);
}
