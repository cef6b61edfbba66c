/*
 * fprof_term.h — Erlang terms as fprof prints them (internal).
 *
 * A small term tree used where fprof's output shows whole Erlang terms:
 * spawn arguments (`spawned_as`), initial calls, function names, and the
 * analysis text we read back.  Pids, ports, references and funs never
 * appear as such: fprof turns them into strings before printing
 * ("parsify"), and so do we when decoding.
 *
 * Invariants: every term and string lives in the fprof_arena it was made
 * in; atoms and strings are UTF-8; a list term of n elements has n + 1
 * slots, the last being its tail (FT_NIL for a proper list).
 */
#ifndef CG_FPROF_TERM_H
#define CG_FPROF_TERM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "callgraph/common.h"
#include "arena.h"

/* Saturating sums: costs from corrupt inputs must not overflow. */
static inline void fprof_add_sat(int64_t *a, int64_t v)
{
	if (__builtin_add_overflow(*a, v, a))
		*a = v > 0 ? INT64_MAX : INT64_MIN;
}

/* ---- arena ------------------------------------------------------------------ */

/* The library's arena (core/arena.h) under the names the fprof code uses. */
typedef cg_arena fprof_arena;

static inline void *cg_fprof_arena_alloc(fprof_arena *a, size_t size)   /* zeroed; NULL on ENOMEM */
{
	return cg_arena_alloc(a, size);
}

static inline char *cg_fprof_arena_strdup(fprof_arena *a, const char *s, size_t len)
{
	return cg_arena_strdup(a, s, len);
}

static inline void cg_fprof_arena_release(fprof_arena *a)
{
	cg_arena_release(a);
}

/* ---- growable byte buffer ------------------------------------------------------ */

typedef struct fprof_buf {
	char *data;
	size_t len, cap;
	int oom;        /* set once an allocation failed; data stays valid */
} fprof_buf;

void cg_fprof_buf_add(fprof_buf *b, const char *s, size_t len);
void cg_fprof_buf_adds(fprof_buf *b, const char *s);
void cg_fprof_buf_addc(fprof_buf *b, char c);
void cg_fprof_buf_addf(fprof_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *cg_fprof_buf_cstr(fprof_buf *b);   /* NUL-terminated view */
void cg_fprof_buf_release(fprof_buf *b);

/* ---- terms -------------------------------------------------------------------- */

enum fprof_term_kind {
	FT_ATOM,     /* s, n = byte length */
	FT_INT,      /* i */
	FT_BIG,      /* s = decimal text with sign */
	FT_FLOAT,    /* f */
	FT_STRING,   /* s, n: a list of characters printed as "..." */
	FT_TUPLE,    /* e[0..n-1] */
	FT_LIST,     /* e[0..n-1] elements, e[n] tail; n >= 1 */
	FT_NIL,      /* [] */
	FT_BINARY,   /* s, n bytes; bits = bits used in the last byte (8 = whole) */
	FT_MAP       /* e[0..2n-1]: key, value, ... in the order read */
};

typedef struct fprof_term {
	uint8_t kind;
	uint8_t bits;
	uint32_t n;
	union {
		int64_t i;
		double f;
		const char *s;
		struct fprof_term *e;
	} u;
} fprof_term;

/* Decodes one external-term-format term (no version byte) from
 * [*p, end), advancing *p.  Returns 0, CG_EFORMAT (bad or truncated term;
 * *why says what) or CG_ENOMEM. */
int cg_fprof_etf_decode(fprof_arena *a, const uint8_t **p, const uint8_t *end,
		     fprof_term **out, const char **why);

/* Skips one term; 0 or CG_EFORMAT with *why. */
int cg_fprof_etf_skip(const uint8_t **p, const uint8_t *end, const char **why);

/* Parses Erlang term text (what fprof prints: atoms, integers, floats,
 * strings, tuples, lists, maps, binaries) from [*p, end), skipping white
 * space and %-comments first, advancing *p.  0 or CG_EFORMAT. */
int cg_fprof_term_parse(fprof_arena *a, const char **p, const char *end,
		     fprof_term **out, const char **why);

/* Appends the term as `io_lib:format("~tp")` writes it when it fits on
 * one line. */
void cg_fprof_term_write(fprof_buf *b, const fprof_term *t);
/* Appends an atom with Erlang's quoting rules (quotes only when needed). */
void cg_fprof_atom_write(fprof_buf *b, const char *s, size_t len);
/* Appends the term as `~tp` pretty-prints it starting at column `col`
 * (0-based) with line length 80. */
void cg_fprof_term_pretty(fprof_buf *b, const fprof_term *t, int col);

/* Erlang's standard order of terms: <0, 0, >0. */
int cg_fprof_term_compare(const fprof_term *a, const fprof_term *b);

/* The Erlang term fprof prints for a model function name: {M,F,A} for
 * "M:F/A" (atoms possibly quoted), else the atom itself ("suspend",
 * "undefined", or any other name). */
int cg_fprof_name_term(fprof_arena *a, const char *name, fprof_term **out);

#endif
