/*
 * cgconvert_gprof.h — cgconvert's gprof options (-t gprof, flat, graph):
 * gprof's SPEC options and layout options, as cgprof takes them, where
 * their letters do not clash with cgconvert's own (-f, -t, -o, -h, -V);
 * plus --part and --threshold.
 */
#ifndef CG_CGCONVERT_GPROF_H
#define CG_CGCONVERT_GPROF_H

#include <getopt.h>
#include "gprof_view.h"

typedef struct cgconvert_gprof {
	gprof_view view;
	cg_gprof_symspec *specs;
	size_t nspecs, cap;
	unsigned on, off;       /* sections switched on / off by name */
	const char *first;      /* the first gprof option given, for messages */
	int used_threshold;     /* --threshold was given */
} cgconvert_gprof;

/* getopt short options (to append) and long options (NULL-terminated). */
extern const char cgconvert_gprof_shortopts[];
extern const struct option cgconvert_gprof_longopts[];

void cgconvert_gprof_init(cgconvert_gprof *g);
/* Handles option c; 1 when it was one of ours, 0 when not, -1 (message
 * printed) for a bad argument. */
int cgconvert_gprof_option(cgconvert_gprof *g, int c, const char *arg, const char *prog);
/* Finishes the view (specs, sections); 0 or -1 out of memory. */
int cgconvert_gprof_finish(cgconvert_gprof *g);
void cgconvert_gprof_free(cgconvert_gprof *g);

#endif
