/*
 * fprof_buf.c — the growable byte buffer the fprof code prints into.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fprof_term.h"

static int buf_reserve(fprof_buf *b, size_t more)
{
	if (b->oom)
		return -1;
	if (b->cap - b->len > more)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap - b->len <= more)
		cap *= 2;
	char *d = realloc(b->data, cap);
	if (!d) {
		b->oom = 1;
		return -1;
	}
	b->data = d;
	b->cap = cap;
	return 0;
}

void cg_fprof_buf_add(fprof_buf *b, const char *s, size_t len)
{
	if (buf_reserve(b, len))
		return;
	memcpy(b->data + b->len, s, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void cg_fprof_buf_adds(fprof_buf *b, const char *s)
{
	cg_fprof_buf_add(b, s, strlen(s));
}

void cg_fprof_buf_addc(fprof_buf *b, char c)
{
	cg_fprof_buf_add(b, &c, 1);
}

void cg_fprof_buf_addf(fprof_buf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof tmp) {
		cg_fprof_buf_add(b, tmp, (size_t)n);
		return;
	}
	if (buf_reserve(b, (size_t)n + 1))
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

const char *cg_fprof_buf_cstr(fprof_buf *b)
{
	if (!b->data && buf_reserve(b, 1) == 0)
		b->data[0] = '\0';
	return b->data ? b->data : "";
}

void cg_fprof_buf_release(fprof_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
}
