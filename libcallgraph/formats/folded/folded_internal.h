/*
 * folded_internal.h — what the folded family's files share (not installed).
 */
#ifndef CG_FOLDED_INTERNAL_H
#define CG_FOLDED_INTERNAL_H

#include "callgraph.h"
#include "callgraph/sys/format.h"

/* Reads folded stacks from src into a new profile. */
int cg_folded_read(cg_profile **out, cg_source *src, cg_error *err);

/* A function name as a folded frame (demangled, ';' as ':', control
 * characters as '?'); malloc'd, NULL when out of memory. */
char *cg_folded_frame_name(const char *name);

/* cg_write_folded, with source lines in frames when `lines`
 * (write_folded.c says which frames get them). */
int cg_folded_write(const cg_profile *p, FILE *out, int event, int lines, cg_error *err);

#endif
