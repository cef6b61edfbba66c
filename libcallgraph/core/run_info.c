/*
 * run_info.c — judging and wording a collector's report on its own run
 * (the storage is in model.c, next to the rest of the profile).
 */
#include <stdio.h>
#include <string.h>

#include "callgraph.h"

int cg_run_info_suspect(const cg_run_info *r, double overhead_share)
{
	if (!r)
		return 0;
	if (r->threads_cut || (r->flags & (CG_RUN_OOM | CG_RUN_OVERFLOW)))
		return 1;
	return r->samples && (double)r->overhead >= overhead_share * (double)r->samples;
}

int cg_run_info_format(const cg_run_info *r, char *buf, size_t size)
{
	if (!r)
		return snprintf(buf, size, "%s", "");
	char part[4][160];
	int n = 0;
	if (r->samples)
		snprintf(part[n++], sizeof part[0],
			 "%llu samples, %llu (%.1f%%) in the collector itself, %llu lost",
			 (unsigned long long)r->samples, (unsigned long long)r->overhead,
			 100.0 * (double)r->overhead / (double)r->samples,
			 (unsigned long long)r->lost);
	else
		snprintf(part[n++], sizeof part[0], "costs are call counts (no samples)");
	if (r->threads_cut) {
		const char *why = (r->flags & CG_RUN_OOM) && (r->flags & CG_RUN_OVERFLOW)
					  ? "out of memory, call depth overflow"
				  : (r->flags & CG_RUN_OOM) ? "out of memory" : "call depth overflow";
		snprintf(part[n++], sizeof part[0], "data cut short (%s) in %u of %u threads", why,
			 r->threads_cut, r->threads);
	}
	if (r->ending[0]) {
		const char *how = (r->flags & CG_RUN_PARTIAL) ? "written while running"
				  : (r->flags & CG_RUN_KILLED) ? "killed" : "ended";
		snprintf(part[n++], sizeof part[0], "%s: %.63s", how, r->ending);
	}
	int len = snprintf(buf, size, "collector: %s", part[0]);
	for (int i = 1; i < n; i++) {
		size_t at = len > 0 && (size_t)len < size ? (size_t)len : size;
		len += snprintf(buf + at, size - at, "; %s", part[i]);
	}
	return len;
}
