/*
 * fprof_etf.c — Erlang's external term format (what dbg's trace port
 * writes): decoding to fprof_term trees and skipping.
 *
 * Both walk the term with an explicit stack (decoding) or a count of terms
 * still to read (skipping), never by recursion, so any nesting the input
 * holds is fine, and both take time linear in the input.  A container's
 * element count is checked against the bytes left before anything is
 * allocated for it (each element takes at least one byte), so a header
 * claiming 2^32 elements fails at once.  On an error, *p points at the
 * term that could not be read: the caller reports that byte offset.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fprof_term_int.h"

#define NEED(n)                                                          \
	do {                                                             \
		if ((uint64_t)(end - p) < (uint64_t)(n)) {               \
			*why = "term truncated";                         \
			return CG_EFORMAT;                               \
		}                                                        \
	} while (0)

enum {
	TAG_NEW_FLOAT = 70, TAG_BIT_BINARY = 77, TAG_COMPRESSED = 80, TAG_NEW_PID = 88,
	TAG_NEW_PORT = 89, TAG_NEWER_REF = 90, TAG_SMALL_INT = 97, TAG_INT = 98, TAG_FLOAT = 99,
	TAG_ATOM = 100, TAG_REF = 101, TAG_PORT = 102, TAG_PID = 103, TAG_SMALL_TUPLE = 104,
	TAG_LARGE_TUPLE = 105, TAG_NIL = 106, TAG_STRING = 107, TAG_LIST = 108, TAG_BINARY = 109,
	TAG_SMALL_BIG = 110, TAG_LARGE_BIG = 111, TAG_NEW_FUN = 112, TAG_EXPORT = 113,
	TAG_NEW_REF = 114, TAG_SMALL_ATOM = 115, TAG_MAP = 116, TAG_ATOM_UTF8 = 118,
	TAG_SMALL_ATOM_UTF8 = 119, TAG_V4_PORT = 120
};

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* Why a tag cannot be read: compressed terms get their own message since
 * binary_to_term would inflate them (dbg never writes one). */
static int bad_tag(uint8_t tag, const char **why)
{
	*why = tag == TAG_COMPRESSED ? "compressed term (tag 80)"
				     : "unsupported term tag";
	return CG_EFORMAT;
}

/* A container of `count` elements needs at least `count` more bytes. */
static int check_count(uint64_t count, const uint8_t *p, const uint8_t *end, const char **why)
{
	if (count > (uint64_t)(end - p)) {
		*why = "term header claims more elements than the data holds";
		return CG_EFORMAT;
	}
	return 0;
}

/* Reads an atom's header (any of the four atom encodings): its tag, and
 * in *pp the start of its `len` text bytes, which are known to be there. */
static int atom_header(const uint8_t **pp, const uint8_t *end, uint8_t *tag, size_t *len,
		       const char **why)
{
	const uint8_t *p = *pp;
	NEED(1);
	*tag = *p++;
	switch (*tag) {
	case TAG_ATOM: case TAG_ATOM_UTF8: NEED(2); *len = (size_t)p[0] << 8 | p[1]; p += 2; break;
	case TAG_SMALL_ATOM: case TAG_SMALL_ATOM_UTF8: NEED(1); *len = p[0]; p += 1; break;
	default: *why = "atom expected"; return CG_EFORMAT;
	}
	NEED(*len);
	*pp = p;
	return 0;
}

/* Skips an atom (the node of a pid, port or reference). */
static int skip_atom(const uint8_t **pp, const uint8_t *end, const char **why)
{
	uint8_t tag;
	size_t len;
	int rc = atom_header(pp, end, &tag, &len, why);
	if (rc == 0)
		*pp += len;
	return rc;
}

int cg_fprof_etf_skip(const uint8_t **pp, const uint8_t *end, const char **why)
{
	const uint8_t *p = *pp, *at = p;
	uint64_t pending = 1;   /* terms still to skip; containers add theirs */
	int rc = 0;
	while (pending > 0 && rc == 0) {
		pending--;
		at = p;
		if (p >= end) {
			*why = "term truncated";
			rc = CG_EFORMAT;
			break;
		}
		uint8_t tag = *p;
		uint64_t n;
		switch (tag) {
		case TAG_SMALL_INT: if (end - p < 2) goto truncated; p += 2; break;
		case TAG_INT: if (end - p < 5) goto truncated; p += 5; break;
		case TAG_NEW_FLOAT: if (end - p < 9) goto truncated; p += 9; break;
		case TAG_FLOAT: if (end - p < 32) goto truncated; p += 32; break;
		case TAG_ATOM: case TAG_SMALL_ATOM: case TAG_ATOM_UTF8: case TAG_SMALL_ATOM_UTF8:
			rc = skip_atom(&p, end, why);
			break;
		case TAG_SMALL_BIG:
			if (end - p < 3 || (uint64_t)(end - p - 3) < p[1]) goto truncated;
			p += 3 + (size_t)p[1];
			break;
		case TAG_LARGE_BIG:
			if (end - p < 6 || (uint64_t)(end - p - 6) < be32(p + 1)) goto truncated;
			p += 6 + (size_t)be32(p + 1);
			break;
		case TAG_SMALL_TUPLE: case TAG_LARGE_TUPLE: case TAG_MAP: case TAG_LIST:
			if (tag == TAG_SMALL_TUPLE) {
				if (end - p < 2) goto truncated;
				n = p[1];
				p += 2;
			} else {
				if (end - p < 5) goto truncated;
				n = be32(p + 1);
				p += 5;
				n = tag == TAG_MAP ? 2 * n : tag == TAG_LIST ? n + 1 : n;
			}
			pending += n;
			rc = check_count(pending, p, end, why);
			break;
		case TAG_NIL: p += 1; break;
		case TAG_STRING:
			if (end - p < 3) goto truncated;
			n = (size_t)p[1] << 8 | p[2];
			if ((uint64_t)(end - p - 3) < n) goto truncated;
			p += 3 + n;
			break;
		case TAG_BINARY: case TAG_BIT_BINARY: {
			size_t hdr = tag == TAG_BINARY ? 5 : 6;
			if ((size_t)(end - p) < hdr || (uint64_t)(end - p) - hdr < be32(p + 1)) goto truncated;
			p += hdr + be32(p + 1);
			break;
		}
		case TAG_NEW_PID: case TAG_PID: case TAG_NEW_PORT: case TAG_V4_PORT: case TAG_PORT:
		case TAG_REF: {
			p++;
			if ((rc = skip_atom(&p, end, why)))
				break;
			size_t fixed = tag == TAG_NEW_PID ? 12 : tag == TAG_PID ? 9 : tag == TAG_NEW_PORT ? 8
				     : tag == TAG_V4_PORT ? 12 : 5;
			if ((size_t)(end - p) < fixed) goto truncated;
			p += fixed;
			break;
		}
		case TAG_NEWER_REF: case TAG_NEW_REF: {
			if (end - p < 3) goto truncated;
			n = (size_t)p[1] << 8 | p[2];
			p += 3;
			if ((rc = skip_atom(&p, end, why)))
				break;
			size_t cr = tag == TAG_NEWER_REF ? 4 : 1;
			if ((uint64_t)(end - p) < cr + 4 * n) goto truncated;
			p += cr + 4 * n;
			break;
		}
		case TAG_NEW_FUN:
			if (end - p < 5) goto truncated;
			n = be32(p + 1);
			if (n < 4) {
				*why = "bad fun size";
				rc = CG_EFORMAT;
				break;
			}
			if ((uint64_t)(end - p - 1) < n) goto truncated;
			p += 1 + n;
			break;
		case TAG_EXPORT:
			p++;
			pending += 3;
			rc = check_count(pending, p, end, why);
			break;
		default:
			rc = bad_tag(tag, why);
			break;
		}
		continue;
truncated:
		*why = "term truncated";
		rc = CG_EFORMAT;
	}
	if (rc) {
		*pp = at;
		return rc;
	}
	*pp = p;
	return 0;
}

/* ---- decoding ---------------------------------------------------------------------- */

/* Latin-1 to UTF-8. */
static char *latin1_to_utf8(fprof_arena *a, const uint8_t *s, size_t len, size_t *outlen)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += s[i] < 0x80 ? 1 : 2;
	char *d = cg_fprof_arena_alloc(a, n + 1);
	if (!d)
		return NULL;
	char *q = d;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < 0x80) {
			*q++ = (char)s[i];
		} else {
			*q++ = (char)(0xC0 | s[i] >> 6);
			*q++ = (char)(0x80 | (s[i] & 0x3F));
		}
	}
	*outlen = n;
	return d;
}

static int make_string(fprof_arena *a, fprof_term *t, const char *s)
{
	t->kind = FT_STRING;
	t->n = (uint32_t)strlen(s);
	t->u.s = cg_fprof_arena_strdup(a, s, t->n);
	return t->u.s ? 0 : CG_ENOMEM;
}

/* Magnitude (little-endian bytes) to decimal text. */
static int big_to_text(fprof_arena *a, fprof_term *t, const uint8_t *mag, size_t n, int neg)
{
	if (n <= 8) {
		uint64_t v = 0;
		for (size_t i = n; i-- > 0;)
			v = v << 8 | mag[i];
		if (!neg && v <= INT64_MAX) {
			t->kind = FT_INT;
			t->u.i = (int64_t)v;
			return 0;
		}
		if (neg && v <= (uint64_t)INT64_MAX + 1) {
			t->kind = FT_INT;
			t->u.i = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
			return 0;
		}
	}
	/* Repeated division of a base-2^32 number by 10^9. */
	size_t words = (n + 3) / 4;
	uint32_t *w = calloc(words ? words : 1, sizeof *w);
	size_t cap = n * 3 + 16;
	char *digits = malloc(cap);
	if (!w || !digits) {
		free(w);
		free(digits);
		return CG_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		w[i / 4] |= (uint32_t)mag[i] << (8 * (i % 4));
	size_t nd = 0, top = words;
	while (top > 0 && w[top - 1] == 0)
		top--;
	if (top == 0)
		digits[nd++] = '0';
	while (top > 0) {
		uint64_t rem = 0;
		for (size_t i = top; i-- > 0;) {
			uint64_t cur = rem << 32 | w[i];
			w[i] = (uint32_t)(cur / 1000000000u);
			rem = cur % 1000000000u;
		}
		while (top > 0 && w[top - 1] == 0)
			top--;
		for (int k = 0; k < 9 && (top > 0 || rem); k++) {
			digits[nd++] = (char)('0' + rem % 10);
			rem /= 10;
		}
	}
	char *s = cg_fprof_arena_alloc(a, nd + 2);
	if (!s) {
		free(w);
		free(digits);
		return CG_ENOMEM;
	}
	size_t j = 0;
	if (neg)
		s[j++] = '-';
	while (nd > 0)
		s[j++] = digits[--nd];
	t->kind = FT_BIG;
	t->u.s = s;
	t->n = (uint32_t)j;
	free(w);
	free(digits);
	return 0;
}

static int read_atom_text(fprof_arena *a, const uint8_t **pp, const uint8_t *end,
			  const char **s, size_t *len, const char **why)
{
	const uint8_t *p = *pp;
	uint8_t tag;
	size_t n;
	int rc = atom_header(&p, end, &tag, &n, why);
	if (rc)
		return rc;
	if (tag == TAG_ATOM || tag == TAG_SMALL_ATOM) {
		*s = latin1_to_utf8(a, p, n, len);
	} else {
		*s = cg_fprof_arena_strdup(a, (const char *)p, n);
		*len = n;
	}
	if (!*s)
		return CG_ENOMEM;
	*pp = p + n;
	return 0;
}

/* Pids, ports and references become their text, as fprof's parsify does. */
static int decode_identifier(fprof_arena *a, uint8_t tag, const uint8_t **pp, const uint8_t *end,
			     fprof_term *t, const char **why)
{
	const uint8_t *p = *pp + 1;
	char text[128];
	uint32_t nwords = 0;
	int rc;
	if (tag == TAG_NEWER_REF || tag == TAG_NEW_REF) {
		NEED(2);
		nwords = (uint32_t)p[0] << 8 | p[1];
		p += 2;
	}
	if ((rc = skip_atom(&p, end, why)))
		return rc;
	if (tag == TAG_NEW_PID || tag == TAG_PID) {
		NEED(tag == TAG_NEW_PID ? 12 : 9);
		snprintf(text, sizeof text, "<0.%u.%u>", be32(p), be32(p + 4));
		p += tag == TAG_NEW_PID ? 12 : 9;
	} else if (tag == TAG_NEW_PORT || tag == TAG_PORT) {
		NEED(tag == TAG_NEW_PORT ? 8 : 5);
		snprintf(text, sizeof text, "#Port<0.%u>", be32(p));
		p += tag == TAG_NEW_PORT ? 8 : 5;
	} else if (tag == TAG_V4_PORT) {
		NEED(12);
		snprintf(text, sizeof text, "#Port<0.%llu>", (unsigned long long)be64(p));
		p += 12;
	} else if (tag == TAG_REF) {
		NEED(5);
		snprintf(text, sizeof text, "#Ref<0.%u>", be32(p));
		p += 5;
	} else {
		size_t cr = tag == TAG_NEWER_REF ? 4 : 1;
		NEED(cr + 4 * (size_t)nwords);
		p += cr;
		size_t k = (size_t)snprintf(text, sizeof text, "#Ref<0");
		/* Erlang prints the ID words last to first. */
		for (uint32_t i = nwords; i-- > 0 && k < sizeof text;)
			k += (size_t)snprintf(text + k, sizeof text - k, ".%u", be32(p + 4 * i));
		if (k < sizeof text)
			snprintf(text + k, sizeof text - k, ">");
		p += 4 * (size_t)nwords;
	}
	if ((rc = make_string(a, t, text)))
		return rc;
	*pp = p;
	return 0;
}

static int decode_one(fprof_arena *a, const uint8_t **pp, const uint8_t *end, fprof_term *t,
		      uint64_t *children, int in_fun, const char **why);

/* A part of a fun (module, index, uniq, arity): a term without elements. */
static int decode_fun_part(fprof_arena *a, const uint8_t **pp, const uint8_t *end, fprof_term *t,
			   const char **why)
{
	uint64_t children;
	int rc = decode_one(a, pp, end, t, &children, 1, why);
	if (rc == 0 && children > 0) {
		*why = "bad fun";
		return CG_EFORMAT;
	}
	return rc;
}

/* NEW_FUN_EXT: Size Arity Uniq(16) Index NumFree Module OldIndex OldUniq Pid Free...
 * printed as fprof prints a fun: #Fun<Module.OldIndex.OldUniq>. */
static int decode_fun(fprof_arena *a, const uint8_t **pp, const uint8_t *end, fprof_term *t,
		      const char **why)
{
	const uint8_t *p = *pp;
	NEED(5);
	uint32_t n = be32(p + 1);
	if (n < 4 + 1 + 16 + 8) {
		*why = "bad fun size";
		return CG_EFORMAT;
	}
	NEED(1 + (uint64_t)n);
	const uint8_t *fend = p + 1 + n;
	const uint8_t *q = p + 1 + 4 + 1 + 16 + 8;
	const char *mod;
	size_t mlen;
	fprof_term oi = { 0 }, ou = { 0 };
	int rc;
	if ((rc = read_atom_text(a, &q, fend, &mod, &mlen, why)) ||
	    (rc = decode_fun_part(a, &q, fend, &oi, why)) ||
	    (rc = decode_fun_part(a, &q, fend, &ou, why)))
		return rc;
	fprof_buf b = { 0 };
	cg_fprof_buf_adds(&b, "#Fun<");
	cg_fprof_buf_add(&b, mod, mlen);
	cg_fprof_buf_addc(&b, '.');
	cg_fprof_term_write(&b, &oi);
	cg_fprof_buf_addc(&b, '.');
	cg_fprof_term_write(&b, &ou);
	cg_fprof_buf_addc(&b, '>');
	rc = b.oom ? CG_ENOMEM : make_string(a, t, cg_fprof_buf_cstr(&b));
	cg_fprof_buf_release(&b);
	if (rc == 0)
		*pp = fend;
	return rc;
}

/* EXPORT_EXT: fun M:F/A. */
static int decode_export(fprof_arena *a, const uint8_t **pp, const uint8_t *end, fprof_term *t,
			 const char **why)
{
	const uint8_t *p = *pp + 1;
	fprof_term m = { 0 }, f = { 0 }, ar = { 0 };
	int rc;
	if ((rc = decode_fun_part(a, &p, end, &m, why)) || (rc = decode_fun_part(a, &p, end, &f, why)) ||
	    (rc = decode_fun_part(a, &p, end, &ar, why)))
		return rc;
	fprof_buf b = { 0 };
	cg_fprof_buf_adds(&b, "fun ");
	cg_fprof_term_write(&b, &m);
	cg_fprof_buf_addc(&b, ':');
	cg_fprof_term_write(&b, &f);
	cg_fprof_buf_addc(&b, '/');
	cg_fprof_term_write(&b, &ar);
	rc = b.oom ? CG_ENOMEM : make_string(a, t, cg_fprof_buf_cstr(&b));
	cg_fprof_buf_release(&b);
	if (rc == 0)
		*pp = p;
	return rc;
}

/* Allocates the element slots of a container (count, plus one for a
 * list's tail or as a spare), after checking the data can hold them. */
static int alloc_elements(fprof_arena *a, fprof_term *t, uint64_t count, const uint8_t *p,
			  const uint8_t *end, const char **why)
{
	int rc = check_count(count, p, end, why);
	if (rc)
		return rc;
	t->u.e = cg_fprof_arena_alloc(a, (size_t)(count + 1) * sizeof(fprof_term));
	return t->u.e ? 0 : CG_ENOMEM;
}

/* Decodes the term at *pp into *t, except the elements of a container:
 * *children says how many of them follow (in t->u.e[0..*children-1]).
 * Inside a fun (in_fun) only terms without elements are allowed, so the
 * nesting stays in the caller's explicit stack. */
static int decode_one(fprof_arena *a, const uint8_t **pp, const uint8_t *end, fprof_term *t,
		      uint64_t *children, int in_fun, const char **why)
{
	const uint8_t *p = *pp;
	NEED(1);
	uint8_t tag = *p;
	uint64_t n;
	int rc = 0;
	const char *s;
	size_t len;
	*children = 0;
	t->kind = FT_NIL;
	switch (tag) {
	case TAG_SMALL_INT: NEED(2); t->kind = FT_INT; t->u.i = p[1]; p += 2; break;
	case TAG_INT: NEED(5); t->kind = FT_INT; t->u.i = (int32_t)be32(p + 1); p += 5; break;
	case TAG_NEW_FLOAT: {
		NEED(9);
		uint64_t bits = be64(p + 1);
		double d;
		memcpy(&d, &bits, sizeof d);
		t->kind = FT_FLOAT;
		t->u.f = d;
		p += 9;
		break;
	}
	case TAG_FLOAT: {
		NEED(32);
		char tmp[32];
		memcpy(tmp, p + 1, 31);
		tmp[31] = '\0';
		t->kind = FT_FLOAT;
		t->u.f = strtod(tmp, NULL);
		p += 32;
		break;
	}
	case TAG_ATOM: case TAG_SMALL_ATOM: case TAG_ATOM_UTF8: case TAG_SMALL_ATOM_UTF8:
		if ((rc = read_atom_text(a, &p, end, &s, &len, why)))
			return rc;
		t->kind = FT_ATOM;
		t->u.s = s;
		t->n = (uint32_t)len;
		break;
	case TAG_SMALL_BIG: case TAG_LARGE_BIG: {
		int neg;
		if (tag == TAG_SMALL_BIG) { NEED(3); n = p[1]; neg = p[2]; p += 3; }
		else { NEED(6); n = be32(p + 1); neg = p[5]; p += 6; }
		NEED(n);
		if ((rc = big_to_text(a, t, p, (size_t)n, neg != 0)))
			return rc;
		p += n;
		break;
	}
	case TAG_SMALL_TUPLE: case TAG_LARGE_TUPLE:
		if (tag == TAG_SMALL_TUPLE) { NEED(2); n = p[1]; p += 2; }
		else { NEED(5); n = be32(p + 1); p += 5; }
		t->kind = FT_TUPLE;
		t->n = (uint32_t)n;
		if ((rc = alloc_elements(a, t, n, p, end, why)))
			return rc;
		*children = n;
		break;
	case TAG_MAP:
		NEED(5);
		n = be32(p + 1);
		p += 5;
		t->kind = FT_MAP;
		t->n = (uint32_t)n;
		if ((rc = alloc_elements(a, t, 2 * n, p, end, why)))
			return rc;
		*children = 2 * n;
		break;
	case TAG_NIL: t->kind = FT_NIL; p += 1; break;
	case TAG_STRING: {
		NEED(3);
		n = (size_t)p[1] << 8 | p[2];
		p += 3;
		NEED(n);
		if (n == 0)
			break;   /* FT_NIL */
		/* A list of bytes: fprof prints it as a string when printable,
		 * else as a list of integers. */
		t->kind = FT_LIST;
		t->n = (uint32_t)n;
		t->u.e = cg_fprof_arena_alloc(a, (n + 1) * sizeof(fprof_term));
		if (!t->u.e)
			return CG_ENOMEM;
		for (uint64_t i = 0; i < n; i++) {
			t->u.e[i].kind = FT_INT;
			t->u.e[i].u.i = p[i];
		}
		t->u.e[n].kind = FT_NIL;
		p += n;
		break;
	}
	case TAG_LIST:
		NEED(5);
		n = be32(p + 1);
		p += 5;
		t->kind = FT_LIST;
		t->n = (uint32_t)n;
		if ((rc = alloc_elements(a, t, n + 1, p, end, why)))
			return rc;
		*children = n + 1;   /* the elements, then the tail */
		break;
	case TAG_BINARY: case TAG_BIT_BINARY: {
		size_t hdr = tag == TAG_BINARY ? 5 : 6;
		NEED(hdr);
		n = be32(p + 1);
		int bits = tag == TAG_BIT_BINARY ? p[5] : 8;
		if (bits < 1 || bits > 8 || (tag == TAG_BIT_BINARY && n == 0 && bits != 8)) {
			if (!(tag == TAG_BIT_BINARY && n == 0)) {
				*why = "bad bit count in bitstring";
				return CG_EFORMAT;
			}
			bits = 8;
		}
		p += hdr;
		NEED(n);
		t->kind = FT_BINARY;
		t->n = (uint32_t)n;
		t->bits = (uint8_t)bits;
		t->u.s = cg_fprof_arena_strdup(a, (const char *)p, (size_t)n);
		if (!t->u.s)
			return CG_ENOMEM;
		p += n;
		break;
	}
	case TAG_NEW_PID: case TAG_PID: case TAG_NEW_PORT: case TAG_V4_PORT: case TAG_PORT:
	case TAG_REF: case TAG_NEWER_REF: case TAG_NEW_REF:
		if ((rc = decode_identifier(a, tag, &p, end, t, why)))
			return rc;
		break;
	case TAG_NEW_FUN: case TAG_EXPORT:
		if (in_fun) {
			*why = "bad fun";
			return CG_EFORMAT;
		}
		rc = tag == TAG_NEW_FUN ? decode_fun(a, &p, end, t, why) : decode_export(a, &p, end, t, why);
		if (rc)
			return rc;
		break;
	default:
		return bad_tag(tag, why);
	}
	*pp = p;
	return 0;
}

/* A container whose elements are still being decoded. */
struct decode_frame {
	fprof_term *t;
	uint64_t next, count;
};

int cg_fprof_etf_decode(fprof_arena *a, const uint8_t **pp, const uint8_t *end, fprof_term **out,
			const char **why)
{
	const uint8_t *p = *pp;
	fprof_term *root = fprof_new_term(a, FT_NIL);
	if (!root)
		return CG_ENOMEM;
	struct decode_frame *stack = NULL;
	size_t depth = 0, cap = 0;
	fprof_term *dest = root;
	int rc = 0;
	for (;;) {
		const uint8_t *at = p;
		uint64_t children;
		if ((rc = decode_one(a, &p, end, dest, &children, 0, why))) {
			p = at;
			break;
		}
		if (children > 0) {
			if ((rc = fprof_stack_reserve((void **)&stack, depth, &cap, sizeof *stack)))
				break;
			stack[depth++] = (struct decode_frame){ dest, 0, children };
		}
		/* pop finished containers; the next term fills the next slot */
		while (depth > 0 && stack[depth - 1].next == stack[depth - 1].count) {
			fprof_term *t = stack[--depth].t;
			if (t->kind == FT_LIST && t->n == 0)
				*t = t->u.e[0];   /* LIST_EXT of no elements: just its tail */
		}
		if (depth == 0)
			break;
		struct decode_frame *top = &stack[depth - 1];
		dest = &top->t->u.e[top->next++];
	}
	free(stack);
	*pp = p;
	if (rc)
		return rc;
	*out = root;
	return 0;
}
