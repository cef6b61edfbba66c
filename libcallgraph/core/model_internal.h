/*
 * model_internal.h — internal: model entry points for readers that hold
 * interned strings already (not part of the public API).
 */
#ifndef CG_MODEL_INTERNAL_H
#define CG_MODEL_INTERNAL_H

#include "callgraph/model.h"

/* cg_profile_intern_function for a name, object and file that are
 * already this profile's interned strings (cg_profile_intern's results,
 * object and file may be NULL): no string is looked up again, which on a
 * 200k-function Callgrind file was a tenth of reading it. */
int cg_profile_intern_function_interned(cg_profile *profile, const char *name,
					const char *object, const char *file, cg_fid *out);

/* Room for n functions in all (n is a count, not more), so that adding
 * a known number of them does not regrow the table and its index step
 * by step; 0, CG_EUSAGE (too many) or CG_ENOMEM. */
int cg_profile_reserve_functions(cg_profile *profile, size_t n);

/* cg_profile_add_function for a function whose name, object and file are
 * already this profile's interned strings: gprof -l's 165k line symbols
 * spent a sixth of the report interning them a second time. */
int cg_profile_add_function_interned(cg_profile *profile, const cg_function *fn, cg_fid *out);

#endif
