/*
 * dot_internal.h — the dot writer with a chosen cut-off (percent of the
 * total inclusive cost below which functions are left out).
 */
#ifndef CG_DOT_INTERNAL_H
#define CG_DOT_INTERNAL_H

#include "callgraph.h"

int cg_dot_write_cut(const cg_profile *p, FILE *out, int event, double threshold, cg_error *err);

#endif
