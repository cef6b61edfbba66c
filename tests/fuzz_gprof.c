/*
 * fuzz_gprof.c — fuzz target for the gprof analysis and report writer.
 *
 * The input describes a profile and an option set: byte 0 = number of
 * functions, byte 1 = option bits, byte 2 = number of symbol specs; then
 * per spec a table byte and a pattern byte; per function a flags byte and
 * a self-cost byte; then (caller, callee, count) triples up to the end.
 * Every section of the report is written to /dev/null: whatever the graph
 * (cycles, self-arcs, zero counts, spontaneous callers), the writer must
 * neither crash nor hang.
 *
 * Built with -DCG_FUZZ_LIBFUZZER it is a libFuzzer target; otherwise a
 * replay driver over the files named on the command line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const patterns[] = {
	"f0", "f1", "f2", "f3", "a.c", "b.c:f1", "a.c:3", "7", "", "/f2", "f1/",
	"f0/f1", "nosuch", "b.c:", ":f3", "/", "f2/f2", "mcount"
};
#define NPATTERNS (sizeof patterns / sizeof patterns[0])

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	size_t nf = data[0] % 40 + 1, nspecs = data[2] % 6, pos = 3;
	unsigned bits = data[1];
	cg_gprof_symspec specs[6];
	for (size_t i = 0; i < nspecs; i++, pos += 2) {
		if (pos + 1 >= size)
			return 0;
		specs[i].table = data[pos] % CG_GPROF_NTABLES;
		specs[i].spec = patterns[data[pos + 1] % NPATTERNS];
	}
	cg_profile *p;
	if (cg_profile_new(&p) < 0)
		return 0;
	cg_profile_add_event(p, "samples", "samples", (bits & 0x80) ? 0.0 : 0.01);
	char name[16];
	cg_fid fids[40];
	for (size_t i = 0; i < nf; i++) {
		uint8_t fl = pos < size ? data[pos++] : 0;
		uint8_t self = pos < size ? data[pos++] : 0;
		cg_function fn = { 0 };
		snprintf(name, sizeof name, (fl & 0x40) ? "_f%zu" : "f%zu", i);
		fn.name = (fl & 0x20) && i > 0 ? "mcount" : name;
		fn.file = (fl & 1) ? "a.c" : (fl & 2) ? "dir/b.c" : NULL;
		fn.line = fn.file ? (uint32_t)(fl >> 2 & 7) : 0;
		fn.flags = ((fl & 4) ? CG_FN_STATIC : 0) | ((fl & 8) ? 0 : CG_FN_IS_FUNC)
			 | ((fl & 0x10) && i == 0 ? CG_FN_SPONTANEOUS : 0)
			 | ((bits & 0x40) ? 0 : CG_FN_HAS_ADDR);
		fn.addr = 0x1000 + 16 * i;
		fn.end = (fl & 0x80) ? fn.addr : fn.addr + 16;
		cg_profile_add_function(p, &fn, &fids[i]);
		cg_cost c = self;
		cg_profile_add_self(p, 0, fids[i], &c);
	}
	for (; pos + 2 < size; pos += 3)
		cg_profile_add_arc(p, 0, fids[data[pos] % nf], fids[data[pos + 1] % nf],
				   data[pos + 2] & 0x1f, NULL, NULL);
	if (bits & 0x20)
		cg_profile_set_meta(p, "hz", "0");

	cg_gprof_options o = CG_GPROF_OPTIONS_INIT;
	o.specs = specs;
	o.nspecs = nspecs;
	o.brief = bits & 1;
	o.traditional = (bits >> 1) & 1;
	o.zero = (bits >> 2) & 1;
	o.width = (bits & 8) ? 1 : 80;
	o.inline_file_names = (bits >> 4) & 1;
	o.use_exact_inclusive = (bits >> 5) & 1;
	FILE *null = fopen("/dev/null", "w");
	if (null) {
		cg_error err = CG_ERROR_INIT;
		cg_gprof_report(p, 0, CG_GPROF_FLAT | CG_GPROF_GRAPH | CG_GPROF_EXEC_COUNTS
				| CG_GPROF_ANNOTATE | CG_GPROF_FUNCTION_ORDER, &o, null, &err);
		uint32_t cyc[40], n;
		cg_gprof_cycles(p, 0, cyc, &n, &err);
		fclose(null);
	}
	cg_profile_free(p);
	return 0;
}

#include "fuzz_replay.h"
