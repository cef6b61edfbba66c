/*
 * fuzz_linemap.c — fuzz target for the line map (symbols/linemap.c): the
 * input is an executable (ELF with DWARF); it is written to a temporary
 * file, decoded, and walked the way cgprof -l walks .text, boundary to
 * boundary, asking at each stretch's first two addresses.
 *
 * Built with -DCG_FUZZ_LIBFUZZER it is a libFuzzer target; otherwise a
 * replay driver that runs the function on every file named on the
 * command line (make check replays testdata/fuzz/linemap/).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "linemap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/cgfuzzlmXXXXXX";
	cg_error err = CG_ERROR_INIT;
	cg_linemap *m = NULL;
	int fd = mkstemp(path);
	uint64_t vma;
	unsigned steps;

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	if (cg_linemap_open(&m, path, 0x1000, &err) == 1) {
		/* a bounded walk: stretch starts and the byte after each */
		for (vma = 0, steps = 0; vma != UINT64_MAX && steps < 200000; steps++) {
			const char *file, *func;
			unsigned line;
			uint64_t next = cg_linemap_next_boundary(m, vma);

			cg_linemap_lookup(m, vma, &file, &func, &line);
			if (next > vma + 1)
				cg_linemap_lookup(m, vma + 1, &file, &func, &line);
			vma = next;
		}
		cg_linemap_free(m);
	}
	cg_error_clear(&err);
	unlink(path);
	return 0;
}

#include "fuzz_replay.h"
