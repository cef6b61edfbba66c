/*
 * fuzz_pprof.c — the pprof reader on arbitrary bytes (gzipped or raw
 * protobuf).  Built with -DCG_FUZZ_LIBFUZZER it is a libFuzzer target;
 * otherwise a replay driver running each file named on the command line
 * (make check replays testdata/fuzz/pprof/).  The body is
 * fuzz_read_write.h.
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_read_write.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_read_write("pprof", data, size);
}

#include "fuzz_replay.h"
