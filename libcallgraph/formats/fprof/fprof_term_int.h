/*
 * fprof_term_int.h — what the files of the term layer share (internal to
 * fprof_buf.c, fprof_etf.c, fprof_print.c, fprof_pretty.c, fprof_order.c
 * and fprof_parse.c; the rest of the fprof code uses fprof_term.h).
 *
 * Terms can nest as deep as their input allows (a trace of 100 KB holds a
 * term 9,000 levels deep), so no function of the term layer recurses on
 * the nesting: each walks the tree with an explicit stack on the heap,
 * grown with fprof_stack_reserve.
 */
#ifndef CG_FPROF_TERM_INT_H
#define CG_FPROF_TERM_INT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fprof_term.h"

/* Room for one more element of `elem` bytes in *base (n used, *cap held);
 * 0 or CG_ENOMEM.  Doubles, checking the byte count for overflow. */
static inline int fprof_stack_reserve(void **base, size_t n, size_t *cap, size_t elem)
{
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 32;
	if (ncap < *cap || ncap > SIZE_MAX / elem)
		return CG_ENOMEM;
	void *p = realloc(*base, ncap * elem);
	if (!p)
		return CG_ENOMEM;
	*base = p;
	*cap = ncap;
	return 0;
}

/* Decodes one UTF-8 code point (invalid bytes count as themselves). */
static inline uint32_t fprof_utf8_next(const char **ps, const char *end)
{
	const unsigned char *s = (const unsigned char *)*ps;
	uint32_t c = *s;
	int n = c >= 0xF0 && c < 0xF8 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
	if (c >= 0x80 && c < 0xC0)
		n = 0;
	if ((const char *)s + n >= end)
		n = 0;
	if (n) {
		c &= 0x3F >> n;
		for (int i = 1; i <= n; i++) {
			if ((s[i] & 0xC0) != 0x80) {
				c = *s;
				n = 0;
				break;
			}
			c = c << 6 | (s[i] & 0x3F);
		}
	}
	*ps = (const char *)s + n + 1;
	return c;
}

/* Characters (not bytes) of UTF-8 text. */
static inline size_t fprof_utf8_chars(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

/* Encodes c as UTF-8 into d (room for 4); returns the byte count. */
static inline int fprof_utf8_put(char *d, uint32_t c)
{
	if (c < 0x80) {
		d[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		d[0] = (char)(0xC0 | c >> 6);
		d[1] = (char)(0x80 | (c & 0x3F));
		return 2;
	}
	if (c < 0x10000) {
		d[0] = (char)(0xE0 | c >> 12);
		d[1] = (char)(0x80 | (c >> 6 & 0x3F));
		d[2] = (char)(0x80 | (c & 0x3F));
		return 3;
	}
	d[0] = (char)(0xF0 | c >> 18);
	d[1] = (char)(0x80 | (c >> 12 & 0x3F));
	d[2] = (char)(0x80 | (c >> 6 & 0x3F));
	d[3] = (char)(0x80 | (c & 0x3F));
	return 4;
}

/* Erlang's atom characters (Latin-1 letters count as letters). */
static inline int fprof_is_lower_l1(uint32_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 0xDF && c <= 0xFF && c != 0xF7);
}

static inline int fprof_is_name_l1(uint32_t c)
{
	return fprof_is_lower_l1(c) || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '@' || (c >= 0xC0 && c <= 0xDE && c != 0xD7);
}

/* fprof writes to a Latin-1 device: ~tp then prints a list as a string
 * only when every character is printable Latin-1 (or one of the escapes
 * below). */
static inline int fprof_printable_latin1(uint32_t c)
{
	return (c >= 0x20 && c <= 0x7E) || (c >= 0xA0 && c <= 0xFF);
}

static inline int fprof_printable_char(uint32_t c)
{
	return fprof_printable_latin1(c) || c == '\n' || c == '\r' || c == '\t' || c == '\v' ||
	       c == '\b' || c == '\f' || c == 27;
}

/* A new term of `kind` in the arena; NULL when out of memory. */
static inline fprof_term *fprof_new_term(fprof_arena *a, int kind)
{
	fprof_term *t = cg_fprof_arena_alloc(a, sizeof *t);
	if (t)
		t->kind = (uint8_t)kind;
	return t;
}

/* A list whose elements are all printable character codes (what ~tp
 * prints as "..."). */
int cg_fprof_list_is_string(const fprof_term *t);
/* A binary ~tp prints as <<"...">>. */
int cg_fprof_binary_is_text(const fprof_term *t);

#endif
