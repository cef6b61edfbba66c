/*
 * fuzz_replay.h — the replay driver shared by every tests/fuzz_*.c.
 *
 * Built with -DCG_FUZZ_LIBFUZZER a fuzz target is a libFuzzer target and
 * this header adds nothing.  Otherwise it supplies main(): each file named
 * on the command line is read whole and passed to LLVMFuzzerTestOneInput,
 * so `make check` (tests/valgrind.t and the *-fuzz-replay.t tests) can run
 * the stored corpora under Valgrind and the sanitizers.  Exit status 2 when
 * a file cannot be read.
 */
#ifndef CG_FUZZ_REPLAY_H
#define CG_FUZZ_REPLAY_H

#ifndef CG_FUZZ_LIBFUZZER
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int fuzz_replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 2;
	}
	size_t cap = 1 << 16, len = 0, n;
	uint8_t *buf = malloc(cap);
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			uint8_t *grown = realloc(buf, cap *= 2);
			if (!grown)
				free(buf);
			buf = grown;
		}
	}
	int failed = ferror(f);
	fclose(f);
	if (!buf || failed) {
		fprintf(stderr, "%s: cannot read\n", path);
		free(buf);
		return 2;
	}
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		int rc = fuzz_replay_file(argv[i]);
		if (rc)
			return rc;
	}
	printf("replayed %d file(s)\n", argc - 1);
	return 0;
}
#endif
#endif
