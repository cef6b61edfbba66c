/*
 * demangle.h — internal: libiberty's style bits for a style name, for the
 * gprof engine, which calls BFD's demangler itself (per name, with gprof's
 * exact options).
 */
#ifndef CG_DEMANGLE_INTERNAL_H
#define CG_DEMANGLE_INTERNAL_H

/* The DMGL_* style bits of `style` (0 for NULL: automatic), or -1 when the
 * name is unknown. */
int cg_demangle_style_bits(const char *style);

#endif
