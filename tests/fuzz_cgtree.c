/*
 * fuzz_cgtree.c — fuzz target for the cgtree reader.  Symbols are not
 * resolved (the input names arbitrary files); everything else runs,
 * including cg_profile_derive_from_tree on whatever tree was accepted.
 *
 * Built with -DCG_FUZZ_LIBFUZZER by `make fuzz`; otherwise a replay driver
 * that reads each file given as an argument (make check replays
 * testdata/fuzz/cgtree/).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "callgraph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cg_profile *p;
	cg_error err = CG_ERROR_INIT;
	if (cg_profile_new(&p))
		return 0;
	cg_read_cgtree_buffer(p, "fuzz", (const char *)data, size, CG_CGTREE_NO_SYMBOLS, &err);
	cg_profile_free(p);
	return 0;
}

#include "fuzz_replay.h"
