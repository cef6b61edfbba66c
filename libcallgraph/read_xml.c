#include "callgraph.h"
int cg_read_xml(cg_profile **out, const char *path, cg_error *err)
{
	*out = NULL;
	return cg_error_set(err, CG_EUSAGE, "%s: xml reader not yet", path);
}
