/*
 * cgprof_views.c — cgprof-all's side of cgprof_views.h: read the inputs
 * in whatever format they are (detected), then print gprof's report.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgprof_views.h"
#include "../convert/max_memory.h"

static void warn(void *ctx, const cg_diagnostic *d)
{
	if (d->kind == CG_DIAG_WARNING)
		fprintf(stderr, "%s: warning: %s\n", (const char *)ctx, d->message);
}

int cgprof_views_run(const char *whoami, char **argv, const char *executable,
		     char *const *inputs, size_t ninputs, const gprof_view *view)
{
	cg_read_options ropts = CG_READ_OPTIONS_INIT;
	cg_error err = CG_ERROR_INIT;
	cg_profile *p = NULL;
	(void)argv;
	ropts.executable = executable;
	ropts.diag = warn;
	ropts.diag_ctx = (void *)whoami;
	/* fprof traces: suspend's waiting time as its self time, so the
	 * report's times add up to the traced time (docs/fprof.md) */
	ropts.fprof_suspend_self = 1;
	/* gprof's command line has no room for --max-memory: the tools'
	 * default budget, half of the physical memory, bounds the reading */
	max_memory_init();
	cg_set_memory_limit(max_memory_default());
	int rc = cg_read_files(&p, (const char *const *)inputs, ninputs, &ropts, &err);
	if (!rc)
		rc = gprof_view_print(p, view, stdout, &err);
	cg_profile_free(p);
	if (rc) {
		/* detection's hint names cgconvert's -f, which is gprof's -f here */
		char *hint = strstr(err.message, " (use -f to name it)");
		char names[512];
		fflush(stdout);
		if (hint) {
			*hint = '\0';
			fprintf(stderr, "%s: %s (cgprof reads: %s)\n", whoami, err.message,
				cg_format_list(names, sizeof names, 0));
		} else {
			fprintf(stderr, "%s: %s\n", whoami, err.message);
		}
		return 1;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: error writing the report\n", whoami);
		return 1;
	}
	return 0;
}
