/*
 * call_sites.h — finding the call instruction behind a gmon.out arc
 * (internal to libcallgraph).
 *
 * glibc's mcount keeps arcs by caller address in buckets of
 * HASHFRACTION * sizeof(ARCINDEX) bytes (16 on x86-64) and writes the
 * bucket's first address as the arc's from_pc, so an arc knows its
 * return address only to within that bucket: the line of from_pc (what
 * gprof -l reports) can be the statement before the call.  A direct call
 * names its target, so the call to a known callee that returns inside
 * the bucket can be found in the code itself.
 */
#ifndef CG_CALL_SITES_H
#define CG_CALL_SITES_H

#include <stddef.h>
#include <stdint.h>

typedef struct cg_text {
	uint64_t vma;          /* address of bytes[0] */
	size_t size;
	unsigned char *bytes;  /* NULL: not loaded (not x86, no .text) */
} cg_text;

/* Loads `path`'s .text when the machine is x86 (the only call encoding
 * known here: e8 rel32).  0 also when there is nothing to load (t->bytes
 * stays NULL); CG_ENOMEM when memory runs out. */
int cg_text_load(cg_text *t, const char *path);
void cg_text_release(cg_text *t);

/* The address of a direct call to `target` whose return address lies in
 * [lo, hi), the first one when there are several; 0 when there is none
 * (an indirect call, a call through the PLT, or another machine). */
uint64_t cg_text_find_call(const cg_text *t, uint64_t lo, uint64_t hi, uint64_t target);

#endif
