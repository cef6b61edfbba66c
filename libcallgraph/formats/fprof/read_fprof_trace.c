/*
 * read_fprof_trace.c — Erlang fprof trace files (dbg trace-port framing,
 * external term format) replayed through fprof's profiling algorithm.
 *
 * A record is Op(1) Size(4, big-endian) Payload.  A regular file is
 * decoded in place through a sliding mmap window (pipes: one read buffer
 * that only grows to the largest record).  Call and return_to messages
 * (99 % of a trace) are looked up whole, by their bytes before the
 * timestamp, in a cache of messages decoded before; the rest, and every
 * first occurrence, is decoded term by term, with pids and MFA tuples
 * looked up by their raw encoded bytes.  The common record costs no
 * allocation and no term walk.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "callgraph.h"
#include "fprof_profile.h"
#include "fprof_model.h"
#include "fprof_trace_stream.h"
#include "options.h"

/* ---- raw-bytes cache (encoded term -> id) ------------------------------------- */

struct rawkey {
	const uint8_t *bytes;
	uint32_t len, val;
};

struct rawcache {
	struct rawkey *keys;
	size_t n, cap;
	uint32_t *slot;   /* key index + 1 */
	size_t scap;
};

/* Eight bytes at a time: this runs twice per call record. */
static uint32_t raw_hash(const uint8_t *p, size_t n)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
		p += 8;
		n -= 8;
	}
	uint64_t w = 0;
	memcpy(&w, p, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	return (uint32_t)(h ^ h >> 32);
}

/* The stored key with these bytes (hash h), or NULL. */
static inline const struct rawkey *raw_lookup(const struct rawcache *c, const uint8_t *p,
					      size_t n, uint32_t h)
{
	if (!c->scap)
		return NULL;
	for (size_t j = h & (c->scap - 1); c->slot[j]; j = (j + 1) & (c->scap - 1)) {
		const struct rawkey *k = &c->keys[c->slot[j] - 1];
		if (k->len == n && memcmp(k->bytes, p, n) == 0)
			return k;
	}
	return NULL;
}

static int raw_find(const struct rawcache *c, const uint8_t *p, size_t n, uint32_t h, uint32_t *val)
{
	const struct rawkey *k = raw_lookup(c, p, n, h);
	if (k)
		*val = k->val;
	return k != NULL;
}

static int raw_find_bytes(const struct rawcache *c, const uint8_t *p, size_t n, uint32_t h,
			  const uint8_t **bytes)
{
	const struct rawkey *k = raw_lookup(c, p, n, h);
	if (k)
		*bytes = k->bytes;
	return k != NULL;
}

static int raw_add(struct rawcache *c, fprof_arena *a, const uint8_t *p, size_t n, uint32_t h,
		   uint32_t val)
{
	if (cg_array_grow((void **)&c->keys, &c->cap, c->n + 1, sizeof *c->keys, 64))
		return CG_ENOMEM;
	if ((c->n + 1) * 2 > c->scap) {
		size_t scap = c->scap ? c->scap * 2 : 128;
		uint32_t *s = calloc(scap, sizeof *s);
		if (!s)
			return CG_ENOMEM;
		for (size_t i = 0; i < c->n; i++) {
			uint32_t hh = raw_hash(c->keys[i].bytes, c->keys[i].len);
			size_t j = hh & (scap - 1);
			while (s[j])
				j = (j + 1) & (scap - 1);
			s[j] = (uint32_t)i + 1;
		}
		free(c->slot);
		c->slot = s;
		c->scap = scap;
	}
	const uint8_t *copy = (const uint8_t *)cg_fprof_arena_strdup(a, (const char *)p, n);
	if (!copy)
		return CG_ENOMEM;
	c->keys[c->n] = (struct rawkey){ copy, (uint32_t)n, val };
	size_t j = h & (c->scap - 1);
	while (c->slot[j])
		j = (j + 1) & (c->scap - 1);
	c->slot[j] = (uint32_t)c->n + 1;
	c->n++;
	return 0;
}

static void raw_release(struct rawcache *c)
{
	free(c->keys);
	free(c->slot);
	memset(c, 0, sizeof *c);
}

/* ---- message cache (everything before the timestamp -> decoded event) ----------------
 *
 * A call or return_to message is {trace_ts, Pid, Kind, MFA, [{cp, CP},] TS}
 * and all but TS repeats: a few thousand distinct byte strings make up
 * millions of records.  So the bytes before TS are looked up whole in a
 * hash table filled from messages decoded the long way.  The cut before TS
 * is guessed from the end of the record (TS is {Mega, Sec, Micro}, each an
 * integer of 2 or 5 bytes) and checked twice: the bytes before it must be
 * a message prefix seen before, and the rest must decode as a timestamp
 * ending exactly at the end.  Term encodings are self-delimiting, so a
 * known prefix followed by a timestamp decodes exactly as the long way
 * would. */

enum { MK_CALL = 1, MK_RETURN_TO = 2 };

struct msgkey {
	const uint8_t *bytes;   /* copy in the arena; NULL = empty slot */
	uint32_t len, hash;
	uint32_t kind, proc, fid, cp;
};

enum { MSG_RECENT_BITS = 12 };

struct msgcache {
	struct msgkey *slot;
	size_t n, cap;   /* cap: power of two */
	/* In front of it, a direct-mapped table indexed by a few sampled
	 * words (cheap to compute, verified by the full compare): most
	 * records hit here and skip hashing the whole message. */
	const struct msgkey *recent[1 << MSG_RECENT_BITS];
};

/* The slot in `recent` from the length and sampled words: the pid
 * (bytes 24..39: the end of the node name and the pid's numbers, for the
 * usual {trace_ts, Pid, ...} start), the middle (the function) and the
 * last 24 bytes (CP, or the function).  Names that differ elsewhere
 * (lists:rmerge3_12_3 / rmerge3_21_3) share a slot: `recent` is two-way. */
static size_t msg_sample(const uint8_t *p, size_t n)
{
	uint64_t w[6] = { 0 };
	if (n >= 48) {
		memcpy(&w[0], p + 24, 8);
		memcpy(&w[1], p + 32, 8);
		memcpy(&w[2], p + n / 2, 8);
		memcpy(&w[3], p + n - 24, 8);
		memcpy(&w[4], p + n - 16, 8);
		memcpy(&w[5], p + n - 8, 8);
	}
	uint64_t h = (w[0] * 0x9E3779B97F4A7C15ull) ^ (w[1] * 0xff51afd7ed558ccdull) ^
		     (w[2] * 0xc4ceb9fe1a85ec53ull) ^ (w[3] * 0xD6E8FEB86659FD93ull) ^
		     (w[4] * 0xA0761D6478BD642Full) ^ (w[5] * 0xE7037ED1A0B428DBull) ^ n;
	return (size_t)(h >> (64 - MSG_RECENT_BITS)) & ~(size_t)1;
}

/* The table stays small (distinct messages); a trace with very many
 * processes stops adding keys here and takes the long way. */
enum { MSGCACHE_MAX = 1 << 16 };

static uint32_t msg_hash(const uint8_t *p, size_t n)
{
	/* two independent lanes: the multiply latency does not chain over
	 * the whole message */
	uint64_t a = 0x9E3779B97F4A7C15ull ^ n, b = 0xC2B2AE3D27D4EB4Full;
	const uint8_t *e = p + n;
	while (e - p >= 16) {
		uint64_t w1, w2;
		memcpy(&w1, p, 8);
		memcpy(&w2, p + 8, 8);
		a = (a ^ w1) * 0xff51afd7ed558ccdull;
		b = (b ^ w2) * 0xc4ceb9fe1a85ec53ull;
		a ^= a >> 29;
		b ^= b >> 31;
		p += 16;
	}
	uint64_t w1 = 0, w2 = 0;
	size_t k = (size_t)(e - p);
	memcpy(&w1, p, k < 8 ? k : 8);
	if (k > 8)
		memcpy(&w2, p + 8, k - 8);
	a = (a ^ w1) * 0xff51afd7ed558ccdull;
	b = (b ^ w2) * 0xc4ceb9fe1a85ec53ull;
	uint64_t h = a ^ (b >> 32 | b << 32);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (uint32_t)h;
}

static const struct msgkey *msg_find(const struct msgcache *c, const uint8_t *p, size_t n);

/* msg_find through the direct-mapped table. */
static const struct msgkey *msg_lookup(struct msgcache *c, const uint8_t *p, size_t n)
{
	size_t s = msg_sample(p, n);
	const struct msgkey *k = c->recent[s];
	if (k && k->len == n && memcmp(k->bytes, p, n) == 0)
		return k;
	k = c->recent[s + 1];
	if (k && k->len == n && memcmp(k->bytes, p, n) == 0) {
		/* most recent first */
		c->recent[s + 1] = c->recent[s];
		c->recent[s] = k;
		return k;
	}
	k = msg_find(c, p, n);
	if (k) {
		c->recent[s + 1] = c->recent[s];
		c->recent[s] = k;
	}
	return k;
}

static const struct msgkey *msg_find(const struct msgcache *c, const uint8_t *p, size_t n)
{
	if (!c->cap)
		return NULL;
	uint32_t h = msg_hash(p, n);
	for (size_t j = h & (c->cap - 1);; j = (j + 1) & (c->cap - 1)) {
		const struct msgkey *k = &c->slot[j];
		if (!k->bytes)
			return NULL;
		if (k->hash == h && k->len == n && memcmp(k->bytes, p, n) == 0)
			return k;
	}
}

/* Adds key (its bytes copied); failures only mean no caching. */
static void msg_add(struct msgcache *c, fprof_arena *a, struct msgkey key)
{
	if (c->n >= MSGCACHE_MAX || msg_find(c, key.bytes, key.len))
		return;
	if ((c->n + 1) * 2 > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		struct msgkey *s = calloc(cap, sizeof *s);
		if (!s)
			return;
		for (size_t i = 0; i < c->cap; i++) {
			if (!c->slot[i].bytes)
				continue;
			size_t j = c->slot[i].hash & (cap - 1);
			while (s[j].bytes)
				j = (j + 1) & (cap - 1);
			s[j] = c->slot[i];
		}
		free(c->slot);
		c->slot = s;
		c->cap = cap;
		memset(c->recent, 0, sizeof c->recent);   /* pointed into the old table */
	}
	const uint8_t *copy = (const uint8_t *)cg_fprof_arena_strdup(a, (const char *)key.bytes, key.len);
	if (!copy)
		return;
	key.bytes = copy;
	key.hash = msg_hash(copy, key.len);
	size_t j = key.hash & (c->cap - 1);
	while (c->slot[j].bytes)
		j = (j + 1) & (c->cap - 1);
	c->slot[j] = key;
	c->n++;
}

static void msg_release(struct msgcache *c)
{
	free(c->slot);
	memset(c, 0, sizeof *c);
}

/* ---- reader state --------------------------------------------------------------- */

struct reader {
	fp_state st;
	struct rawcache pids, mfas;
	const cg_fprof_read_options *opts;
	const char *name;
	uint64_t offset;          /* file offset of the current record */
	uint64_t records, unknown;
	int stopped;              /* fprof stopped handling (data error) */
	char stop_msg[512];
	int warned_unknown;
	/* the previous record's pid bytes: most records repeat it */
	uint8_t last_pid[64];
	size_t last_pid_len;
	uint32_t last_proc;
	/* direct-mapped cache of recent MFA encodings (bytes in mfas' keys) */
	struct { const uint8_t *bytes; uint32_t len, fid; } mfa_cache[256];
	struct msgcache msgs;
	/* set by handle() for a call / return_to it decoded: where the
	 * timestamp starts and what the message said (for msgcache) */
	struct msgkey learnt;
	const uint8_t *learnt_bytes;
};

enum { TR_OK = 0, TR_BAD = 1, TR_UNKNOWN = 2, TR_FPROF_ERR = 3, TR_MISS = 4 };

#define TNEED(n) do { if ((size_t)(end - p) < (size_t)(n)) return TR_BAD; } while (0)

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Reads an atom's bytes without copying. */
static int get_atom(const uint8_t **pp, const uint8_t *end, const uint8_t **s, size_t *len, int *latin1)
{
	const uint8_t *p = *pp;
	TNEED(1);
	uint8_t tag = *p++;
	switch (tag) {
	case 100: case 118: TNEED(2); *len = (size_t)p[0] << 8 | p[1]; p += 2; break;
	case 115: case 119: TNEED(1); *len = p[0]; p += 1; break;
	default: return TR_BAD;
	}
	TNEED(*len);
	*latin1 = tag == 100 || tag == 115;
	*s = p;
	*pp = p + *len;
	return TR_OK;
}

static int atom_is(const uint8_t *s, size_t len, const char *lit)
{
	return strlen(lit) == len && memcmp(s, lit, len) == 0;
}

static int peek_atom(const uint8_t *p, const uint8_t *end, const char *lit)
{
	const uint8_t *s;
	size_t len;
	int l1;
	return get_atom(&p, end, &s, &len, &l1) == TR_OK && atom_is(s, len, lit);
}

static int get_int(const uint8_t **pp, const uint8_t *end, int64_t *v)
{
	const uint8_t *p = *pp;
	TNEED(1);
	if (*p == 97) {
		TNEED(2);
		*v = p[1];
		*pp = p + 2;
		return TR_OK;
	}
	if (*p == 98) {
		TNEED(5);
		*v = (int32_t)rd32(p + 1);
		*pp = p + 5;
		return TR_OK;
	}
	if (*p == 110) {
		TNEED(3);
		size_t n = p[1];
		int neg = p[2];
		TNEED(3 + n);
		if (n > 7)
			return TR_BAD;
		uint64_t u = 0;
		for (size_t i = n; i-- > 0;)
			u = u << 8 | p[3 + i];
		*v = neg ? -(int64_t)u : (int64_t)u;
		*pp = p + 3 + n;
		return TR_OK;
	}
	return TR_BAD;
}

/* {Mega, Sec, Micro} -> microseconds. */
static int get_ts(const uint8_t **pp, const uint8_t *end, int64_t *ts)
{
	const uint8_t *p = *pp;
	TNEED(2);
	if (p[0] != 104 || p[1] != 3)
		return TR_BAD;
	p += 2;
	int64_t a, b, c;
	if (get_int(&p, end, &a) || get_int(&p, end, &b) || get_int(&p, end, &c))
		return TR_BAD;
	/* Mega up to 9e6 (year ~287,000) keeps the microseconds in int64 */
	if (a < 0 || a > 9000000 || b < -1000000000 || b > 1000000000 || c < -1000000000 ||
	    c > 1000000000)
		return TR_BAD;
	*ts = (a * 1000000 + b) * 1000000 + c;
	*pp = p;
	return TR_OK;
}

static int skip(const uint8_t **p, const uint8_t *end)
{
	const char *why;
	return cg_fprof_etf_skip(p, end, &why) ? TR_BAD : TR_OK;
}

static int oom(struct reader *r)
{
	r->st.oom = 1;
	return TR_BAD;
}

/* A pid term -> process index. */
static int get_pid(struct reader *r, const uint8_t **pp, const uint8_t *end, uint32_t *proc)
{
	const uint8_t *p = *pp, *start = p;
	TNEED(1);
	if (*p != 88 && *p != 103)
		return TR_BAD;
	p++;
	const uint8_t *node;
	size_t nlen;
	int l1;
	if (get_atom(&p, end, &node, &nlen, &l1))
		return TR_BAD;
	size_t fixed = *start == 88 ? 12 : 9;
	TNEED(fixed);
	size_t n = (size_t)(p + fixed - start);
	if (n == r->last_pid_len && memcmp(start, r->last_pid, n) == 0) {
		*proc = r->last_proc;
		*pp = p + fixed;
		return TR_OK;
	}
	uint32_t h = raw_hash(start, n);
	if (!raw_find(&r->pids, start, n, h, proc)) {
		uint32_t creation = *start == 88 ? rd32(p + 8) : p[8];
		size_t ulen;
		fprof_arena tmp = { 0 };
		const char *un = (const char *)node;
		if (l1) {
			/* node names are ASCII in practice; transcode anyway */
			char *u = cg_fprof_arena_alloc(&tmp, 2 * nlen + 1);
			if (!u)
				return oom(r);
			ulen = 0;
			for (size_t i = 0; i < nlen; i++) {
				if (node[i] < 0x80) {
					u[ulen++] = (char)node[i];
				} else {
					u[ulen++] = (char)(0xC0 | node[i] >> 6);
					u[ulen++] = (char)(0x80 | (node[i] & 0x3F));
				}
			}
			un = u;
		} else {
			ulen = nlen;
		}
		*proc = cg_fp_proc_intern(&r->st, un, ulen, rd32(p), rd32(p + 4), creation);
		cg_fprof_arena_release(&tmp);
		if (*proc == FP_NONE || raw_add(&r->pids, &r->st.arena, start, n, h, *proc))
			return oom(r);
	}
	if (n <= sizeof r->last_pid) {
		memcpy(r->last_pid, start, n);
		r->last_pid_len = n;
		r->last_proc = *proc;
	}
	*pp = p + fixed;
	return TR_OK;
}

/* Atom bytes -> UTF-8 in a small buffer. */
static size_t to_utf8(const uint8_t *s, size_t len, int latin1, char *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < len && n + 2 < cap; i++) {
		if (!latin1 || s[i] < 0x80) {
			out[n++] = (char)s[i];
		} else {
			out[n++] = (char)(0xC0 | s[i] >> 6);
			out[n++] = (char)(0x80 | (s[i] & 0x3F));
		}
	}
	return n;
}

/* Length of a list term used as an argument list (verbose traces). */
static int list_length(const uint8_t **pp, const uint8_t *end, int64_t *n)
{
	const uint8_t *p = *pp;
	TNEED(1);
	if (*p == 106) {
		*n = 0;
		*pp = p + 1;
		return TR_OK;
	}
	if (*p == 107) {
		TNEED(3);
		*n = (int64_t)p[1] << 8 | p[2];
		return skip(pp, end);
	}
	if (*p == 108) {
		TNEED(5);
		*n = rd32(p + 1);
		const uint8_t *q = p;
		if (skip(&q, end))
			return TR_BAD;
		/* an improper list has no length: fprof would crash */
		const uint8_t *t = p + 5;
		for (int64_t i = 0; i < *n; i++)
			if (skip(&t, end))
				return TR_BAD;
		if (t >= end || *t != 106)
			return TR_BAD;
		*pp = q;
		return TR_OK;
	}
	return TR_BAD;
}

/* The common MFA shape {atom, atom, small integer}: advances *pp past it
 * and returns 1, else 0 (the caller falls back to the generic skip). */
static int mfa_extent(const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *p = *pp;
	if (end - p < 2 || p[0] != 104 || p[1] != 3)
		return 0;
	p += 2;
	for (int i = 0; i < 2; i++) {
		if (end - p < 3)
			return 0;
		size_t len;
		if (p[0] == 100 || p[0] == 118)
			len = 3 + ((size_t)p[1] << 8 | p[2]);
		else if (p[0] == 119 || p[0] == 115)
			len = 2 + (size_t)p[1];
		else
			return 0;
		if ((size_t)(end - p) < len)
			return 0;
		p += len;
	}
	if (end - p < 2 || p[0] != 97)
		return 0;
	*pp = p + 2;
	return 1;
}

/* An MFA {M, F, Arity | Args} (or the atom undefined when allowed) ->
 * function id. */
static int get_mfa(struct reader *r, const uint8_t **pp, const uint8_t *end, int allow_undefined,
		   uint32_t *fid)
{
	const uint8_t *p = *pp, *start = p;
	TNEED(1);
	if (allow_undefined && *p != 104) {
		if (!peek_atom(p, end, "undefined"))
			return TR_BAD;
		*fid = FP_UNDEFINED;
		return skip(pp, end);
	}
	if (!mfa_extent(&p, end) && skip(&p, end))
		return TR_BAD;
	size_t n = (size_t)(p - start);
	/* cheap slot from the length and the last 8 bytes (function name end
	 * and arity), then an exact compare */
	size_t slot = n;
	if (n >= 8) {
		uint64_t w;
		memcpy(&w, p - 8, 8);
		slot ^= (size_t)((w * 0x9E3779B97F4A7C15ull) >> 56);
	}
	slot &= 255;
	if (r->mfa_cache[slot].len == n && memcmp(r->mfa_cache[slot].bytes, start, n) == 0) {
		*fid = r->mfa_cache[slot].fid;
		*pp = p;
		return TR_OK;
	}
	uint32_t h = raw_hash(start, n);
	if (!raw_find(&r->mfas, start, n, h, fid)) {
		const uint8_t *q = start;
		if (n < 2 || q[0] != 104 || q[1] != 3)
			return TR_BAD;
		q += 2;
		const uint8_t *m, *f;
		size_t ml, fl;
		int m1, f1;
		int64_t arity;
		int with_args = 0;
		if (get_atom(&q, end, &m, &ml, &m1) || get_atom(&q, end, &f, &fl, &f1))
			return TR_BAD;
		if (q < end && (*q == 106 || *q == 107 || *q == 108)) {
			if (list_length(&q, end, &arity))
				return TR_BAD;
			with_args = 1;
		} else if (get_int(&q, end, &arity) || arity < 0 || arity > 255) {
			return TR_BAD;
		}
		char mb[2048], fb[2048];
		size_t mu = to_utf8(m, ml, m1, mb, sizeof mb), fu = to_utf8(f, fl, f1, fb, sizeof fb);
		*fid = cg_fp_func_intern(&r->st, mb, mu, fb, fu, (uint32_t)arity);
		if (*fid == FP_NONE)
			return oom(r);
		/* A verbose trace carries the arguments, different in nearly
		 * every call: caching those bytes would keep the whole trace in
		 * memory (a 300 MB trace: 187 MB), so only {M, F, Arity} is. */
		if (!with_args && raw_add(&r->mfas, &r->st.arena, start, n, h, *fid))
			return oom(r);
	}
	/* the cache points at the copy kept by the raw cache */
	const uint8_t *kept = NULL;
	if (raw_find_bytes(&r->mfas, start, n, h, &kept)) {
		r->mfa_cache[slot].bytes = kept;
		r->mfa_cache[slot].len = (uint32_t)n;
		r->mfa_cache[slot].fid = *fid;
	}
	*pp = p;
	return TR_OK;
}

/* in/out location: 0 or an MFA. */
static int get_loc(struct reader *r, const uint8_t **pp, const uint8_t *end, uint32_t *fid)
{
	const uint8_t *p = *pp;
	TNEED(1);
	if (*p == 97 && end - p >= 2 && p[1] == 0) {
		*fid = FP_UNDEFINED;
		*pp = p + 2;
		return TR_OK;
	}
	return get_mfa(r, pp, end, 0, fid);
}

static int fp_result(struct reader *r, int rc)
{
	if (rc == CG_ENOMEM)
		return oom(r);
	if (rc == FP_EINCONSISTENT)
		return TR_FPROF_ERR;
	return TR_OK;
}

/* Handles one decoded {trace_ts, ...} message. */
static int handle(struct reader *r, const uint8_t *p, const uint8_t *end)
{
	const uint8_t *msg = p;
	r->learnt_bytes = NULL;
	TNEED(2);
	uint32_t arity;
	if (p[0] == 104) {
		arity = p[1];
		p += 2;
	} else if (p[0] == 105) {
		TNEED(5);
		arity = rd32(p + 1);
		p += 5;
	} else {
		return TR_UNKNOWN;
	}
	const uint8_t *tag;
	size_t tlen;
	int l1;
	if (arity < 2 || get_atom(&p, end, &tag, &tlen, &l1))
		return TR_UNKNOWN;
	if (!atom_is(tag, tlen, "trace_ts") || (arity != 5 && arity != 6))
		return TR_UNKNOWN;
	uint32_t proc;
	if (get_pid(r, &p, end, &proc))
		return TR_BAD;
	const uint8_t *kind;
	size_t klen;
	if (get_atom(&p, end, &kind, &klen, &l1))
		return TR_UNKNOWN;
	fp_state *st = &r->st;
	int64_t ts;
	uint32_t fid, cp, other;
	int rc;

#define KIND(s) atom_is(kind, klen, s)
	if (KIND("call")) {
		if (arity != 6)
			return TR_FPROF_ERR;   /* a call without {cp, _}: fprof rejects it */
		if (get_mfa(r, &p, end, 0, &fid))
			return TR_BAD;
		TNEED(2);
		if (p[0] != 104 || p[1] != 2)
			return TR_FPROF_ERR;
		p += 2;
		if (!peek_atom(p, end, "cp"))
			return TR_FPROF_ERR;
		if (skip(&p, end) || get_mfa(r, &p, end, 1, &cp))
			return TR_BAD;
		r->learnt = (struct msgkey){ .len = (uint32_t)(p - msg), .kind = MK_CALL, .proc = proc,
					     .fid = fid, .cp = cp };
		r->learnt_bytes = msg;
		if (get_ts(&p, end, &ts))
			return TR_BAD;
		rc = fp_result(r, cg_fp_call(st, proc, fid, cp, ts));
	} else if (KIND("return_to") && arity == 5) {
		if (get_mfa(r, &p, end, 1, &fid))
			return TR_BAD;
		r->learnt = (struct msgkey){ .len = (uint32_t)(p - msg), .kind = MK_RETURN_TO,
					     .proc = proc, .fid = fid };
		r->learnt_bytes = msg;
		if (get_ts(&p, end, &ts))
			return TR_BAD;
		rc = fp_result(r, cg_fp_return_to(st, proc, fid, ts));
	} else if ((KIND("spawn") || KIND("spawned")) && arity == 6) {
		if (get_pid(r, &p, end, &other))
			return TR_BAD;
		/* {M, F, Args}: decoded in full, fprof prints it as spawned_as */
		const uint8_t *q = p;
		fprof_term *mfargs;
		const char *why;
		if (cg_fprof_etf_decode(&st->arena, &q, end, &mfargs, &why))
			return TR_BAD;
		if (mfargs->kind != FT_TUPLE || mfargs->n != 3 || mfargs->u.e[0].kind != FT_ATOM ||
		    mfargs->u.e[1].kind != FT_ATOM)
			return TR_BAD;
		const fprof_term *args = &mfargs->u.e[2];
		uint32_t nargs;
		if (args->kind == FT_NIL)
			nargs = 0;
		else if (args->kind == FT_LIST && args->u.e[args->n].kind == FT_NIL)
			nargs = args->n;
		else
			return TR_BAD;
		uint32_t mfa = cg_fp_func_intern(st, mfargs->u.e[0].u.s, mfargs->u.e[0].n,
					      mfargs->u.e[1].u.s, mfargs->u.e[1].n, nargs);
		if (mfa == FP_NONE)
			return oom(r);
		p = q;
		if (get_ts(&p, end, &ts))
			return TR_BAD;
		if (KIND("spawn"))
			rc = fp_result(r, cg_fp_spawn(st, other, proc, mfa, mfargs, ts));
		else
			rc = fp_result(r, cg_fp_spawn(st, proc, other, mfa, mfargs, ts));
	} else if (KIND("exit") && arity == 5) {
		if (skip(&p, end) || get_ts(&p, end, &ts))
			return TR_BAD;
		rc = fp_result(r, cg_fp_exit(st, proc, ts));
	} else if ((KIND("out") || KIND("in")) && arity == 5) {
		if (get_loc(r, &p, end, &fid) || get_ts(&p, end, &ts))
			return TR_BAD;
		rc = fp_result(r, KIND("out") ? cg_fp_out(st, proc, fid, ts) : cg_fp_in(st, proc, fid, ts));
	} else if ((KIND("gc_minor_start") || KIND("gc_major_start") || KIND("gc_start")) &&
		   arity == 5) {
		if (skip(&p, end) || get_ts(&p, end, &ts))
			return TR_BAD;
		rc = fp_result(r, cg_fp_gc_start(st, proc, ts));
	} else if ((KIND("gc_minor_end") || KIND("gc_major_end") || KIND("gc_end")) && arity == 5) {
		if (skip(&p, end) || get_ts(&p, end, &ts))
			return TR_BAD;
		rc = fp_result(r, cg_fp_gc_end(st, proc, ts));
	} else if (((KIND("link") || KIND("unlink") || KIND("getting_linked") ||
		     KIND("getting_unlinked") || KIND("register") || KIND("unregister") ||
		     KIND("receive")) && arity == 5) ||
		   ((KIND("send") || KIND("send_to_non_existing_process")) && arity == 6)) {
		for (uint32_t i = 3; i < arity - 1; i++)
			if (skip(&p, end))
				return TR_BAD;
		if (get_ts(&p, end, &ts))
			return TR_BAD;
		rc = TR_OK;
	} else {
		return TR_UNKNOWN;
	}
#undef KIND
	if (rc == TR_OK) {
		if (p != end)
			return TR_BAD;
		cg_fp_handled(st, ts);
	}
	return rc;
}

/* ---- framing ---------------------------------------------------------------------- */

static void warn(struct reader *r, const char *fmt, const char *a, unsigned long long b)
{
	if (!r->opts || !r->opts->warn)
		return;
	char msg[600];
	snprintf(msg, sizeof msg, fmt, a, b);
	r->opts->warn(r->opts->warn_ctx, msg);
}

/* fprof stops at its first bad message; we remember why and stop too
 * (and read no further: an endless input ends here).  `offset` is the
 * byte the problem was found at. */
static void stop_at(struct reader *r, const char *why, uint64_t offset, int close_stacks)
{
	if (r->stopped)
		return;
	r->stopped = 1;
	snprintf(r->stop_msg, sizeof r->stop_msg, "%s at byte offset %llu (record %llu)", why,
		 (unsigned long long)offset, (unsigned long long)r->records + 1);
	/* after a data error fprof closes the open stacks at the last good
	 * timestamp; after a reader error (truncation) it does not */
	if (close_stacks && r->st.have_first)
		cg_fp_finish(&r->st, r->st.last_ts);
}

static void stop(struct reader *r, const char *why, int close_stacks)
{
	stop_at(r, why, r->offset, close_stacks);
}

/* A payload that does not start with a whole term in the external term
 * format (a compressed term, a header claiming 2^32 elements) is one
 * binary_to_term rejects: an error at the offending byte, never a message
 * to skip.  (Bytes after a whole term binary_to_term ignores.)  1 when it
 * stopped the reader. */
static int stop_if_undecodable(struct reader *r, const uint8_t *payload, size_t n)
{
	const uint8_t *q = payload + 1, *end = payload + n;
	const char *why = NULL;
	if (cg_fprof_etf_skip(&q, end, &why) == 0)
		return 0;
	char msg[160];
	snprintf(msg, sizeof msg, "undecodable term: %s", why);
	stop_at(r, msg, r->offset + 5 + (uint64_t)(q - payload), 0);
	return 1;
}

/* get_ts for a timestamp that must end exactly at `end`, its integers in
 * the two forms a timestamp uses (small and 32-bit); 0 when it is not one
 * (then the long way decides).  Same checks as get_ts. */
static inline int ts_tail(const uint8_t *t, const uint8_t *end, int64_t *ts)
{
	if (t[0] != 104 || t[1] != 3)
		return 0;
	int64_t v[3];
	if (end - t == 17) {
		/* the usual shape: three 32-bit integers */
		if (t[2] != 98 || t[7] != 98 || t[12] != 98)
			return 0;
		v[0] = (int32_t)rd32(t + 3);
		v[1] = (int32_t)rd32(t + 8);
		v[2] = (int32_t)rd32(t + 13);
		t = end;
		goto check;
	}
	t += 2;
	for (int i = 0; i < 3; i++) {
		if (t < end && t[0] == 97 && end - t >= 2) {
			v[i] = t[1];
			t += 2;
		} else if (t < end && t[0] == 98 && end - t >= 5) {
			v[i] = (int32_t)rd32(t + 1);
			t += 5;
		} else {
			return 0;
		}
	}
check:
	if (t != end || v[0] < 0 || v[0] > 9000000 || v[1] < -1000000000 || v[1] > 1000000000 ||
	    v[2] < -1000000000 || v[2] > 1000000000)
		return 0;
	*ts = (v[0] * 1000000 + v[1]) * 1000000 + v[2];
	return 1;
}

/* A call or return_to whose bytes before the timestamp were seen before:
 * TR_MISS when not (the caller decodes it the long way). */
static int handle_cached(struct reader *r, const uint8_t *p, const uint8_t *end)
{
	/* {Mega, Sec, Micro}: Mega is 5 bytes since 1978; Sec and Micro 2 or 5 */
	static const uint8_t ts_lens[] = { 17, 14, 11, 8 };
	size_t n = (size_t)(end - p);
	for (size_t i = 0; i < sizeof ts_lens; i++) {
		size_t tl = ts_lens[i];
		if (n <= tl)
			continue;
		int64_t ts;
		if (!ts_tail(end - tl, end, &ts))
			continue;
		const struct msgkey *k = msg_lookup(&r->msgs, p, n - tl);
		if (!k)
			continue;
		int rc = fp_result(r, k->kind == MK_CALL ? cg_fp_call(&r->st, k->proc, k->fid, k->cp, ts)
							 : cg_fp_return_to(&r->st, k->proc, k->fid, ts));
		if (rc == TR_OK)
			cg_fp_handled(&r->st, ts);
		return rc;
	}
	return TR_MISS;
}

/* Processes one record payload. */
static void record(struct reader *r, const uint8_t *p, size_t n)
{
	if (r->stopped)
		return;
	if (n < 1 || p[0] != 131) {
		stop(r, "corrupt record: payload does not start with version byte 131", 0);
		return;
	}
	int rc = r->msgs.n ? handle_cached(r, p + 1, p + n) : TR_MISS;
	if (rc == TR_MISS) {
		rc = handle(r, p + 1, p + n);
		if (rc == TR_OK && r->learnt_bytes) {
			r->learnt.bytes = r->learnt_bytes;
			msg_add(&r->msgs, &r->st.arena, r->learnt);
		}
	}
	if (rc == TR_OK)
		return;
	if (r->st.oom)
		return;
	if ((rc == TR_BAD || rc == TR_UNKNOWN) && stop_if_undecodable(r, p, n))
		return;
	if (rc == TR_BAD) {
		stop(r, "corrupt record: malformed trace message", 0);
	} else if (rc == TR_FPROF_ERR) {
		stop(r, "trace data fprof rejects (inconsistent_trace_data)", 1);
	} else if (r->opts && r->opts->strict) {
		stop(r, "message of a kind fprof does not know (incorrect_trace_data)", 1);
	} else {
		r->unknown++;
		if (!r->warned_unknown) {
			r->warned_unknown = 1;
			warn(r, "%s: skipping trace messages of a kind fprof does not know (first at byte offset %llu)",
			     r->name, (unsigned long long)r->offset);
		}
	}
}

/* Feeds a chunk of the file; returns bytes consumed (whole records). */
static size_t feed(struct reader *r, const uint8_t *buf, size_t len)
{
	size_t pos = 0;
	while (len - pos >= 5 && !r->st.oom && !r->stopped) {
		uint8_t op = buf[pos];
		uint32_t size = rd32(buf + pos + 1);
		if (op == 1) {
			stop(r, "drop record (trace messages were lost)", 1);
			pos += 5;
			r->offset += 5;
			r->records++;
			continue;
		}
		if (op != 0)
			return pos;   /* the caller reports the bad tag */
		if (len - pos - 5 < size)
			break;
		record(r, buf + pos + 5, size);
		pos += 5 + (size_t)size;
		r->offset += 5 + (uint64_t)size;
		r->records++;
	}
	return pos;
}

static int finish(struct reader *r, cg_profile *profile, const char *trunc, cg_error *err)
{
	const cg_fprof_read_options *o = r->opts;
	int partial = o && o->allow_partial;
	if (r->st.oom)
		return cg_error_set(err, CG_ENOMEM, "%s: out of memory", r->name);
	if (trunc && !r->stopped) {
		snprintf(r->stop_msg, sizeof r->stop_msg, "%s at byte offset %llu (record %llu)", trunc,
			 (unsigned long long)r->offset, (unsigned long long)r->records + 1);
		r->stopped = 1;
	}
	if (r->stopped && !partial)
		return cg_error_set(err, CG_EFORMAT, "%s: %s", r->name, r->stop_msg);
	if (r->stopped) {
		if (o && o->warn) {
			char msg[700];
			snprintf(msg, sizeof msg, "%s: incomplete trace: %s; keeping the data before it, as fprof does",
				 r->name, r->stop_msg);
			o->warn(o->warn_ctx, msg);
		}
	} else if (r->st.have_first) {
		if (cg_fp_finish(&r->st, r->st.last_ts))
			return cg_error_set(err, CG_ENOMEM, "%s: out of memory", r->name);
	}
	int rc = cg_fp_to_model(&r->st, profile, o && o->suspend_self, err);
	if (rc)
		return rc;
	char num[32];
	snprintf(num, sizeof num, "%llu", (unsigned long long)r->unknown);
	if (cg_profile_set_meta(profile, "fprof.unknown_messages", num))
		return cg_error_set(err, CG_ENOMEM, "%s: out of memory", r->name);
	if (r->stopped && cg_profile_set_meta(profile, "fprof.incomplete", r->stop_msg))
		return cg_error_set(err, CG_ENOMEM, "%s: out of memory", r->name);
	return 0;
}

static void reader_init(struct reader *r, const char *name, const cg_fprof_read_options *opts)
{
	memset(r, 0, sizeof *r);
	r->name = name;
	r->opts = opts;
}

static void reader_release(struct reader *r)
{
	raw_release(&r->pids);
	raw_release(&r->mfas);
	msg_release(&r->msgs);
	cg_fp_release(&r->st);
}

static int bad_tag(struct reader *r, const uint8_t *at, cg_error *err)
{
	return cg_error_set(err, CG_EFORMAT, "%s: bad record tag %u at byte offset %llu (not an fprof trace, or corrupt)",
			    r->name, at[0], (unsigned long long)r->offset);
}

int cg_read_fprof_trace_buffer(cg_profile *profile, const void *data, size_t len, const char *name,
			       const cg_fprof_read_options *opts, cg_error *err)
{
	if (CG_CHECK_OPTIONS(opts, CG_FPROF_READ_OPTIONS_VERSION, "cg_fprof_read_options", err))
		return CG_EUSAGE;
	struct reader r;
	reader_init(&r, name ? name : "(buffer)", opts);
	int rc = cg_fp_init(&r.st);
	if (rc) {
		reader_release(&r);
		return cg_error_set(err, rc, "%s: out of memory", r.name);
	}
	const uint8_t *b = data;
	size_t used = feed(&r, b, len);
	if (!r.st.oom && !r.stopped && len - used >= 5 && b[used] != 0 && b[used] != 1) {
		rc = bad_tag(&r, b + used, err);
	} else {
		const char *trunc = used < len ? (len - used < 5 ? "truncated record header" : "truncated record payload") : NULL;
		rc = finish(&r, profile, trunc, err);
	}
	reader_release(&r);
	return rc;
}

/* ---- regular files: a sliding mmap window -------------------------------------------
 *
 * A regular file is decoded in place through a read-only mapping of a
 * window of the file (FP_WINDOW bytes, more only for a record larger than
 * that), moved forward to the first unconsumed record.  Nothing is copied:
 * no read(2) into a user buffer and no carrying over of partial records.
 * Memory stays bounded by the window, not the file: every window is
 * unmapped before the next one is mapped.  The next window is announced
 * with MADV_WILLNEED so the kernel reads a cold file ahead while we decode. */

enum { FP_WINDOW = 8 << 20 };

/* Populating the window up front is cheaper than a fault per page. */
#ifdef MAP_POPULATE
#define FP_MAP_FLAGS MAP_POPULATE
#else
#define FP_MAP_FLAGS 0
#endif

/* Decodes [done, total) of fd.  Returns 0 with *trunc set for a truncated
 * tail, 1 when mmap is unavailable before anything was consumed (the
 * caller then reads the file), or a negative CG_E* with err filled. */
static int read_mapped(struct reader *r, int fd, uint64_t total, const char **trunc, cg_error *err)
{
	const cg_fprof_read_options *opts = r->opts;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), done = 0, next_progress = 1 << 24;
	size_t want = FP_WINDOW;
	while (done < total) {
		uint64_t map_off = done & ~(page - 1);
		size_t map_len = total - map_off < want ? (size_t)(total - map_off) : want;
		void *m = mmap(NULL, map_len, PROT_READ, MAP_PRIVATE | FP_MAP_FLAGS, fd, (off_t)map_off);
		if (m == MAP_FAILED) {
			if (done == 0)
				return 1;
			return cg_error_set(err, errno == ENOMEM ? CG_ENOMEM : CG_EIO,
					    "%s: cannot map at byte offset %llu: %s", r->name,
					    (unsigned long long)done, strerror(errno));
		}
		uint64_t next = map_off + map_len;
		if (next < total) {
			size_t ahead = total - next < FP_WINDOW ? (size_t)(total - next) : FP_WINDOW;
#ifdef POSIX_FADV_WILLNEED
			posix_fadvise(fd, (off_t)next, (off_t)ahead, POSIX_FADV_WILLNEED);
#else
			(void)ahead;
#endif
		}
		const uint8_t *p = (const uint8_t *)m + (done - map_off);
		size_t avail = map_len - (size_t)(done - map_off);
		size_t used = feed(r, p, avail);
		size_t rest = avail - used;
		done += used;
		int bad = !r->st.oom && !r->stopped && rest >= 5 && p[used] != 0 && p[used] != 1;
		uint32_t size = rest >= 5 ? rd32(p + used + 1) : 0;
		int rc = bad ? bad_tag(r, p + used, err) : 0;
		munmap(m, map_len);
		if (rc || r->st.oom || r->stopped)
			return rc;
		if (done == total)
			break;
		if (next == total) {
			/* the window reaches the end of the file: the rest is short */
			*trunc = rest < 5 ? "truncated record header" : "truncated record payload";
			break;
		}
		if (rest >= 5 && size > total - done - 5) {
			/* a record longer than the rest of the file: truncated (or a
			 * corrupt size); do not map it */
			*trunc = "truncated record payload";
			break;
		}
		/* a record larger than a window: map enough for it, once */
		uint64_t need = (done - (done & ~(page - 1))) + 5 + (uint64_t)size;
		want = need > FP_WINDOW ? (size_t)need : FP_WINDOW;
		if (opts && opts->progress && done >= next_progress) {
			opts->progress(opts->progress_ctx, done, total);
			next_progress = done + (1 << 24);
		}
	}
	return 0;
}

/* ---- pipes and other files: read(2) into one buffer ---------------------------------
 *
 * The buffer only grows to the largest record; a partial record at its end
 * is moved to the front before the next read. */

/* One read(2) from fd, or one fread from f when it is not NULL: bytes
 * read, 0 at the end, -1 with errno on an error. */
static ssize_t read_some(int fd, FILE *f, void *buf, size_t n)
{
	if (!f) {
		ssize_t got;
		do
			got = read(fd, buf, n);
		while (got < 0 && errno == EINTR);
		return got;
	}
	size_t got = fread(buf, 1, n, f);
	if (got == 0 && ferror(f)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return (ssize_t)got;
}

static int read_stream(struct reader *r, int fd, FILE *f, uint64_t total, const char **trunc,
		       cg_error *err)
{
	const cg_fprof_read_options *opts = r->opts;
	size_t cap = 1 << 22, have = 0;
	uint8_t *buf = malloc(cap);
	if (!buf)
		return cg_error_set(err, CG_ENOMEM, "%s: out of memory", r->name);
	uint64_t done = 0, next_progress = 1 << 24;
	int rc = 0;
	for (;;) {
		if (have == cap) {
			/* one record larger than the buffer: grow to fit it */
			size_t ncap = cap * 2;
			uint8_t *nb = ncap > cap ? realloc(buf, ncap) : NULL;
			if (!nb) {
				rc = cg_error_set(err, CG_ENOMEM, "%s: out of memory", r->name);
				break;
			}
			buf = nb;
			cap = ncap;
		}
		ssize_t n = read_some(fd, f, buf + have, cap - have);
		if (n < 0) {
			rc = cg_error_set(err, CG_EIO, "%s: read error at byte offset %llu: %s", r->name,
					  (unsigned long long)(done + have), strerror(errno));
			break;
		}
		if (n == 0) {
			if (have)
				*trunc = have < 5 ? "truncated record header" : "truncated record payload";
			break;
		}
		have += (size_t)n;
		size_t used = feed(r, buf, have);
		if (r->st.oom || r->stopped)
			break;
		if (have - used >= 5 && buf[used] != 0 && buf[used] != 1) {
			rc = bad_tag(r, buf + used, err);
			break;
		}
		/* a record longer than the rest of the file: do not grow the
		 * buffer for it, it is truncated (or the size is corrupt) */
		if (total && have - used >= 5 && buf[used] == 0 &&
		    rd32(buf + used + 1) > total - (done + used) - 5) {
			*trunc = "truncated record payload";
			break;
		}
		memmove(buf, buf + used, have - used);
		have -= used;
		done += used;
		if (opts && opts->progress && done >= next_progress) {
			opts->progress(opts->progress_ctx, done, total);
			next_progress = done + (1 << 24);
		}
	}
	free(buf);
	return rc;
}

int cg_read_fprof_trace(cg_profile *profile, const char *path, const cg_fprof_read_options *opts,
			cg_error *err)
{
	if (CG_CHECK_OPTIONS(opts, CG_FPROF_READ_OPTIONS_VERSION, "cg_fprof_read_options", err))
		return CG_EUSAGE;
	int fd = (!path || strcmp(path, "-") == 0) ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	const char *name = path ? path : "-";
	if (fd < 0)
		return cg_error_set(err, CG_EIO, "%s: cannot open: %s", name, strerror(errno));
	struct stat sb;
	uint64_t total = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) ? (uint64_t)sb.st_size : 0;
#ifdef POSIX_FADV_SEQUENTIAL
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	struct reader r;
	reader_init(&r, name, opts);
	int rc = cg_fp_init(&r.st);
	if (rc)
		rc = cg_error_set(err, rc, "%s: out of memory", name);
	const char *trunc = NULL;
	/* (stdin may be a regular file opened at some other position) */
	if (!rc && total && lseek(fd, 0, SEEK_CUR) == 0) {
		rc = read_mapped(&r, fd, total, &trunc, err);
		if (rc <= 0)
			goto done;
		rc = 0;   /* cannot map: read it */
	}
	rc = rc ? rc : read_stream(&r, fd, NULL, total, &trunc, err);
done:
	if (fd)
		close(fd);
	if (!rc)
		rc = finish(&r, profile, trunc, err);
	if (!rc && opts && opts->progress)
		opts->progress(opts->progress_ctx, total ? total : r.offset, total);
	reader_release(&r);
	return rc;
}

int cg_read_fprof_trace_stream(cg_profile *profile, FILE *f, const char *name,
			       const cg_fprof_read_options *opts, cg_error *err)
{
	if (CG_CHECK_OPTIONS(opts, CG_FPROF_READ_OPTIONS_VERSION, "cg_fprof_read_options", err))
		return CG_EUSAGE;
	struct reader r;
	reader_init(&r, name ? name : "-", opts);
	int rc = cg_fp_init(&r.st);
	if (rc)
		rc = cg_error_set(err, rc, "%s: out of memory", r.name);
	const char *trunc = NULL;
	rc = rc ? rc : read_stream(&r, -1, f, 0, &trunc, err);
	if (!rc)
		rc = finish(&r, profile, trunc, err);
	if (!rc && opts && opts->progress)
		opts->progress(opts->progress_ctx, r.offset, 0);
	reader_release(&r);
	return rc;
}

int cg_fprof_trace_detect(const void *head, size_t len)
{
	const uint8_t *p = head;
	if (len < 8 || p[0] != 0 || p[5] != 131)
		return 0;
	if (p[6] != 104 && p[6] != 105)
		return 0;
	const uint8_t *q = p + (p[6] == 104 ? 8 : 11);
	return q < p + len && peek_atom(q, p + len, "trace_ts");
}
