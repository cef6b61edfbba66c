#include "callgraph.h"
int cg_write_xml(const cg_profile *p, FILE *out, cg_error *err)
{
	return cg_error_set(err, CG_EUSAGE, "xml writer not yet");
}
