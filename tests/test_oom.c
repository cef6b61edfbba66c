/*
 * test_oom.c — allocation-failure injection: every allocation the library
 * makes while doing a job is made to fail in turn; the job must then fail
 * with CG_ENOMEM (never crash), leave what it was given usable, and free
 * everything it allocated.
 *
 * The library's calls to malloc, calloc, realloc and free are linked to
 * the wrappers below (-Wl,--wrap, see tests/module.mk); allocations made
 * inside libc or libxml2 are not counted.  The wrappers keep a set of the
 * blocks they handed out, so a leak shows without a leak checker.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "tap.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

static long countdown = -1;     /* allocations left before one fails; -1 never */
static int failed;              /* the injected failure happened */

/* ---- the set of live blocks ---------------------------------------------------- */

#define LIVE_CAP (1u << 20)
static void *live[LIVE_CAP];
static size_t nlive;

static size_t slot_of(const void *p)
{
	uint64_t k = (uint64_t)(uintptr_t)p;
	k ^= k >> 29;
	k *= 0xbf58476d1ce4e5b9ull;
	k ^= k >> 32;
	return (size_t)k & (LIVE_CAP - 1);
}

static void live_add(void *p)
{
	if (!p)
		return;
	size_t i = slot_of(p);
	while (live[i] && live[i] != (void *)1)
		i = (i + 1) & (LIVE_CAP - 1);
	live[i] = p;
	nlive++;
}

/* 1 if p was ours (and is now forgotten). */
static int live_remove(void *p)
{
	for (size_t i = slot_of(p); live[i]; i = (i + 1) & (LIVE_CAP - 1))
		if (live[i] == p) {
			live[i] = (void *)1;   /* tombstone */
			nlive--;
			return 1;
		}
	return 0;
}

static void live_reset(void)
{
	memset(live, 0, sizeof live);
	nlive = 0;
}

static int fail_now(void)
{
	if (countdown < 0)
		return 0;
	if (countdown-- == 0) {
		failed = 1;
		return 1;
	}
	return 0;
}

void *__wrap_malloc(size_t n)
{
	if (fail_now())
		return NULL;
	void *p = __real_malloc(n);
	live_add(p);
	return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
	if (fail_now())
		return NULL;
	void *p = __real_calloc(n, size);
	live_add(p);
	return p;
}

void *__wrap_realloc(void *old, size_t n)
{
	if (fail_now())
		return NULL;
	/* a block libc allocated (getline's) is not ours to count */
	int ours = old ? live_remove(old) : 1;
	void *p = __real_realloc(old, n);
	if (!p && old && ours)
		live_add(old);
	else if (ours)
		live_add(p);
	return p;
}

void __wrap_free(void *p)
{
	if (p)
		live_remove(p);
	__real_free(p);
}

/* ---- the jobs ------------------------------------------------------------------- */

static const char callgrind[] =
	"# callgrind format\n"
	"version: 1\n"
	"creator: test\n"
	"pid: 7\n"
	"part: 1\n"
	"positions: line\n"
	"events: Ir\n"
	"summary: 1111\n"
	"fl=(1) a.c\n"
	"fn=(1) main\n"
	"1 100\n"
	"cfn=(2) work\n"
	"calls=2 1\n"
	"2 1000\n"
	"fn=(2)\n"
	"3 1000\n"
	"fn=(3) idle\n"
	"4 11\n";

static int read_callgrind_job(void)
{
	cg_profile *p = NULL;
	cg_error err = { 0 };
	int rc = cg_read_callgrind_buffer(&p, callgrind, sizeof callgrind - 1, "t.callgrind", &err);
	cg_profile_free(p);
	return rc;
}

/* Builds a profile with every kind of data, merges and copies it. */
static int model_job(void)
{
	cg_profile *p = NULL, *q = NULL, *r = NULL;
	cg_error err = { 0 };
	int rc = cg_profile_new(&p);
	if (rc)
		return rc;
	cg_fid f[40] = { 0 };
	cg_cost c[2] = { 5, 1 };
	unsigned part = 0;   /* read below even when adding it failed */
	const cg_gmon_info gi = { .has_histogram = 1, .dimension = "seconds" };
	if (cg_profile_add_event(p, "us", NULL, 1e-6) < 0 || cg_profile_add_event(p, "n", NULL, 0) < 0) {
		rc = CG_ENOMEM;
		goto out;
	}
	for (int i = 0; i < 40 && !rc; i++) {
		char name[16];
		snprintf(name, sizeof name, "f%d", i);
		rc = cg_profile_intern_function(p, name, "obj", NULL, &f[i]);
	}
	if (!rc)
		rc = cg_profile_add_part(p, "second", &part);
	for (int i = 1; i < 40 && !rc; i++) {
		size_t arc;
		unsigned pt = (unsigned)i % 2 ? part : 0;
		rc = cg_profile_add_self(p, pt, f[i], c);
		if (!rc)
			rc = cg_profile_set_inclusive(p, pt, f[i], c);
		if (!rc)
			rc = cg_profile_set_calls(p, pt, f[i], (uint64_t)i);
		if (!rc)
			rc = cg_profile_set_self_exact(p, pt, f[i], 0.5 * i);
		if (!rc)
			rc = cg_profile_add_arc(p, pt, f[i - 1], f[i], 1, c, &arc);
		if (!rc)
			rc = cg_profile_add_arc_self(p, pt, arc, c);
	}
	cg_nid n = 0;
	for (int i = 0; i < 30 && !rc; i++)
		rc = cg_profile_node_child(p, 0, n, f[i % 7], &n);
	for (int i = 0; i < 300 && !rc; i++) {
		char k[16];
		snprintf(k, sizeof k, "k%d", i);
		rc = cg_profile_set_meta(p, k, "v");
	}
	if (!rc)
		rc = cg_profile_set_gmon_info(p, &gi);
	if (!rc)
		rc = cg_profile_merge_parts(&q, p, &err);
	if (!rc)
		rc = cg_profile_new(&r);
	if (!rc)
		rc = cg_profile_merge_into(r, p, &err);
	if (!rc)
		rc = cg_profile_derive_from_tree(p, &err);
	/* whatever failed, what was stored stays readable */
	for (int i = 0; i < 40; i++) {
		const cg_cost *in = cg_profile_inclusive(p, 0, f[i]);
		if (in && in[0] < 0)
			abort();
		(void)cg_profile_self(p, part, f[i]);
	}
	(void)cg_profile_meta(p, "k1");
out:
	cg_profile_free(p);
	cg_profile_free(q);
	cg_profile_free(r);
	return rc;
}

/* Positions: self costs per line and address, call sites, across parts,
 * merged, through transparent functions. */
static int positions_job(void)
{
	cg_profile *p = NULL, *q = NULL, *r = NULL, *t = NULL;
	cg_error err = { 0 };
	int rc = cg_profile_new(&p);
	if (rc)
		return rc;
	cg_fid f[20] = { 0 };
	cg_cost c[2] = { 5, 1 };
	unsigned part = 0;
	if (cg_profile_add_event(p, "Ir", NULL, 0) < 0 || cg_profile_add_event(p, "Dr", NULL, 0) < 0) {
		rc = CG_ENOMEM;
		goto out;
	}
	for (int i = 0; i < 20 && !rc; i++) {
		char name[16];
		snprintf(name, sizeof name, "f%d", i);
		rc = cg_profile_intern_function(p, name, "obj", "a.c", &f[i]);
	}
	if (!rc)
		rc = cg_profile_add_part(p, "second", &part);
	for (int i = 1; i < 20 && !rc; i++) {
		unsigned pt = (unsigned)i % 2 ? part : 0;
		cg_position at = { .line = (uint32_t)i, .addr = 0x1000u + (unsigned)i,
				   .file = i % 3 ? NULL : "inl.h" };
		rc = cg_profile_add_self_at(p, pt, f[i], &at, c);
		if (!rc)
			rc = cg_profile_add_self(p, 0, f[i], c);   /* some cost without position */
		if (!rc)
			rc = cg_profile_add_arc_at(p, pt, f[i - 1], f[i], &at, 1, c, NULL);
	}
	if (!rc)
		rc = cg_profile_merge_parts(&q, p, &err);
	if (!rc)
		rc = cg_profile_new(&r);
	if (!rc)
		rc = cg_profile_merge_into(r, q, &err);
	if (!rc)
		rc = cg_profile_merge_into(r, q, &err);
	const char *pattern = "f3";
	if (!rc)
		rc = cg_transparent_apply(&t, r, &pattern, 1, &err);
	if (!rc && cg_profile_check_positions(t, "t", &err))
		abort();
out:
	cg_profile_free(p);
	cg_profile_free(q);
	cg_profile_free(r);
	cg_profile_free(t);
	return rc;
}

/* Runs job with the k-th allocation failing, for k = 0, 1, ... until the
 * job no longer reaches a k-th allocation. */
static void each_failure(int (*job)(void), const char *what)
{
	countdown = -1;
	live_reset();
	int ok = job();
	check_int(ok, ==, 0);
	check_int(nlive, ==, 0);
	for (long k = 0; k < 100000; k++) {
		live_reset();
		failed = 0;
		countdown = k;
		int rc = job();
		countdown = -1;
		if (!failed) {
			check_int(rc, ==, 0);
			printf("# %s: %ld allocations, each failed once\n", what, k);
			return;
		}
		if (rc != CG_ENOMEM || nlive != 0) {
			printf("# %s: allocation %ld failing gave %d, %zu blocks left\n", what, k, rc, nlive);
			check_int(rc, ==, CG_ENOMEM);
			check_int(nlive, ==, 0);
			return;
		}
	}
	check(!"the job never ends");
}

/* The bug this started from: a failed inclusive-array allocation must
 * leave the part without inclusive costs, not half of them. */
static void test_inclusive_after_failed_allocation(void)
{
	cg_profile *p;
	check_int(cg_profile_new(&p), ==, 0);
	cg_fid f;
	cg_cost c[1] = { 3 };
	cg_profile_add_event(p, "us", NULL, 1e-6);
	cg_profile_intern_function(p, "main", NULL, NULL, &f);
	cg_profile_add_self(p, 0, f, c);
	for (long k = 0; k < 2; k++) {
		countdown = k;
		check_int(cg_profile_set_inclusive(p, 0, f, c), ==, CG_ENOMEM);
		countdown = -1;
		check(cg_profile_inclusive(p, 0, f) == NULL);
	}
	check_int(cg_profile_set_inclusive(p, 0, f, c), ==, 0);
	check(cg_profile_inclusive(p, 0, f) && cg_profile_inclusive(p, 0, f)[0] == 3);
	cg_profile_free(p);
}

int main(void)
{
	TEST(test_inclusive_after_failed_allocation(),
	     "a failed inclusive-cost allocation leaves no half-made arrays");
	TEST(each_failure(read_callgrind_job, "callgrind reader"),
	     "callgrind reader: every allocation failure gives CG_ENOMEM and frees everything");
	TEST(each_failure(positions_job, "positions"),
	     "positions: every allocation failure gives CG_ENOMEM and frees everything");
	TEST(each_failure(model_job, "model"),
	     "model: every allocation failure gives CG_ENOMEM and frees everything");
	return tap_done();
}
