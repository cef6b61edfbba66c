/*
 * test_gprof_annotate.c — a driver for the -A differential test:
 *   test_gprof_annotate EXE GMON [-x] [-y] [-z] [-m N] [-t N] [-I DIRS]...
 * prints the annotated source listing of the library's gprof writer the
 * way `gprof -A` prints it (messages on stderr with the name "gprof").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "callgraph.h"

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s EXE GMON [-x] [-y] [-z] [-m N] [-t N] [-I DIRS]...\n", argv[0]);
		return 2;
	}
	cg_gprof_options o = CG_GPROF_OPTIONS_INIT;
	const char *paths[16];
	size_t np = 0;
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "-x"))
			o.all_lines = 1;
		else if (!strcmp(argv[i], "-y"))
			o.separate_files = 1;
		else if (!strcmp(argv[i], "-z"))
			o.zero = 1;
		else if (!strcmp(argv[i], "-m") && i + 1 < argc)
			o.min_count = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "-t") && i + 1 < argc)
			o.table_length = (int)strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "-I") && i + 1 < argc && np < 16)
			paths[np++] = argv[++i];
		else {
			fprintf(stderr, "%s: unknown option %s\n", argv[0], argv[i]);
			return 2;
		}
	}
	o.source_paths = paths;
	o.nsource_paths = np;
	o.messages = stderr;
	o.program_name = "gprof";

	cg_profile *p;
	cg_error err = CG_ERROR_INIT;
	const char *files[1] = { argv[2] };
	cg_gmon_options go = CG_GMON_OPTIONS_INIT;
	if (cg_profile_new(&p) || cg_read_gmon(p, argv[1], files, 1, &go, &err)) {
		fprintf(stderr, "%s\n", err.message);
		return 3;
	}
	int rc = cg_gprof_report(p, 0, CG_GPROF_ANNOTATE, &o, stdout, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.message);
	cg_profile_free(p);
	return rc ? 1 : 0;
}
