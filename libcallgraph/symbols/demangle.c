/*
 * demangle.c — C++ names as gprof prints them.
 *
 * gprof calls BFD's demangler with DMGL_ANSI | DMGL_PARAMS; calling the
 * same function gives the same text, including its failure cases.
 */
#include <string.h>
#include <bfd.h>
#include <libiberty/demangle.h>

#include "callgraph/gmon.h"

char *cg_demangle(const char *name)
{
	if (name == NULL)
		return NULL;
	return bfd_demangle(NULL, name, DMGL_ANSI | DMGL_PARAMS);
}

int cg_demangle_set_style(const char *style)
{
	enum demangling_styles s = cplus_demangle_name_to_style(style);

	if (s == unknown_demangling)
		return CG_EUSAGE;
	cplus_demangle_set_style(s);
	return 0;
}
