/*
 * gmon_format.c — gmon.out (gcc -pg) in the format registry.  Several
 * files are summed the way gprof sums them, against one executable.
 */
#include <string.h>

#include "callgraph.h"
#include "callgraph/sys/format.h"

static int detect(const unsigned char *h, size_t len)
{
	return len >= 4 && memcmp(h, "gmon", 4) == 0 ? 100 : 0;
}

static int read_gmon_sources(const cg_format_ops *self, cg_profile **out,
			     cg_source *const *srcs, size_t count, const cg_read_options *opts,
			     cg_error *err)
{
	cg_profile *p;
	if (cg_profile_new(&p))
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	const char *exe = opts && opts->executable ? opts->executable : "a.out";
	cg_gmon_options gopts = CG_GMON_OPTIONS_INIT;
	/* lines and call sites for the source views (Callgrind, XML), unless
	 * the caller only compares functions (cgdiff) */
	gopts.positions = !(opts && opts->version >= 3 && opts->drop_positions);
	cg_gmon_reader *r;
	int rc = cg_gmon_reader_new(&r, p, exe, &gopts, err);
	for (size_t i = 0; rc == 0 && i < count; i++) {
		if (cg_source_path(srcs[i])) {
			rc = cg_gmon_reader_read(r, cg_source_path(srcs[i]), err);
		} else {
			const void *data;
			size_t len;
			rc = cg_source_slurp(srcs[i], &data, &len, 0, err);
			if (!rc)
				rc = cg_gmon_reader_read_buffer(r, cg_source_name(srcs[i]), data, len,
								err);
		}
	}
	if (rc == 0)
		rc = cg_gmon_reader_finish(r, err);
	cg_gmon_reader_free(r);
	if (rc) {
		cg_profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

const cg_format_ops cg_fmt_gmon = {
	.version = CG_FORMAT_OPS_VERSION,
	.name = "gmon",
	.description = "gmon.out from gcc -pg (GNU, BSD and 4.4BSD), with the executable (--exe)",
	.keeps = "(read only)",
	.loses = "(read only)",
	.flags = CG_FORMAT_READS_TOGETHER | CG_FORMAT_NEEDS_EXECUTABLE,
	.detect = detect,
	.read_many = read_gmon_sources,
};
