/*
 * fuzz_diff.c — fuzz target for cgdiff's library: rule parsing, matching
 * (cycles, parts, renames), propagation, verdicts and the four writers.
 *
 * Input: a rule text up to the first newline; then an option byte, and
 * for each of the two profiles a function count, per function a self-cost
 * byte, then (caller, callee, count) byte triples until a 0xff byte.
 * Whatever the bytes, nothing may crash, hang or leak.
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

static cg_profile *build(const uint8_t *data, size_t size, size_t *pos, unsigned bits)
{
	cg_profile *p;
	if (cg_profile_new(&p) < 0)
		return NULL;
	cg_profile_add_event(p, "samples", "samples", (bits & 0x10) ? 0.0 : 0.01);
	cg_profile_add_event(p, "csc", "calls", 0);
	unsigned part = 0;
	if (bits & 0x20)
		cg_profile_add_part(p, "thread 2", &part);
	size_t nf = *pos < size ? data[(*pos)++] % 12 + 1 : 1;
	for (size_t i = 0; i < nf; i++) {
		char name[16];
		snprintf(name, sizeof name, "f%zu", i);
		cg_fid f;
		cg_profile_intern_function(p, name, (bits & 0x40) ? "a.out" : NULL,
					   (i & 1) ? "a.c" : "b.c", &f);
		cg_cost self[2] = { *pos < size ? data[(*pos)++] : 0, (cg_cost)i };
		cg_profile_add_self(p, (unsigned)(i % (part + 1)), f, self);
	}
	while (*pos + 2 < size && data[*pos] != 0xff) {
		cg_profile_add_arc(p, data[*pos + 2] & 1 ? part : 0, data[*pos] % nf,
				   data[*pos + 1] % nf, data[*pos + 2], NULL, NULL);
		*pos += 3;
	}
	if (*pos < size)
		(*pos)++;
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	if (!nl)
		return 0;
	char *rule = malloc((size_t)(nl - data) + 1);
	if (!rule)
		return 0;
	memcpy(rule, data, (size_t)(nl - data));
	rule[nl - data] = '\0';
	size_t pos = (size_t)(nl - data) + 1;
	unsigned bits = pos < size ? data[pos++] : 0;
	cg_profile *b = build(data, size, &pos, bits);
	cg_profile *n = build(data, size, &pos, bits >> 1);
	const char *olds[] = { "f1" }, *news[] = { "f2" };
	cg_diff_options o = CG_DIFF_OPTIONS_INIT;
	o.ignore_file = bits & 1;
	o.cycles = (bits >> 1) & 1;
	o.parts = (bits >> 2) & 1;
	o.nmap = (bits >> 3) & 1;
	o.map_old = olds;
	o.map_new = news;
	/* bit 4: repeated runs (base b, n; new n, b) with a lax false-alarm
	 * rate, so the rank test and the medians run. */
	const cg_profile *more_base[1] = { n }, *more_new[1] = { b };
	if ((bits >> 4) & 1 && !o.parts) {
		o.more_runs[0] = more_base;
		o.more_runs[1] = more_new;
		o.nmore_runs[0] = o.nmore_runs[1] = 1;
		o.alpha = 0.9;
	}
	cg_diff *d = NULL;
	FILE *null = fopen("/dev/null", "w");
	if (b && n && null && cg_diff_new(&d, b, n, &o, NULL) == 0) {
		const char *rules[1] = { rule };
		if (cg_diff_check(d, rules, 1, NULL, 0, NULL) >= 0) {
			cg_diff_write_options wo = CG_DIFF_WRITE_OPTIONS_INIT;
			wo.width = bits & 0x80 ? 40 : 132;
			for (int f = CG_DIFF_TABLE; f <= CG_DIFF_SVG; f++)
				cg_diff_write(d, f, null, &wo, NULL);
		}
	}
	if (null)
		fclose(null);
	cg_diff_free(d);
	cg_profile_free(b);
	cg_profile_free(n);
	free(rule);
	return 0;
}

#include "fuzz_replay.h"
