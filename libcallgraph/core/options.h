/*
 * options.h — internal: the version check every entry point that takes an
 * options struct makes (libgit2's habit).  A program compiled against
 * another release of the headers gets CG_EUSAGE and a message naming the
 * struct, instead of the library reading fields that are not there.
 */
#ifndef CG_CORE_OPTIONS_H
#define CG_CORE_OPTIONS_H

#include "callgraph/common.h"

/* 0 when opts is NULL (the defaults) or has version `want`. */
#define CG_CHECK_OPTIONS(opts, want, name, err)                                        \
	((opts) && (opts)->version != (want)                                            \
		 ? cg_error_set((err), CG_EUSAGE,                                      \
				"%s version %u is not %u (rebuild against this libcallgraph)", \
				(name), (unsigned)(opts)->version, (unsigned)(want))            \
		 : 0)

#endif
