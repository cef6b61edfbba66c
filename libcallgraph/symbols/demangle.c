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
#include "demangle.h"

char *cg_demangle(const char *name)
{
	if (name == NULL)
		return NULL;
	return bfd_demangle(NULL, name, DMGL_ANSI | DMGL_PARAMS);
}

/* The style travels with each call (libiberty's style bits in the options
 * word) instead of libiberty's process-wide setting, so two threads can
 * demangle in two styles at once.  Without a style bit libiberty uses its
 * global default, which we never change: automatic. */
int cg_demangle_style_bits(const char *style)
{
	if (!style)
		return 0;
	enum demangling_styles s = cplus_demangle_name_to_style(style);
	return s == unknown_demangling ? -1 : ((int)s & DMGL_STYLE_MASK);
}

int cg_demangle_style_known(const char *style)
{
	return cg_demangle_style_bits(style) >= 0;
}

char *cg_demangle_style(const char *name, const char *style)
{
	int bits = cg_demangle_style_bits(style);
	if (name == NULL || bits < 0)
		return NULL;
	return bfd_demangle(NULL, name, DMGL_ANSI | DMGL_PARAMS | bits);
}
