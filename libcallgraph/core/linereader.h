/*
 * linereader.h — reading a text input line by line with bounded memory.
 *
 * getline() grows its buffer until it meets a newline, so an input without
 * one (/dev/zero, a binary file named as text) takes all memory.  This
 * reader refuses a NUL byte (text profiles have none) and a line longer
 * than its limit as soon as it sees them, naming the line and byte offset.
 * Not part of the public API.
 */
#ifndef CG_LINEREADER_H
#define CG_LINEREADER_H

#include <stdint.h>
#include <stdio.h>

#include "callgraph/common.h"

/* Longest line the text readers accept: far beyond any real profile's
 * (long C++ names are a few KiB), small enough to fail fast. */
#define CG_TEXT_LINE_MAX ((size_t)16 << 20)

typedef struct cg_line_reader {
	FILE *in;
	const char *name;    /* for messages */
	size_t max_line;
	char *buf;           /* buffered input; lines are handed out in place */
	size_t cap, start, end;
	int at_eof;
	uint64_t offset;     /* byte offset of buf[start] in the input */
	uint64_t line;       /* number of the last line returned */
	int unterminated;    /* the last line returned had no '\n' (end of input) */
} cg_line_reader;

void cg_line_reader_init(cg_line_reader *r, FILE *in, const char *name, size_t max_line);
/* The next line, without its '\n' and NUL-terminated (it may be modified
 * in place), valid until the next call.  Returns 1 for
 * a line, 0 at the end of input, or a negative cg_status with err set
 * (CG_EFORMAT for a NUL byte or an overlong line, CG_EIO, CG_ENOMEM). */
int cg_line_reader_next(cg_line_reader *r, char **line, size_t *len, cg_error *err);
void cg_line_reader_release(cg_line_reader *r);

#endif
