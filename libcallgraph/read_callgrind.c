#include "callgraph.h"
int cg_read_callgrind(cg_profile **out, const char *path, cg_error *err)
{
	*out = NULL;
	return cg_error_set(err, CG_EUSAGE, "%s: callgrind reader not yet", path);
}
