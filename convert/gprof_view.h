/*
 * gprof_view.h — gprof's reports (flat profile, call graph) for a profile
 * of any format, with the choices cgprof and cgconvert share: which part
 * (thread, process) to show, which event gives the time, which functions
 * to leave out below a share of the total.
 *
 * Tool code, not library API: cgprof's all-formats path (gmon/cgprof_views.c)
 * and cgconvert link it.
 */
#ifndef CG_GPROF_VIEW_H
#define CG_GPROF_VIEW_H

#include <stdio.h>
#include "callgraph.h"

typedef struct gprof_view {
	/* The report's options; specs and nspecs may already hold the
	 * user's SPECs (the threshold adds its own behind them). */
	cg_gprof_options report;
	unsigned sections;      /* CG_GPROF_* bits; 0: flat profile and call graph */
	const char *part;       /* NULL or "all": the parts summed; else a 1-based
	                           part number or a part's name */
	const char *event;      /* event name giving the time; NULL: the first */
	double threshold;       /* percent of the total time: functions whose
	                           self and children time add up to less are left
	                           out of the call graph (as with -e); 0: none */
} gprof_view;

#define GPROF_VIEW_INIT { .report = CG_GPROF_OPTIONS_INIT }

/* Prints the view of p to out.  CG_EUSAGE (with a message that lists the
 * choices) for a part or event the profile does not have. */
int gprof_view_print(const cg_profile *p, const gprof_view *view, FILE *out, cg_error *err);

/* Parses a --threshold argument (a percentage, "2" or "2%", 0..100). */
int gprof_view_parse_threshold(const char *arg, double *out);

#endif
