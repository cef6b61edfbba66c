/*
 * fuzz_perf_script.c — the perf script reader on arbitrary bytes.  Built
 * with -DCG_FUZZ_LIBFUZZER it is a libFuzzer target; otherwise a replay
 * driver running each file named on the command line (make check replays
 * testdata/fuzz/perf_script/).  The body is
 * fuzz_read_write.h.
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_read_write.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_read_write("perf-script", data, size);
}

#include "fuzz_replay.h"
