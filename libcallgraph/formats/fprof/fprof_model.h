/*
 * fprof_model.h — fprof results into the model and back (internal).
 *
 * cg_fp_to_model stores a replayed trace in a cg_profile (mapping described
 * in callgraph/fprof.h).  cg_fprof_rows_from_profile recovers fprof's table
 * (per part: caller, function, CNT, ACC, OWN) and process records from
 * any profile, exactly for profiles that came from fprof inputs.
 */
#ifndef CG_FPROF_MODEL_H
#define CG_FPROF_MODEL_H

#include "callgraph.h"
#include "fprof_profile.h"

/* suspend_self: give `suspend` its waiting time (ACC) as self cost, in
 * the per-function self costs and in the call tree (see fprof.h). */
int cg_fp_to_model(fp_state *st, cg_profile *profile, int suspend_self, cg_error *err);

/* Function flags the fprof readers give their pseudo functions. */
int cg_fprof_model_function(cg_profile *p, const char *name, cg_fid *out);

typedef struct fprof_row {
	cg_fid caller, func;   /* caller is the "undefined" function for bottom frames */
	uint64_t cnt;
	int64_t acc, own;
} fprof_row;

typedef struct fprof_part_rows {
	unsigned part;
	fprof_row *rows;
	size_t nrows;
	uint64_t cnt;      /* sums over the rows */
	int64_t own;
} fprof_part_rows;

/* Fills one fprof_part_rows per part (caller frees with
 * cg_fprof_rows_release).  *undef is the "undefined" function (added to
 * nothing: CG_NO_FUNC when the profile has none). */
int cg_fprof_rows_from_profile(const cg_profile *p, fprof_part_rows **out, size_t *nparts,
			    cg_fid *undef, cg_error *err);
void cg_fprof_rows_release(fprof_part_rows *parts, size_t nparts);

#endif
