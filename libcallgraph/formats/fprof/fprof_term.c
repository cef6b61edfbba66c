/*
 * fprof_term.c — Erlang terms for the fprof reader and writer: decoding
 * from the external term format, parsing from text, printing the way
 * `~tp` does, and Erlang's term order.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "fprof_term.h"

/* ---- arena ------------------------------------------------------------------ */

struct fprof_arena_chunk {
	struct fprof_arena_chunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

void *cg_fprof_arena_alloc(fprof_arena *a, size_t size)
{
	size = (size + 15) & ~(size_t)15;
	struct fprof_arena_chunk *c = a->head;
	if (!c || c->cap - c->used < size) {
		size_t cap = size > 16384 ? size : 16384;
		c = malloc(sizeof *c + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	void *p = c->data + c->used;
	c->used += size;
	memset(p, 0, size);
	return p;
}

char *cg_fprof_arena_strdup(fprof_arena *a, const char *s, size_t len)
{
	char *d = cg_fprof_arena_alloc(a, len + 1);
	if (d && len)
		memcpy(d, s, len);
	return d;
}

void cg_fprof_arena_release(fprof_arena *a)
{
	struct fprof_arena_chunk *c = a->head;
	while (c) {
		struct fprof_arena_chunk *n = c->next;
		free(c);
		c = n;
	}
	a->head = NULL;
}

/* ---- buffer ------------------------------------------------------------------- */

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

/* ---- external term format ------------------------------------------------------- */

#define NEED(n) do { if ((size_t)(end - p) < (size_t)(n)) { *why = "term truncated"; return CG_EFORMAT; } } while (0)

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

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

static const int DEPTH_MAX = 10000;

static int etf_skip_depth(const uint8_t **pp, const uint8_t *end, const char **why, int depth);

/* Reads an atom's header (any of the four atom encodings): its tag, and
 * in *pp the start of its `len` text bytes, which are known to be there. */
static int atom_header(const uint8_t **pp, const uint8_t *end, uint8_t *tag, size_t *len,
		       const char **why)
{
	const uint8_t *p = *pp;
	NEED(1);
	*tag = *p++;
	switch (*tag) {
	case 100: case 118: NEED(2); *len = (size_t)p[0] << 8 | p[1]; p += 2; break;
	case 115: case 119: NEED(1); *len = p[0]; p += 1; break;
	default: *why = "atom expected"; return CG_EFORMAT;
	}
	NEED(*len);
	*pp = p;
	return 0;
}

/* Reads a node atom (for pids etc.) and skips it. */
static int skip_atom(const uint8_t **pp, const uint8_t *end, const char **why)
{
	uint8_t tag;
	size_t len;
	int rc = atom_header(pp, end, &tag, &len, why);
	if (rc == 0)
		*pp += len;
	return rc;
}

static int etf_skip_depth(const uint8_t **pp, const uint8_t *end, const char **why, int depth)
{
	const uint8_t *p = *pp;
	if (depth > DEPTH_MAX) {
		*why = "term nested too deeply";
		return CG_EFORMAT;
	}
	NEED(1);
	uint8_t tag = *p;
	uint64_t n, i;
	int rc;
	switch (tag) {
	case 97: NEED(2); p += 2; break;
	case 98: NEED(5); p += 5; break;
	case 70: NEED(9); p += 9; break;
	case 99: NEED(32); p += 32; break;
	case 100: case 115: case 118: case 119:
		if ((rc = skip_atom(&p, end, why)))
			return rc;
		break;
	case 110: NEED(3); n = p[1]; p += 3; NEED(n); p += n; break;
	case 111: NEED(6); n = be32(p + 1); p += 6; NEED(n); p += n; break;
	case 104: case 105:
		if (tag == 104) { NEED(2); n = p[1]; p += 2; }
		else { NEED(5); n = be32(p + 1); p += 5; }
		for (i = 0; i < n; i++)
			if ((rc = etf_skip_depth(&p, end, why, depth + 1)))
				return rc;
		break;
	case 116:
		NEED(5); n = be32(p + 1); p += 5;
		for (i = 0; i < 2 * n; i++)
			if ((rc = etf_skip_depth(&p, end, why, depth + 1)))
				return rc;
		break;
	case 106: p += 1; break;
	case 107: NEED(3); n = (size_t)p[1] << 8 | p[2]; p += 3; NEED(n); p += n; break;
	case 108:
		NEED(5); n = be32(p + 1); p += 5;
		for (i = 0; i <= n; i++)
			if ((rc = etf_skip_depth(&p, end, why, depth + 1)))
				return rc;
		break;
	case 109: NEED(5); n = be32(p + 1); p += 5; NEED(n); p += n; break;
	case 77: NEED(6); n = be32(p + 1); p += 6; NEED(n); p += n; break;
	case 88: case 103: case 89: case 120: case 102: case 101: {
		p++;
		if ((rc = skip_atom(&p, end, why)))
			return rc;
		size_t fixed = tag == 88 ? 12 : tag == 103 ? 9 : tag == 89 ? 8 : tag == 120 ? 12 : 5;
		NEED(fixed);
		p += fixed;
		break;
	}
	case 90: case 114: {
		NEED(3);
		n = (size_t)p[1] << 8 | p[2];
		p += 3;
		if ((rc = skip_atom(&p, end, why)))
			return rc;
		size_t cr = tag == 90 ? 4 : 1;
		NEED(cr + 4 * n);
		p += cr + 4 * n;
		break;
	}
	case 112: NEED(5); n = be32(p + 1); if (n < 4) { *why = "bad fun size"; return CG_EFORMAT; } p += 1; NEED(n); p += n; break;
	case 113:
		p++;
		for (i = 0; i < 3; i++)
			if ((rc = etf_skip_depth(&p, end, why, depth + 1)))
				return rc;
		break;
	default:
		*why = "unsupported term tag";
		return CG_EFORMAT;
	}
	*pp = p;
	return 0;
}

int cg_fprof_etf_skip(const uint8_t **p, const uint8_t *end, const char **why)
{
	return etf_skip_depth(p, end, why, 0);
}

static fprof_term *new_term(fprof_arena *a, int kind)
{
	fprof_term *t = cg_fprof_arena_alloc(a, sizeof *t);
	if (t)
		t->kind = (uint8_t)kind;
	return t;
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
	if (tag == 100 || tag == 115)
		*s = latin1_to_utf8(a, p, n, len);
	else {
		*s = cg_fprof_arena_strdup(a, (const char *)p, n);
		*len = n;
	}
	if (!*s)
		return CG_ENOMEM;
	*pp = p + n;
	return 0;
}

static int decode_depth(fprof_arena *a, const uint8_t **pp, const uint8_t *end,
			fprof_term **out, const char **why, int depth);

static int decode_seq(fprof_arena *a, const uint8_t **pp, const uint8_t *end, fprof_term *t,
		      uint64_t count, const char **why, int depth)
{
	/* Every element takes at least one byte: reject counts the data
	 * cannot hold before allocating. */
	if (count > (uint64_t)(end - *pp)) {
		*why = "term truncated";
		return CG_EFORMAT;
	}
	t->u.e = cg_fprof_arena_alloc(a, (size_t)count * sizeof(fprof_term) + sizeof(fprof_term));
	if (!t->u.e)
		return CG_ENOMEM;
	for (uint64_t i = 0; i < count; i++) {
		fprof_term *e;
		int rc = decode_depth(a, pp, end, &e, why, depth + 1);
		if (rc)
			return rc;
		t->u.e[i] = *e;
	}
	return 0;
}

static int decode_depth(fprof_arena *a, const uint8_t **pp, const uint8_t *end,
			fprof_term **out, const char **why, int depth)
{
	const uint8_t *p = *pp;
	if (depth > DEPTH_MAX) {
		*why = "term nested too deeply";
		return CG_EFORMAT;
	}
	NEED(1);
	fprof_term *t = new_term(a, FT_NIL);
	if (!t)
		return CG_ENOMEM;
	uint8_t tag = *p;
	char text[128];
	uint64_t n;
	int rc = 0;
	const char *s;
	size_t len;
	switch (tag) {
	case 97: NEED(2); t->kind = FT_INT; t->u.i = p[1]; p += 2; break;
	case 98: NEED(5); t->kind = FT_INT; t->u.i = (int32_t)be32(p + 1); p += 5; break;
	case 70: {
		NEED(9);
		uint64_t bits = be64(p + 1);
		double d;
		memcpy(&d, &bits, sizeof d);
		t->kind = FT_FLOAT;
		t->u.f = d;
		p += 9;
		break;
	}
	case 99: {
		NEED(32);
		char tmp[32];
		memcpy(tmp, p + 1, 31);
		tmp[31] = '\0';
		t->kind = FT_FLOAT;
		t->u.f = strtod(tmp, NULL);
		p += 32;
		break;
	}
	case 100: case 115: case 118: case 119:
		if ((rc = read_atom_text(a, &p, end, &s, &len, why)))
			return rc;
		t->kind = FT_ATOM;
		t->u.s = s;
		t->n = (uint32_t)len;
		break;
	case 110: case 111: {
		int neg;
		if (tag == 110) { NEED(3); n = p[1]; neg = p[2]; p += 3; }
		else { NEED(6); n = be32(p + 1); neg = p[5]; p += 6; }
		NEED(n);
		if ((rc = big_to_text(a, t, p, (size_t)n, neg != 0)))
			return rc;
		p += n;
		break;
	}
	case 104: case 105:
		if (tag == 104) { NEED(2); n = p[1]; p += 2; }
		else { NEED(5); n = be32(p + 1); p += 5; }
		t->kind = FT_TUPLE;
		t->n = (uint32_t)n;
		if ((rc = decode_seq(a, &p, end, t, n, why, depth)))
			return rc;
		break;
	case 116:
		NEED(5); n = be32(p + 1); p += 5;
		t->kind = FT_MAP;
		t->n = (uint32_t)n;
		if (n > UINT32_MAX / 2 || (rc = decode_seq(a, &p, end, t, 2 * n, why, depth)))
			return rc ? rc : (*why = "map too large", CG_EFORMAT);
		break;
	case 106: t->kind = FT_NIL; p += 1; break;
	case 107: {
		NEED(3);
		n = (size_t)p[1] << 8 | p[2];
		p += 3;
		NEED(n);
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
		if (n == 0)
			t->kind = FT_NIL;
		p += n;
		break;
	}
	case 108: {
		NEED(5);
		n = be32(p + 1);
		p += 5;
		t->kind = FT_LIST;
		t->n = (uint32_t)n;
		if ((rc = decode_seq(a, &p, end, t, n + 1, why, depth)))
			return rc;
		if (n == 0)
			*t = t->u.e[0];   /* degenerate: just the tail */
		break;
	}
	case 109: case 77: {
		size_t hdr = tag == 109 ? 5 : 6;
		NEED(hdr);
		n = be32(p + 1);
		int bits = tag == 77 ? p[5] : 8;
		if (bits < 1 || bits > 8 || (tag == 77 && n == 0 && bits != 8)) {
			if (!(tag == 77 && n == 0)) {
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
	case 88: case 103: case 89: case 120: case 102: case 101: case 90: case 114: {
		/* parsify: pids, ports and references become their text. */
		p++;
		uint32_t nwords = 0;
		if (tag == 90 || tag == 114) {
			NEED(2);
			nwords = (uint32_t)p[0] << 8 | p[1];
			p += 2;
		}
		if ((rc = skip_atom(&p, end, why)))
			return rc;
		if (tag == 88 || tag == 103) {
			NEED(tag == 88 ? 12 : 9);
			snprintf(text, sizeof text, "<0.%u.%u>", be32(p), be32(p + 4));
			p += tag == 88 ? 12 : 9;
		} else if (tag == 89 || tag == 102) {
			NEED(tag == 89 ? 8 : 5);
			snprintf(text, sizeof text, "#Port<0.%u>", be32(p));
			p += tag == 89 ? 8 : 5;
		} else if (tag == 120) {
			NEED(12);
			snprintf(text, sizeof text, "#Port<0.%llu>", (unsigned long long)be64(p));
			p += 12;
		} else if (tag == 101) {
			NEED(5);
			snprintf(text, sizeof text, "#Ref<0.%u>", be32(p));
			p += 5;
		} else {
			size_t cr = tag == 90 ? 4 : 1;
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
		break;
	}
	case 112: {
		/* NEW_FUN_EXT: Size Arity Uniq(16) Index NumFree Module OldIndex OldUniq Pid Free... */
		NEED(5);
		n = be32(p + 1);
		if (n < 4 + 1 + 16 + 8) {
			*why = "bad fun size";
			return CG_EFORMAT;
		}
		const uint8_t *fend = p + 1 + n;
		NEED(1 + n);
		const uint8_t *q = p + 1 + 4 + 1 + 16 + 8;
		const char *mod;
		size_t mlen;
		if ((rc = read_atom_text(a, &q, fend, &mod, &mlen, why)))
			return rc;
		fprof_term *oi, *ou;
		if ((rc = decode_depth(a, &q, fend, &oi, why, depth + 1)) ||
		    (rc = decode_depth(a, &q, fend, &ou, why, depth + 1)))
			return rc;
		fprof_buf b = { 0 };
		cg_fprof_buf_adds(&b, "#Fun<");
		cg_fprof_buf_add(&b, mod, mlen);
		cg_fprof_buf_addc(&b, '.');
		cg_fprof_term_write(&b, oi);
		cg_fprof_buf_addc(&b, '.');
		cg_fprof_term_write(&b, ou);
		cg_fprof_buf_addc(&b, '>');
		rc = b.oom ? CG_ENOMEM : make_string(a, t, cg_fprof_buf_cstr(&b));
		cg_fprof_buf_release(&b);
		if (rc)
			return rc;
		p = fend;
		break;
	}
	case 113: {
		p++;
		fprof_term *m, *f, *ar;
		if ((rc = decode_depth(a, &p, end, &m, why, depth + 1)) ||
		    (rc = decode_depth(a, &p, end, &f, why, depth + 1)) ||
		    (rc = decode_depth(a, &p, end, &ar, why, depth + 1)))
			return rc;
		fprof_buf b = { 0 };
		cg_fprof_buf_adds(&b, "fun ");
		cg_fprof_term_write(&b, m);
		cg_fprof_buf_addc(&b, ':');
		cg_fprof_term_write(&b, f);
		cg_fprof_buf_addc(&b, '/');
		cg_fprof_term_write(&b, ar);
		rc = b.oom ? CG_ENOMEM : make_string(a, t, cg_fprof_buf_cstr(&b));
		cg_fprof_buf_release(&b);
		if (rc)
			return rc;
		break;
	}
	default:
		*why = "unsupported term tag";
		return CG_EFORMAT;
	}
	*pp = p;
	*out = t;
	return 0;
}

int cg_fprof_etf_decode(fprof_arena *a, const uint8_t **p, const uint8_t *end,
		     fprof_term **out, const char **why)
{
	return decode_depth(a, p, end, out, why, 0);
}

/* ---- printing ------------------------------------------------------------------- */

/* Decodes one UTF-8 code point (invalid bytes count as themselves). */
static uint32_t utf8_next(const char **ps, const char *end)
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

static size_t utf8_chars(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

static int is_lower_l1(uint32_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 0xDF && c <= 0xFF && c != 0xF7);
}

static int is_name_l1(uint32_t c)
{
	return is_lower_l1(c) || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '@' || (c >= 0xC0 && c <= 0xDE && c != 0xD7);
}

static int is_reserved(const char *s, size_t len)
{
	static const char *const words[] = {
		"after", "and", "andalso", "band", "begin", "bnot", "bor", "bsl", "bsr", "bxor",
		"case", "catch", "cond", "div", "end", "fun", "if", "let", "not", "of", "or",
		"orelse", "receive", "rem", "try", "when", "xor"
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i]) == len && memcmp(words[i], s, len) == 0)
			return 1;
	return 0;
}

/* fprof writes to a Latin-1 device: ~tp then prints a list as a string
 * only when every character is printable Latin-1. */
static int printable_latin1(uint32_t c)
{
	return (c >= 0x20 && c <= 0x7E) || (c >= 0xA0 && c <= 0xFF);
}

static int printable_unicode(uint32_t c)
{
	return (c >= 0x20 && c <= 0x7E) || (c >= 0xA0 && c < 0xD800) ||
	       (c > 0xDFFF && c < 0xFFFE) || (c > 0xFFFF && c <= 0x10FFFF);
}

/* Escapes one character inside a quoted atom or string. */
static void write_char_escaped(fprof_buf *b, uint32_t c, char quote)
{
	char tmp[16];
	switch (c) {
	case '\n': cg_fprof_buf_adds(b, "\\n"); return;
	case '\r': cg_fprof_buf_adds(b, "\\r"); return;
	case '\t': cg_fprof_buf_adds(b, "\\t"); return;
	case '\v': cg_fprof_buf_adds(b, "\\v"); return;
	case '\b': cg_fprof_buf_adds(b, "\\b"); return;
	case '\f': cg_fprof_buf_adds(b, "\\f"); return;
	case 27: cg_fprof_buf_adds(b, "\\e"); return;
	case 127: cg_fprof_buf_adds(b, "\\d"); return;
	case '\\': cg_fprof_buf_adds(b, "\\\\"); return;
	default: break;
	}
	if (c == (uint32_t)quote) {
		cg_fprof_buf_addc(b, '\\');
		cg_fprof_buf_addc(b, quote);
		return;
	}
	if (c < 0x20) {
		snprintf(tmp, sizeof tmp, "\\%o", c);
		cg_fprof_buf_adds(b, tmp);
		return;
	}
	if (!printable_unicode(c) && c >= 0x80 && c < 0xA0) {
		snprintf(tmp, sizeof tmp, "\\x{%X}", c);
		cg_fprof_buf_adds(b, tmp);
		return;
	}
	/* re-encode */
	if (c < 0x80) {
		cg_fprof_buf_addc(b, (char)c);
	} else if (c < 0x800) {
		cg_fprof_buf_addc(b, (char)(0xC0 | c >> 6));
		cg_fprof_buf_addc(b, (char)(0x80 | (c & 0x3F)));
	} else if (c < 0x10000) {
		cg_fprof_buf_addc(b, (char)(0xE0 | c >> 12));
		cg_fprof_buf_addc(b, (char)(0x80 | (c >> 6 & 0x3F)));
		cg_fprof_buf_addc(b, (char)(0x80 | (c & 0x3F)));
	} else {
		cg_fprof_buf_addc(b, (char)(0xF0 | c >> 18));
		cg_fprof_buf_addc(b, (char)(0x80 | (c >> 12 & 0x3F)));
		cg_fprof_buf_addc(b, (char)(0x80 | (c >> 6 & 0x3F)));
		cg_fprof_buf_addc(b, (char)(0x80 | (c & 0x3F)));
	}
}

void cg_fprof_atom_write(fprof_buf *b, const char *s, size_t len)
{
	const char *p = s, *end = s + len;
	int plain = len > 0 && !is_reserved(s, len);
	int first = 1;
	while (plain && p < end) {
		uint32_t c = utf8_next(&p, end);
		plain = first ? is_lower_l1(c) : is_name_l1(c);
		first = 0;
	}
	if (plain) {
		cg_fprof_buf_add(b, s, len);
		return;
	}
	cg_fprof_buf_addc(b, '\'');
	for (p = s; p < end;)
		write_char_escaped(b, utf8_next(&p, end), '\'');
	cg_fprof_buf_addc(b, '\'');
}

/* A list whose elements are all printable character codes (Erlang's
 * io_lib:printable_unicode_list). */
static int list_is_string(const fprof_term *t)
{
	if (t->kind != FT_LIST || t->u.e[t->n].kind != FT_NIL)
		return 0;
	for (uint32_t i = 0; i < t->n; i++) {
		const fprof_term *e = &t->u.e[i];
		if (e->kind != FT_INT || e->u.i < 0 || e->u.i > 0x10FFFF)
			return 0;
		uint32_t c = (uint32_t)e->u.i;
		if (!(printable_latin1(c) || c == '\n' || c == '\r' || c == '\t' || c == '\v' ||
		      c == '\b' || c == '\f' || c == 27))
			return 0;
	}
	return 1;
}

static void write_string_text(fprof_buf *b, const char *s, size_t len)
{
	cg_fprof_buf_addc(b, '"');
	for (const char *p = s, *end = s + len; p < end;)
		write_char_escaped(b, utf8_next(&p, end), '"');
	cg_fprof_buf_addc(b, '"');
}

/* Erlang's shortest round-trip float text (io_lib_format ~p). */
static void write_float(fprof_buf *b, double f)
{
	char tmp[64];
	if (!isfinite(f)) {
		cg_fprof_buf_adds(b, "0.0");
		return;
	}
	int prec;
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof tmp, "%.*e", prec - 1, f);
		if (strtod(tmp, NULL) == f)
			break;
	}
	/* tmp = d.ddde[+-]XX: digits and exponent */
	char digits[32];
	size_t nd = 0;
	const char *q = tmp;
	int neg = 0;
	if (*q == '-') {
		neg = 1;
		q++;
	}
	for (; *q && *q != 'e'; q++)
		if (*q >= '0' && *q <= '9')
			digits[nd++] = *q;
	int exp = (int)strtol(q + 1, NULL, 10);
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	if (neg)
		cg_fprof_buf_addc(b, '-');
	if (exp >= -4 && exp < 21) {
		if (exp >= 0) {
			for (int i = 0; i <= exp; i++)
				cg_fprof_buf_addc(b, (size_t)i < nd ? digits[i] : '0');
			cg_fprof_buf_addc(b, '.');
			if ((size_t)exp + 1 < nd)
				cg_fprof_buf_add(b, digits + exp + 1, nd - (size_t)exp - 1);
			else
				cg_fprof_buf_addc(b, '0');
		} else {
			cg_fprof_buf_adds(b, "0.");
			for (int i = -1; i > exp; i--)
				cg_fprof_buf_addc(b, '0');
			cg_fprof_buf_add(b, digits, nd);
		}
	} else {
		cg_fprof_buf_addc(b, digits[0]);
		cg_fprof_buf_addc(b, '.');
		if (nd > 1)
			cg_fprof_buf_add(b, digits + 1, nd - 1);
		else
			cg_fprof_buf_addc(b, '0');
		cg_fprof_buf_addf(b, "e%d", exp);
	}
}

static void write_binary(fprof_buf *b, const fprof_term *t)
{
	int printable = t->bits == 8 && t->n > 0;
	for (uint32_t i = 0; printable && i < t->n; i++) {
		unsigned char c = (unsigned char)t->u.s[i];
		printable = printable_latin1(c) || c == '\n' || c == '\r' || c == '\t' ||
			    c == '\v' || c == '\b' || c == '\f' || c == 27;
	}
	cg_fprof_buf_adds(b, "<<");
	if (printable) {
		cg_fprof_buf_addc(b, '"');
		for (uint32_t i = 0; i < t->n; i++)
			write_char_escaped(b, (unsigned char)t->u.s[i], '"');
		cg_fprof_buf_addc(b, '"');
	} else {
		for (uint32_t i = 0; i < t->n; i++) {
			unsigned v = (unsigned char)t->u.s[i];
			if (i)
				cg_fprof_buf_addc(b, ',');
			if (i + 1 == t->n && t->bits != 8)
				cg_fprof_buf_addf(b, "%u:%u", v >> (8 - t->bits), (unsigned)t->bits);
			else
				cg_fprof_buf_addf(b, "%u", v);
		}
	}
	cg_fprof_buf_adds(b, ">>");
}

static void write_list_string(fprof_buf *b, const fprof_term *t)
{
	cg_fprof_buf_addc(b, '"');
	for (uint32_t i = 0; i < t->n; i++)
		write_char_escaped(b, (uint32_t)t->u.e[i].u.i, '"');
	cg_fprof_buf_addc(b, '"');
}

void cg_fprof_term_write(fprof_buf *b, const fprof_term *t)
{
	switch (t->kind) {
	case FT_ATOM: cg_fprof_atom_write(b, t->u.s, t->n); break;
	case FT_INT: cg_fprof_buf_addf(b, "%lld", (long long)t->u.i); break;
	case FT_BIG: cg_fprof_buf_add(b, t->u.s, t->n); break;
	case FT_FLOAT: write_float(b, t->u.f); break;
	case FT_STRING: {
		int latin1 = 1;
		for (const char *q = t->u.s, *e = t->u.s + t->n; q < e && latin1;)
			latin1 = utf8_next(&q, e) <= 0xFF;
		if (latin1) {
			write_string_text(b, t->u.s, t->n);
			break;
		}
		cg_fprof_buf_addc(b, '[');
		for (const char *q = t->u.s, *e = t->u.s + t->n; q < e;) {
			if (q != t->u.s)
				cg_fprof_buf_addc(b, ',');
			cg_fprof_buf_addf(b, "%u", utf8_next(&q, e));
		}
		cg_fprof_buf_addc(b, ']');
		break;
	}
	case FT_NIL: cg_fprof_buf_adds(b, "[]"); break;
	case FT_BINARY: write_binary(b, t); break;
	case FT_TUPLE:
		cg_fprof_buf_addc(b, '{');
		for (uint32_t i = 0; i < t->n; i++) {
			if (i)
				cg_fprof_buf_addc(b, ',');
			cg_fprof_term_write(b, &t->u.e[i]);
		}
		cg_fprof_buf_addc(b, '}');
		break;
	case FT_LIST:
		if (list_is_string(t)) {
			write_list_string(b, t);
			break;
		}
		cg_fprof_buf_addc(b, '[');
		for (uint32_t i = 0; i < t->n; i++) {
			if (i)
				cg_fprof_buf_addc(b, ',');
			cg_fprof_term_write(b, &t->u.e[i]);
		}
		if (t->u.e[t->n].kind != FT_NIL) {
			cg_fprof_buf_addc(b, '|');
			cg_fprof_term_write(b, &t->u.e[t->n]);
		}
		cg_fprof_buf_addc(b, ']');
		break;
	case FT_MAP:
		cg_fprof_buf_adds(b, "#{");
		for (uint32_t i = 0; i < t->n; i++) {
			if (i)
				cg_fprof_buf_addc(b, ',');
			cg_fprof_term_write(b, &t->u.e[2 * i]);
			cg_fprof_buf_adds(b, " => ");
			cg_fprof_term_write(b, &t->u.e[2 * i + 1]);
		}
		cg_fprof_buf_addc(b, '}');
		break;
	}
}

/* ---- pretty printing (io_lib_pretty's layout, without depth limits) ---------- */

/* io_lib_pretty first measures the term ("print_length"), then lays it out
 * (pp) with a tag indentation chosen by a dry run (cind): -1 when every
 * tagged tuple fits after its tag, else 4.  A "leaf" is anything printed
 * as one unbreakable string. */
struct pnode {
	int kind;            /* PN_* */
	int len;             /* characters when written flat */
	const fprof_term *t;
	struct pnode *e;     /* elements */
	uint32_t n;
	struct pnode *tail;  /* improper list tail */
	int tlen;            /* tagged tuple: tag length */
};

enum { PN_LEAF, PN_LIST, PN_TUPLE, PN_TAGGED, PN_BIN, PN_MAP, PN_PAIR };
enum { LL = 80 };

static size_t term_len(const fprof_term *t)
{
	fprof_buf b = { 0 };
	cg_fprof_term_write(&b, t);
	size_t n = utf8_chars(cg_fprof_buf_cstr(&b), b.len);
	cg_fprof_buf_release(&b);
	return n;
}

static int binary_is_text(const fprof_term *t)
{
	if (t->bits != 8 || t->n == 0)
		return 0;
	for (uint32_t i = 0; i < t->n; i++) {
		unsigned char c = (unsigned char)t->u.s[i];
		if (!(printable_latin1(c) || c == '\n' || c == '\r' || c == '\t' || c == '\v' ||
		      c == '\b' || c == '\f' || c == 27))
			return 0;
	}
	return 1;
}

static struct pnode *pn_build(fprof_arena *a, const fprof_term *t, struct pnode *out)
{
	memset(out, 0, sizeof *out);
	out->t = t;
	out->len = (int)term_len(t);
	out->kind = PN_LEAF;
	if (t->kind == FT_BINARY && !binary_is_text(t)) {
		out->kind = PN_BIN;
	} else if (t->kind == FT_MAP && t->n > 0) {
		out->kind = PN_MAP;
		out->n = t->n;
		out->e = cg_fprof_arena_alloc(a, t->n * sizeof *out->e);
		if (!out->e)
			return NULL;
		for (uint32_t i = 0; i < t->n; i++) {
			struct pnode *pr = &out->e[i];
			pr->kind = PN_PAIR;
			pr->n = 2;
			pr->e = cg_fprof_arena_alloc(a, 2 * sizeof *pr->e);
			if (!pr->e || !pn_build(a, &t->u.e[2 * i], &pr->e[0]) ||
			    !pn_build(a, &t->u.e[2 * i + 1], &pr->e[1]))
				return NULL;
			pr->len = pr->e[0].len + 4 + pr->e[1].len;
		}
	} else if ((t->kind == FT_LIST && !list_is_string(t)) || (t->kind == FT_TUPLE && t->n > 0)) {
		out->n = t->n;
		out->e = cg_fprof_arena_alloc(a, t->n * sizeof *out->e);
		if (!out->e)
			return NULL;
		for (uint32_t i = 0; i < t->n; i++)
			if (!pn_build(a, &t->u.e[i], &out->e[i]))
				return NULL;
		if (t->kind == FT_LIST) {
			out->kind = PN_LIST;
			if (t->u.e[t->n].kind != FT_NIL) {
				out->tail = cg_fprof_arena_alloc(a, sizeof *out->tail);
				if (!out->tail || !pn_build(a, &t->u.e[t->n], out->tail))
					return NULL;
			}
		} else if (t->n > 1 && t->u.e[0].kind == FT_ATOM) {
			out->kind = PN_TAGGED;
			out->tlen = out->e[0].len;
		} else {
			out->kind = PN_TUPLE;
		}
	}
	return out;
}

/* io_lib_pretty's is_list(element(1, E)): printed as one string; a map
 * pair counts when both key and value do. */
static int leafish(const struct pnode *x)
{
	if (x->kind == PN_PAIR)
		return x->e[0].kind == PN_LEAF && x->e[1].kind == PN_LEAF;
	return x->kind == PN_LEAF;
}

static void pn_write(fprof_buf *b, const struct pnode *x)
{
	if (x->kind == PN_PAIR) {
		cg_fprof_term_write(b, x->e[0].t);
		cg_fprof_buf_adds(b, " => ");
		cg_fprof_term_write(b, x->e[1].t);
	} else {
		cg_fprof_term_write(b, x->t);
	}
}

static int map_value_indent(int tind)
{
	return tind > 0 ? tind : 4;
}

/* ld of element i of a sequence: 0 when more elements follow, else LD+1
 * (an improper tail counts as "no more elements"). */
static int ld_at(uint32_t i, uint32_t n, int ld)
{
	return i + 1 < n ? 0 : ld + 1;
}

/* ---- cind: the dry run; returns 0, or -1 for io_lib_pretty's no_good ---- */

static int cind(const struct pnode *x, int col, int m, int ind, int ld, int w);

static int cind_element(const struct pnode *x, int col, int m, int ind, int ld, int w, int *we)
{
	if (x->kind == PN_PAIR) {
		if (x->len < LL - col - ld && x->len + w + ld <= m) {
			*we = leafish(x) ? x->len : LL;
			return 0;
		}
		*we = LL;
		if (cind(&x->e[0], col, m, ind, ld, w))
			return -1;
		return cind(&x->e[1], col + map_value_indent(ind), m, ind, ld, 0);
	}
	if (x->len < LL - col - ld && x->len + w + ld <= m && x->kind == PN_LEAF) {
		*we = x->len;
		return 0;
	}
	*we = LL;
	return cind(x, col, m, ind, ld, w);
}

static int cind_tail(const struct pnode *e, uint32_t from, uint32_t n, const struct pnode *tail,
		     int col0, int col, int m, int ind, int ld, int w)
{
	for (uint32_t i = from; i < n; i++) {
		const struct pnode *x = &e[i];
		int ld1 = tail ? 0 : ld_at(i, n, ld);
		int elen = 1 + x->len;
		if (leafish(x) && ((ld1 == 0 && elen + 1 < LL - col && w + elen + 1 <= m) ||
				   (ld1 > 0 && elen < LL - col - ld1 && w + elen + ld1 <= m))) {
			col += elen;
			w += elen;
		} else {
			int we;
			if (cind_element(x, col0, m, ind, ld1, 0, &we))
				return -1;
			col = col0 + we;
			w = we;
		}
	}
	if (tail) {
		if (tail->len + 1 < LL - col - (ld + 1) && tail->len + 1 + w + (ld + 1) <= m &&
		    tail->kind == PN_LEAF)
			return 0;
		return cind(tail, col, m, ind, ld + 1, 0);
	}
	return 0;
}

static int cind_list(const struct pnode *e, uint32_t n, const struct pnode *tail, int col0, int m,
		     int ind, int ld, int w)
{
	if (n == 0)
		return 0;
	int we;
	int ld0 = n > 1 || tail ? 0 : ld + 1;
	if (cind_element(&e[0], col0, m, ind, ld0, w, &we))
		return -1;
	return cind_tail(e, 1, n, tail, col0, col0 + we, m, ind, ld, w + we);
}

static int cind(const struct pnode *x, int col, int m, int ind, int ld, int w)
{
	if (x->len < LL - col - ld && x->len + w + ld <= m)
		return 0;
	switch (x->kind) {
	case PN_LIST: return cind_list(x->e, x->n, x->tail, col + 1, m, ind, ld, w + 1);
	case PN_TUPLE: return cind_list(x->e, x->n, NULL, col + 1, m, ind, ld, w + 1);
	case PN_MAP: return cind_list(x->e, x->n, NULL, col + 2, m, ind, ld, w + 2);
	case PN_TAGGED: {
		int tagind = x->tlen + 2, tcol = col + tagind;
		w += 1;
		if (ind > 0 && tagind > ind) {
			int col1 = col + ind;
			if (m + col1 <= LL || col1 <= LL / 2)
				return cind_tail(x->e, 1, x->n, NULL, col1, tcol, m, ind, ld, w + x->tlen);
			return -1;
		}
		if (m + tcol < LL || tcol < LL / 2)
			return cind_list(x->e + 1, x->n - 1, NULL, tcol, m, ind, ld, w + x->tlen + 1);
		return -1;
	}
	default: return 0;
	}
}

/* ---- pp: the layout ---- */

static void add_indent(fprof_buf *b, int n)
{
	for (int i = 0; i < n; i++)
		cg_fprof_buf_addc(b, ' ');
}

static void pp(fprof_buf *b, const struct pnode *x, int col, int m, int tind, int ind, int ld, int w);

static int pp_element(fprof_buf *b, const struct pnode *x, int col, int m, int tind, int ind, int ld,
		      int w)
{
	if (x->kind == PN_PAIR) {
		if (x->len < LL - col - ld && x->len + w + ld <= m) {
			pn_write(b, x);
			return leafish(x) ? x->len : LL;
		}
		int i = map_value_indent(tind);
		pp(b, &x->e[0], col, m, tind, ind, ld, w);
		cg_fprof_buf_adds(b, " =>\n");
		add_indent(b, ind + i);
		pp(b, &x->e[1], col + i, m, tind, ind + i, ld, 0);
		return LL;
	}
	if (x->len < LL - col - ld && x->len + w + ld <= m && x->kind == PN_LEAF) {
		cg_fprof_term_write(b, x->t);
		return x->len;
	}
	pp(b, x, col, m, tind, ind, ld, w);
	return LL;
}

static void pp_tail(fprof_buf *b, const struct pnode *e, uint32_t from, uint32_t n,
		    const struct pnode *tail, int col0, int col, int m, int tind, int ind, int ld,
		    char sep, int w)
{
	for (uint32_t i = from; i < n; i++) {
		const struct pnode *x = &e[i];
		int ld1 = i + 1 < n || tail ? 0 : ld + 1;
		int elen = 1 + x->len;
		if (leafish(x) && ((ld1 == 0 && elen + 1 < LL - col && w + elen + 1 <= m) ||
				   (ld1 > 0 && elen < LL - col - ld1 && w + elen + ld1 <= m))) {
			cg_fprof_buf_addc(b, ',');
			pn_write(b, x);
			col += elen;
			w += elen;
		} else {
			cg_fprof_buf_adds(b, ",\n");
			add_indent(b, ind);
			int we = pp_element(b, x, col0, m, tind, ind, ld1, 0);
			col = col0 + we;
			w = we;
		}
	}
	if (tail) {
		cg_fprof_buf_addc(b, sep);
		if (tail->len + 1 < LL - col - (ld + 1) && tail->len + 1 + w + (ld + 1) <= m &&
		    tail->kind == PN_LEAF) {
			cg_fprof_term_write(b, tail->t);
		} else {
			cg_fprof_buf_addc(b, '\n');
			add_indent(b, ind);
			pp(b, tail, col0, m, tind, ind, ld + 1, 0);
		}
	}
}

static void pp_list(fprof_buf *b, const struct pnode *e, uint32_t n, const struct pnode *tail,
		    int col0, int m, int tind, int ind, int ld, char sep, int w)
{
	if (n == 0)
		return;
	int ld0 = n > 1 || tail ? 0 : ld + 1;
	int we = pp_element(b, &e[0], col0, m, tind, ind, ld0, w);
	pp_tail(b, e, 1, n, tail, col0, col0 + we, m, tind, ind, ld, sep, w + we);
}

/* io_lib_pretty's pp_binary: numbers wrapped at the line width. */
static void pp_binary(fprof_buf *b, const struct pnode *x, int col, int m, int ind, int ld, int w)
{
	const fprof_term *t = x->t;
	int lim = LL - col < m - 4 - w ? LL - col : m - 4 - w;
	int n0 = lim - ld > 8 ? lim - ld : 8, n = n0;
	cg_fprof_buf_adds(b, "<<");
	for (uint32_t i = 0; i < t->n; i++) {
		char item[32];
		unsigned v = (unsigned char)t->u.s[i];
		int last = i + 1 == t->n;
		if (last && t->bits != 8)
			snprintf(item, sizeof item, "%u:%u", v >> (8 - t->bits), (unsigned)t->bits);
		else
			snprintf(item, sizeof item, "%u", v);
		int len = (int)strlen(item);
		if (!last) {
			len += 1;
			if (n - len < 0) {
				cg_fprof_buf_addc(b, '\n');
				add_indent(b, ind);
				n = n0 - len;
			} else {
				n -= len;
			}
			cg_fprof_buf_adds(b, item);
			cg_fprof_buf_addc(b, ',');
		} else {
			if (len > n) {
				cg_fprof_buf_addc(b, '\n');
				add_indent(b, ind);
			}
			cg_fprof_buf_adds(b, item);
		}
	}
	cg_fprof_buf_adds(b, ">>");
}

static void pp(fprof_buf *b, const struct pnode *x, int col, int m, int tind, int ind, int ld, int w)
{
	if ((x->len < LL - col - ld && x->len + w + ld <= m) || x->kind == PN_LEAF) {
		cg_fprof_term_write(b, x->t);
		return;
	}
	switch (x->kind) {
	case PN_LIST:
		cg_fprof_buf_addc(b, '[');
		pp_list(b, x->e, x->n, x->tail, col + 1, m, tind, ind + 1, ld, '|', w + 1);
		cg_fprof_buf_addc(b, ']');
		break;
	case PN_TUPLE:
		cg_fprof_buf_addc(b, '{');
		pp_list(b, x->e, x->n, NULL, col + 1, m, tind, ind + 1, ld, ',', w + 1);
		cg_fprof_buf_addc(b, '}');
		break;
	case PN_TAGGED: {
		int tagind = x->tlen + 2, tcol = col + tagind;
		cg_fprof_buf_addc(b, '{');
		cg_fprof_term_write(b, x->e[0].t);
		w += 1;
		if (tind > 0 && tagind > tind)
			pp_tail(b, x->e, 1, x->n, NULL, col + tind, tcol, m, tind, ind + tind, ld, ',',
				w + x->tlen);
		else {
			cg_fprof_buf_addc(b, ',');
			pp_list(b, x->e + 1, x->n - 1, NULL, tcol, m, tind, ind + tagind, ld, ',',
				w + x->tlen + 1);
		}
		cg_fprof_buf_addc(b, '}');
		break;
	}
	case PN_BIN:
		pp_binary(b, x, col + 2, m, ind + 2, ld, w);
		break;
	case PN_MAP:
		cg_fprof_buf_adds(b, "#{");
		pp_list(b, x->e, x->n, NULL, col + 2, m, tind, ind + 2, ld, ',', w + 1);
		cg_fprof_buf_addc(b, '}');
		break;
	}
}

void cg_fprof_term_pretty(fprof_buf *b, const fprof_term *t, int col0)
{
	int col = col0 + 1;   /* io_lib_pretty counts columns from 1 */
	fprof_arena a = { 0 };
	struct pnode root;
	if (!pn_build(&a, t, &root)) {
		cg_fprof_term_write(b, t);   /* out of memory: flat is still correct Erlang */
		cg_fprof_arena_release(&a);
		return;
	}
	if (root.len < LL - col) {
		cg_fprof_term_write(b, t);
	} else {
		int m = root.len;
		int tind = cind(&root, col, m, -1, 0, 0) == 0 ? -1 : cind(&root, col, m, 4, 0, 0) == 0 ? 4 : 1;
		pp(b, &root, col, m, tind, col - 1, 0, 0);
	}
	cg_fprof_arena_release(&a);
}

/* ---- term order ------------------------------------------------------------------- */

static int kind_rank(const fprof_term *t)
{
	/* number < atom < reference < fun < port < pid < tuple < map < nil < list < binary;
	 * parsified pids etc. are strings, i.e. lists. */
	switch (t->kind) {
	case FT_INT: case FT_BIG: case FT_FLOAT: return 0;
	case FT_ATOM: return 1;
	case FT_TUPLE: return 6;
	case FT_MAP: return 7;
	case FT_NIL: return 8;
	case FT_LIST: case FT_STRING: return 9;
	case FT_BINARY: return 10;
	}
	return 11;
}

static int cmp_bytes(const char *a, size_t an, const char *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);
	if (c)
		return c < 0 ? -1 : 1;
	return an < bn ? -1 : an > bn;
}

static double num_value(const fprof_term *t)
{
	return t->kind == FT_INT ? (double)t->u.i : t->kind == FT_FLOAT ? t->u.f : strtod(t->u.s, NULL);
}

/* Element i of a list-like term (strings expand to characters). */
static int list_elem(const fprof_term *t, size_t i, fprof_term *out, const fprof_term **tail)
{
	if (t->kind == FT_STRING) {
		const char *p = t->u.s, *end = t->u.s + t->n;
		for (size_t k = 0; p < end; k++) {
			uint32_t c = utf8_next(&p, end);
			if (k == i) {
				out->kind = FT_INT;
				out->u.i = c;
				return 1;
			}
		}
		*tail = NULL;
		return 0;
	}
	if (i < t->n) {
		*out = t->u.e[i];
		return 1;
	}
	*tail = &t->u.e[t->n];
	return 0;
}

int cg_fprof_term_compare(const fprof_term *a, const fprof_term *b)
{
	int ra = kind_rank(a), rb = kind_rank(b);
	if (ra != rb)
		return ra < rb ? -1 : 1;
	switch (ra) {
	case 0: {
		if (a->kind == FT_INT && b->kind == FT_INT)
			return a->u.i < b->u.i ? -1 : a->u.i > b->u.i;
		double x = num_value(a), y = num_value(b);
		return x < y ? -1 : x > y;
	}
	case 1: return cmp_bytes(a->u.s, a->n, b->u.s, b->n);
	case 6:
	case 7:
		if (a->n != b->n)
			return a->n < b->n ? -1 : 1;
		for (uint32_t i = 0; i < (ra == 7 ? 2 * a->n : a->n); i++) {
			int c = cg_fprof_term_compare(&a->u.e[i], &b->u.e[i]);
			if (c)
				return c;
		}
		return 0;
	case 8: return 0;
	case 9:
		for (size_t i = 0;; i++) {
			fprof_term x, y;
			const fprof_term *ta = NULL, *tb = NULL;
			int ha = list_elem(a, i, &x, &ta), hb = list_elem(b, i, &y, &tb);
			if (!ha || !hb) {
				fprof_term nil = { .kind = FT_NIL };
				if (!ha && !hb)
					return cg_fprof_term_compare(ta ? ta : &nil, tb ? tb : &nil);
				/* one list ended: compare its tail with the other's element */
				return !ha ? cg_fprof_term_compare(ta ? ta : &nil, &y)
					   : cg_fprof_term_compare(&x, tb ? tb : &nil);
			}
			int c = cg_fprof_term_compare(&x, &y);
			if (c)
				return c;
		}
	case 10: return cmp_bytes(a->u.s, a->n, b->u.s, b->n);
	}
	return 0;
}

/* ---- parsing Erlang term text ------------------------------------------------------ */

static void skip_space(const char **pp, const char *end)
{
	const char *p = *pp;
	while (p < end) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			p++;
		} else if (*p == '%') {
			while (p < end && *p != '\n')
				p++;
		} else {
			break;
		}
	}
	*pp = p;
}

static int utf8_put(char *d, uint32_t c)
{
	if (c < 0x80) { d[0] = (char)c; return 1; }
	if (c < 0x800) { d[0] = (char)(0xC0 | c >> 6); d[1] = (char)(0x80 | (c & 0x3F)); return 2; }
	if (c < 0x10000) {
		d[0] = (char)(0xE0 | c >> 12); d[1] = (char)(0x80 | (c >> 6 & 0x3F));
		d[2] = (char)(0x80 | (c & 0x3F));
		return 3;
	}
	d[0] = (char)(0xF0 | c >> 18); d[1] = (char)(0x80 | (c >> 12 & 0x3F));
	d[2] = (char)(0x80 | (c >> 6 & 0x3F)); d[3] = (char)(0x80 | (c & 0x3F));
	return 4;
}

/* Reads a quoted atom or string body up to `quote`, handling escapes. */
static int parse_quoted(fprof_arena *a, const char **pp, const char *end, char quote,
			const char **s, size_t *len, const char **why)
{
	const char *p = *pp + 1;
	fprof_buf b = { 0 };
	while (p < end && *p != quote) {
		if (*p != '\\') {
			cg_fprof_buf_addc(&b, *p++);
			continue;
		}
		if (++p >= end)
			break;
		char e = *p++;
		uint32_t c;
		switch (e) {
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'v': c = '\v'; break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'e': c = 27; break;
		case 'd': c = 127; break;
		case 's': c = ' '; break;
		case 'x':
			if (p < end && *p == '{') {
				char *q;
				c = (uint32_t)strtoul(p + 1, &q, 16);
				p = q < end && *q == '}' ? q + 1 : q;
			} else {
				c = 0;
				for (int k = 0; k < 2 && p < end && strchr("0123456789abcdefABCDEF", *p) && *p; k++, p++)
					c = c * 16 + (uint32_t)(*p <= '9' ? *p - '0' : (*p | 32) - 'a' + 10);
			}
			break;
		default:
			if (e >= '0' && e <= '7') {
				c = (uint32_t)(e - '0');
				for (int k = 0; k < 2 && p < end && *p >= '0' && *p <= '7'; k++, p++)
					c = c * 8 + (uint32_t)(*p - '0');
			} else {
				c = (unsigned char)e;
			}
		}
		char tmp[4];
		if (c > 0x10FFFF)
			c = '?';
		cg_fprof_buf_add(&b, tmp, (size_t)utf8_put(tmp, c));
	}
	if (p >= end) {
		cg_fprof_buf_release(&b);
		*why = "unterminated quoted text";
		return CG_EFORMAT;
	}
	*s = cg_fprof_arena_strdup(a, b.data ? b.data : "", b.len);
	*len = b.len;
	int oom = b.oom;
	cg_fprof_buf_release(&b);
	if (!*s || oom)
		return CG_ENOMEM;
	*pp = p + 1;
	return 0;
}

static int parse_depth(fprof_arena *a, const char **pp, const char *end, fprof_term **out,
		       const char **why, int depth);

/* Parses comma-separated terms up to `close`; fills a temporary vector. */
static int parse_items(fprof_arena *a, const char **pp, const char *end, char close,
		       fprof_term **items, uint32_t *count, fprof_term **tail, const char **why,
		       int depth)
{
	const char *p = *pp;
	size_t cap = 8, n = 0;
	fprof_term *v = malloc(cap * sizeof *v);
	if (!v)
		return CG_ENOMEM;
	*tail = NULL;
	skip_space(&p, end);
	if (p < end && *p == close) {
		p++;
	} else {
		for (;;) {
			fprof_term *e;
			int rc = parse_depth(a, &p, end, &e, why, depth + 1);
			if (rc) {
				free(v);
				return rc;
			}
			if (n == cap) {
				fprof_term *nv = realloc(v, 2 * cap * sizeof *v);
				if (!nv) {
					free(v);
					return CG_ENOMEM;
				}
				v = nv;
				cap *= 2;
			}
			v[n++] = *e;
			skip_space(&p, end);
			if (p < end && *p == ',') {
				p++;
				continue;
			}
			if (p < end && *p == '|' && close == ']') {
				p++;
				int rc2 = parse_depth(a, &p, end, tail, why, depth + 1);
				if (rc2) {
					free(v);
					return rc2;
				}
				skip_space(&p, end);
			}
			if (p < end && *p == close) {
				p++;
				break;
			}
			free(v);
			*why = "expected ',' or closing bracket";
			return CG_EFORMAT;
		}
	}
	*items = cg_fprof_arena_alloc(a, (n + 1) * sizeof **items);
	if (!*items) {
		free(v);
		return CG_ENOMEM;
	}
	if (n)
		memcpy(*items, v, n * sizeof *v);
	free(v);
	*count = (uint32_t)n;
	*pp = p;
	return 0;
}

static int parse_depth(fprof_arena *a, const char **pp, const char *end, fprof_term **out,
		       const char **why, int depth)
{
	const char *p = *pp;
	int rc;
	if (depth > DEPTH_MAX) {
		*why = "term nested too deeply";
		return CG_EFORMAT;
	}
	skip_space(&p, end);
	if (p >= end) {
		*why = "term expected";
		return CG_EFORMAT;
	}
	fprof_term *t = new_term(a, FT_NIL);
	if (!t)
		return CG_ENOMEM;
	const char *s;
	size_t len;
	char c = *p;
	if (c == '{' || c == '[') {
		fprof_term *items, *tail;
		uint32_t n;
		p++;
		if ((rc = parse_items(a, &p, end, c == '{' ? '}' : ']', &items, &n, &tail, why, depth)))
			return rc;
		if (c == '{') {
			t->kind = FT_TUPLE;
			t->n = n;
			t->u.e = items;
		} else if (n == 0) {
			t->kind = FT_NIL;
		} else {
			t->kind = FT_LIST;
			t->n = n;
			t->u.e = items;
			items[n] = tail ? *tail : (fprof_term){ .kind = FT_NIL };
		}
	} else if (c == '"') {
		if ((rc = parse_quoted(a, &p, end, '"', &s, &len, why)))
			return rc;
		t->kind = len ? FT_STRING : FT_NIL;
		t->u.s = s;
		t->n = (uint32_t)len;
	} else if (c == '\'') {
		if ((rc = parse_quoted(a, &p, end, '\'', &s, &len, why)))
			return rc;
		t->kind = FT_ATOM;
		t->u.s = s;
		t->n = (uint32_t)len;
	} else if ((c >= '0' && c <= '9') || c == '-') {
		const char *q = p + (c == '-');
		while (q < end && *q >= '0' && *q <= '9')
			q++;
		int isfloat = q + 1 < end && *q == '.' && q[1] >= '0' && q[1] <= '9';
		if (isfloat) {
			char tmp[64];
			const char *r = q + 1;
			while (r < end && ((*r >= '0' && *r <= '9') || *r == 'e' || *r == 'E' ||
					   ((*r == '-' || *r == '+') && (r[-1] == 'e' || r[-1] == 'E'))))
				r++;
			size_t l = (size_t)(r - p) < sizeof tmp - 1 ? (size_t)(r - p) : sizeof tmp - 1;
			memcpy(tmp, p, l);
			tmp[l] = '\0';
			t->kind = FT_FLOAT;
			t->u.f = strtod(tmp, NULL);
			p = r;
		} else {
			if (q == p + (c == '-')) {
				*why = "number expected";
				return CG_EFORMAT;
			}
			size_t l = (size_t)(q - p);
			if (l <= 18) {
				int64_t v = 0;
				for (const char *r = p + (c == '-'); r < q; r++)
					v = v * 10 + (*r - '0');
				t->kind = FT_INT;
				t->u.i = c == '-' ? -v : v;
			} else {
				t->kind = FT_BIG;
				t->u.s = cg_fprof_arena_strdup(a, p, l);
				t->n = (uint32_t)l;
				if (!t->u.s)
					return CG_ENOMEM;
			}
			p = q;
		}
	} else if (c == '#' && p + 1 < end && p[1] == '{') {
		fprof_term *items, *tail;
		uint32_t n;
		p += 2;
		/* parse as k => v items: reuse the list parser on "k => v" pairs */
		fprof_buf dummy = { 0 };
		(void)dummy;
		size_t cap = 8, cnt = 0;
		fprof_term *v = malloc(cap * sizeof *v);
		if (!v)
			return CG_ENOMEM;
		skip_space(&p, end);
		while (p < end && *p != '}') {
			fprof_term *k, *val;
			if ((rc = parse_depth(a, &p, end, &k, why, depth + 1))) {
				free(v);
				return rc;
			}
			skip_space(&p, end);
			if (end - p < 2 || p[0] != '=' || p[1] != '>') {
				free(v);
				*why = "expected '=>' in map";
				return CG_EFORMAT;
			}
			p += 2;
			if ((rc = parse_depth(a, &p, end, &val, why, depth + 1))) {
				free(v);
				return rc;
			}
			if (cnt + 2 > cap) {
				fprof_term *nv = realloc(v, 2 * cap * sizeof *v);
				if (!nv) {
					free(v);
					return CG_ENOMEM;
				}
				v = nv;
				cap *= 2;
			}
			v[cnt++] = *k;
			v[cnt++] = *val;
			skip_space(&p, end);
			if (p < end && *p == ',')
				p++;
			skip_space(&p, end);
		}
		if (p >= end) {
			free(v);
			*why = "unterminated map";
			return CG_EFORMAT;
		}
		p++;
		items = cg_fprof_arena_alloc(a, (cnt + 1) * sizeof *items);
		if (!items) {
			free(v);
			return CG_ENOMEM;
		}
		if (cnt)
			memcpy(items, v, cnt * sizeof *v);
		free(v);
		(void)tail;
		n = (uint32_t)(cnt / 2);
		t->kind = FT_MAP;
		t->n = n;
		t->u.e = items;
	} else if (c == '<' && p + 1 < end && p[1] == '<') {
		/* binary: <<"text">> or <<1,2,3>> or with a last N:Bits */
		p += 2;
		fprof_buf b = { 0 };
		int bits = 8;
		skip_space(&p, end);
		while (p < end && *p != '>') {
			if (*p == '"') {
				if ((rc = parse_quoted(a, &p, end, '"', &s, &len, why))) {
					cg_fprof_buf_release(&b);
					return rc;
				}
				/* string bytes are Latin-1 characters */
				for (const char *r = s, *e2 = s + len; r < e2;)
					cg_fprof_buf_addc(&b, (char)utf8_next(&r, e2));
			} else {
				char *q;
				long v = strtol(p, &q, 10);
				if (q == p) {
					cg_fprof_buf_release(&b);
					*why = "bad binary";
					return CG_EFORMAT;
				}
				p = q;
				if (p < end && *p == ':') {
					bits = (int)strtol(p + 1, &q, 10);
					p = q;
					if (bits < 1 || bits > 8)
						bits = 8;
					v <<= 8 - bits;
				}
				cg_fprof_buf_addc(&b, (char)v);
			}
			skip_space(&p, end);
			if (p < end && *p == ',')
				p++;
			skip_space(&p, end);
		}
		if (end - p < 2 || p[1] != '>') {
			cg_fprof_buf_release(&b);
			*why = "unterminated binary";
			return CG_EFORMAT;
		}
		p += 2;
		t->kind = FT_BINARY;
		t->bits = (uint8_t)bits;
		t->n = (uint32_t)b.len;
		t->u.s = cg_fprof_arena_strdup(a, b.data ? b.data : "", b.len);
		cg_fprof_buf_release(&b);
		if (!t->u.s)
			return CG_ENOMEM;
	} else if ((c >= 'a' && c <= 'z') || (unsigned char)c >= 0xC0) {
		const char *q = p;
		while (q < end) {
			const char *r = q;
			uint32_t ch = utf8_next(&r, end);
			if (!is_name_l1(ch))
				break;
			q = r;
		}
		if (q == p) {
			*why = "unexpected character";
			return CG_EFORMAT;
		}
		t->kind = FT_ATOM;
		t->u.s = cg_fprof_arena_strdup(a, p, (size_t)(q - p));
		t->n = (uint32_t)(q - p);
		if (!t->u.s)
			return CG_ENOMEM;
		p = q;
	} else {
		*why = "unexpected character";
		return CG_EFORMAT;
	}
	*pp = p;
	*out = t;
	return 0;
}

int cg_fprof_term_parse(fprof_arena *a, const char **p, const char *end, fprof_term **out,
		     const char **why)
{
	return parse_depth(a, p, end, out, why, 0);
}

/* ---- function names ---------------------------------------------------------------- */

/* Reads one atom of an "M:F/A" name, plain or quoted. */
static int name_atom(fprof_arena *a, const char **pp, const char *end, fprof_term *t)
{
	const char *p = *pp, *why;
	const char *s;
	size_t len;
	if (p < end && *p == '\'') {
		if (parse_quoted(a, &p, end, '\'', &s, &len, &why))
			return -1;
	} else {
		const char *q = p;
		while (q < end) {
			const char *r = q;
			uint32_t c = utf8_next(&r, end);
			if (!is_name_l1(c))
				break;
			q = r;
		}
		if (q == p)
			return -1;
		s = p;
		len = (size_t)(q - p);
		p = q;
	}
	t->kind = FT_ATOM;
	t->u.s = s;
	t->n = (uint32_t)len;
	*pp = p;
	return 0;
}

int cg_fprof_name_term(fprof_arena *a, const char *name, fprof_term **out)
{
	size_t n = strlen(name);
	const char *p = name, *end = name + n;
	fprof_term *t = new_term(a, FT_TUPLE);
	fprof_term *e = cg_fprof_arena_alloc(a, 3 * sizeof *e);
	if (!t || !e)
		return CG_ENOMEM;
	if (name_atom(a, &p, end, &e[0]) == 0 && p < end && *p == ':' && (p++, 1) &&
	    name_atom(a, &p, end, &e[1]) == 0 && p < end && *p == '/' && p + 1 < end) {
		p++;
		int64_t ar = 0;
		const char *q = p;
		while (q < end && *q >= '0' && *q <= '9' && ar < 100000)
			ar = ar * 10 + (*q++ - '0');
		if (q == end && q > p) {
			e[2].kind = FT_INT;
			e[2].u.i = ar;
			t->n = 3;
			t->u.e = e;
			*out = t;
			return 0;
		}
	}
	t->kind = FT_ATOM;
	t->u.s = name;
	t->n = (uint32_t)n;
	*out = t;
	return 0;
}
