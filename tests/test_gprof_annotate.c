/*
 * test_gprof_annotate.c — a driver for the -A and -r differential tests:
 *   test_gprof_annotate EXE GMON [-r] [-q] [-b] [-x] [-y] [-z] [-m N]
 *                       [-t N] [-I DIRS] [-k FROM/TO]...
 * prints the annotated source listing of the library's gprof writer the
 * way `gprof -A` prints it (messages on stderr with the name "gprof"), or
 * with -r the suggested function order (after the call graph with -q),
 * the sections cgprof does not offer.
 * Without arguments it is a unit test (TAP) of the listing on a
 * hand-built profile and a source file it writes itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "callgraph.h"

static int self_test(void)
{
	char dir[] = "/tmp/cgannoXXXXXX";
	if (!mkdtemp(dir))
		return 1;
	char src[64];
	snprintf(src, sizeof src, "%s/w.c", dir);
	FILE *f = fopen(src, "w");
	if (!f)
		return 1;
	fputs("int x;\nvoid work(void)\n{\n}\nint main(void)\n{\n}\n", f);
	fclose(f);

	cg_profile *p;
	cg_profile_new(&p);
	cg_profile_add_event(p, "samples", "samples", 0.01);
	static const char *const names[] = { "work", "main" };
	cg_fid fid[2];
	for (int i = 0; i < 2; i++) {
		cg_function fn = { 0 };
		fn.name = names[i];
		fn.file = src;
		fn.line = i == 0 ? 3 : 6;
		fn.flags = CG_FN_HAS_ADDR | CG_FN_IS_FUNC;
		fn.addr = 0x1000 + 0x40 * (uint64_t)i;
		fn.end = fn.addr + 0x40;
		cg_profile_add_function(p, &fn, &fid[i]);
	}
	cg_profile_add_arc(p, 0, fid[1], fid[0], 30, NULL, NULL);

	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	cg_gprof_options o = CG_GPROF_OPTIONS_INIT;
	cg_error err = CG_ERROR_INIT;
	int rc = cg_gprof_report(p, 0, CG_GPROF_ANNOTATE, &o, out, &err);
	fclose(out);
	int ok = rc == 0 && buf
		&& strstr(buf, "          30 -> {\n") != NULL
		&& strstr(buf, "       ##### -> {\n") != NULL
		&& strstr(buf, "        3         30\n") != NULL
		&& strstr(buf, "   100.00   Percent of the file executed\n") != NULL;
	printf("%sok 1 - annotated source of a hand-built profile\n1..1\n", ok ? "" : "not ");
	if (!ok && buf)
		printf("# got:\n%s", buf);
	free(buf);
	cg_profile_free(p);
	remove(src);
	remove(dir);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 1)
		return self_test();
	if (argc < 3) {
		fprintf(stderr, "usage: %s EXE GMON [-x] [-y] [-z] [-m N] [-t N] [-I DIRS]...\n", argv[0]);
		return 2;
	}
	cg_gprof_options o = CG_GPROF_OPTIONS_INIT;
	const char *paths[16];
	size_t np = 0;
	cg_gprof_symspec specs[16];
	size_t nspecs = 0;
	unsigned parts = 0;
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "-r"))
			parts |= CG_GPROF_FUNCTION_ORDER;
		else if (!strcmp(argv[i], "-q"))
			parts |= CG_GPROF_GRAPH;
		else if (!strcmp(argv[i], "-b"))
			o.brief = 1;
		else if (!strcmp(argv[i], "-k") && i + 1 < argc && nspecs < 16)
			specs[nspecs++] = (cg_gprof_symspec){ CG_GPROF_EXCL_ARCS, argv[++i] };
		else if (!strcmp(argv[i], "-x"))
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
	o.specs = specs;
	o.nspecs = nspecs;
	if (!parts)
		parts = CG_GPROF_ANNOTATE;
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
	int rc = cg_gprof_report(p, 0, parts, &o, stdout, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.message);
	cg_profile_free(p);
	return rc ? 1 : 0;
}
