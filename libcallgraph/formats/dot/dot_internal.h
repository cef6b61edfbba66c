/*
 * dot_internal.h — the dot writer with a chosen cut-off (percent of the
 * total inclusive cost below which functions are left out).
 */
#ifndef CG_DOT_INTERNAL_H
#define CG_DOT_INTERNAL_H

#include "callgraph.h"

/* `lines`: node and edge labels name source lines (dot_lines.c). */
int cg_dot_write_cut(const cg_profile *p, FILE *out, int event, double threshold, int lines,
		     cg_error *err);

/* dot_lines.c: "\nline N: cost (pct)" for f's costliest lines of part 0,
 * and "\nat line N, M" for the call sites of arc `arc`. */
int cg_dot_put_self_lines(FILE *out, const cg_profile *p, cg_fid f, int event, double total);
void cg_dot_put_sites(FILE *out, const cg_profile *p, size_t arc);

#endif
