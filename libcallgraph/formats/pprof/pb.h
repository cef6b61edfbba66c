/*
 * pb.h — the little of the protobuf wire format that pprof needs: varints,
 * length-delimited fields and packed repeated integers, written into a
 * growing buffer and read from memory with bounds checks.
 *
 * Why our own and not protobuf-c: pprof uses five message kinds with plain
 * integer and string fields, no groups, no floats, no maps.  Encoding that
 * is ~150 lines; protobuf-c would add a code generator, a runtime library
 * and a copy of every message as C structs in memory, where our reader
 * walks the bytes once and builds the model directly.
 *
 * Everything is static inline: the helpers stay private to the pprof
 * family and add no symbols to the library.
 */
#ifndef CG_PPROF_PB_H
#define CG_PPROF_PB_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

enum { PB_VARINT = 0, PB_FIXED64 = 1, PB_LEN = 2, PB_FIXED32 = 5 };

/* ---- writing ------------------------------------------------------------- */

struct pb_buf {
	uint8_t *data;
	size_t len, cap;
	int oom;           /* set once an allocation failed; writes then do nothing */
};

static inline int pb_reserve(struct pb_buf *b, size_t more)
{
	if (b->oom)
		return -1;
	if (more > SIZE_MAX - b->len ||
	    cg_array_grow((void **)&b->data, &b->cap, b->len + more, 1, 256)) {
		b->oom = 1;
		return -1;
	}
	return 0;
}

static inline void pb_raw_varint(struct pb_buf *b, uint64_t v)
{
	if (pb_reserve(b, 10))
		return;
	while (v >= 0x80) {
		b->data[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->data[b->len++] = (uint8_t)v;
}

static inline void pb_tag(struct pb_buf *b, unsigned field, unsigned wire)
{
	pb_raw_varint(b, (uint64_t)field << 3 | wire);
}

/* An integer field; zero is the default and is left out, as protobuf does. */
static inline void pb_int(struct pb_buf *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	pb_tag(b, field, PB_VARINT);
	pb_raw_varint(b, v);
}

static inline void pb_bytes(struct pb_buf *b, unsigned field, const void *data, size_t len)
{
	pb_tag(b, field, PB_LEN);
	pb_raw_varint(b, len);
	if (len && !pb_reserve(b, len)) {
		memcpy(b->data + b->len, data, len);
		b->len += len;
	}
}

/* A nested message built in `sub` (which is emptied for reuse). */
static inline void pb_message(struct pb_buf *b, unsigned field, struct pb_buf *sub)
{
	if (sub->oom)
		b->oom = 1;
	pb_bytes(b, field, sub->data, sub->len);
	sub->len = 0;
}

/* ---- reading ------------------------------------------------------------- */

struct pb_reader {
	const uint8_t *p, *end;
	const uint8_t *base;   /* start of the whole payload, for offsets */
};

struct pb_field {
	unsigned number;
	unsigned wire;
	uint64_t value;              /* PB_VARINT, PB_FIXED64, PB_FIXED32 */
	const uint8_t *data;         /* PB_LEN */
	size_t len;
	size_t offset;               /* of the field's tag in the payload */
};

/* 0 and *v set, or -1 when the varint is truncated or longer than 10 bytes. */
static inline int pb_read_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t r = 0;
	for (unsigned shift = 0; shift < 70; shift += 7) {
		if (p >= end)
			return -1;
		uint8_t c = *p++;
		r |= (uint64_t)(c & 0x7f) << (shift < 64 ? shift : 63);
		if (!(c & 0x80)) {
			*pp = p;
			*v = r;
			return 0;
		}
	}
	return -1;
}

/* Next field of the message: 1 and *f filled, 0 at its end, -1 when the
 * bytes are not protobuf (*why says what, f->offset where). */
static inline int pb_next(struct pb_reader *r, struct pb_field *f, const char **why)
{
	if (r->p >= r->end)
		return 0;
	f->offset = (size_t)(r->p - r->base);
	uint64_t key;
	if (pb_read_varint(&r->p, r->end, &key)) {
		*why = "truncated field key";
		return -1;
	}
	f->number = (unsigned)(key >> 3);
	f->wire = (unsigned)(key & 7);
	if (key >> 3 == 0 || key >> 3 > 536870911u) {
		*why = "field number 0 or out of range";
		return -1;
	}
	switch (f->wire) {
	case PB_VARINT:
		if (pb_read_varint(&r->p, r->end, &f->value)) {
			*why = "truncated varint";
			return -1;
		}
		return 1;
	case PB_FIXED64:
	case PB_FIXED32: {
		size_t n = f->wire == PB_FIXED64 ? 8 : 4;
		if ((size_t)(r->end - r->p) < n) {
			*why = "truncated fixed-size field";
			return -1;
		}
		f->value = 0;
		for (size_t i = 0; i < n; i++)
			f->value |= (uint64_t)r->p[i] << (8 * i);
		r->p += n;
		return 1;
	}
	case PB_LEN: {
		uint64_t len;
		if (pb_read_varint(&r->p, r->end, &len)) {
			*why = "truncated length";
			return -1;
		}
		if (len > (uint64_t)(r->end - r->p)) {
			*why = "length runs past the end of its message";
			return -1;
		}
		f->data = r->p;
		f->len = (size_t)len;
		r->p += len;
		return 1;
	}
	default:
		*why = "unsupported wire type (groups or unknown)";
		return -1;
	}
}

static inline void pb_sub(struct pb_reader *sub, const struct pb_reader *r,
			  const struct pb_field *f)
{
	sub->p = f->data;
	sub->end = f->data + f->len;
	sub->base = r->base;
}

#endif
