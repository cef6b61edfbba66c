/*
 * cgprof_views.h — cgprof on profiles other than gmon.out.
 *
 * cgprof itself links only what gprof's job needs (libbfd), which keeps
 * its memory at gprof's level.  Reading every other format needs the
 * whole library (libxml2 and its ICU for XML), so those inputs go to
 * cgprof-all, the same program linked with everything: cgprof hands its
 * command line over (cgprof_handover.c), cgprof-all reads and reports
 * (cgprof_views.c).
 */
#ifndef CG_CGPROF_VIEWS_H
#define CG_CGPROF_VIEWS_H

#include <stddef.h>
#include "../convert/gprof_view.h"

/* Reports on `inputs` (executable: the program named before them, or
 * NULL); argv is the whole command line.  Returns the exit status. */
int cgprof_views_run(const char *whoami, char **argv, const char *executable,
		     char *const *inputs, size_t ninputs, const gprof_view *view);

#endif
