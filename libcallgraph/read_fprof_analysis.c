/*
 * read_fprof_analysis.c — fprof:analyse text back into the model.
 */
#include "callgraph.h"

int cg_read_fprof_analysis_buffer(cg_profile *profile, const void *data, size_t len,
				  const char *name, cg_error *err)
{
	(void)profile; (void)data; (void)len;
	return cg_error_set(err, CG_ERROR, "%s: fprof analysis reader not written yet", name);
}

int cg_read_fprof_analysis(cg_profile *profile, const char *path, cg_error *err)
{
	return cg_read_fprof_analysis_buffer(profile, NULL, 0, path, err);
}

int cg_fprof_analysis_detect(const void *head, size_t len)
{
	(void)head; (void)len;
	return 0;
}
