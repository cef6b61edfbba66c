/*
 * cgconvert — any profile libcallgraph reads to any format it writes.
 *
 *   cgconvert [-f IN] -t OUT [-o FILE] [--exe EXECUTABLE]
 *             [--transparent=NAME]... INPUT...
 *
 * Exit status: 0 ok, 2 usage, 3 bad input or failed output.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callgraph.h"

static const char *prog = "cgconvert";

static void usage(FILE *out)
{
	fprintf(out,
		"usage: %s [-f IN] -t OUT [-o FILE] [--exe EXECUTABLE] [--transparent=NAME]...\n"
		"       %*s [--event=NAME] [--merge-parts] [--fprof-analyse=LIST]\n"
		"       %*s [--gprof-estimate] [--fprof-suspend-self] INPUT...\n"
		"  IN:  gmon callgrind xml fprof-trace fprof-analysis cgtree (default: detect)\n"
		"  OUT: gprof flat graph callgrind xml folded dot fprof\n",
		prog, (int)strlen(prog), "", (int)strlen(prog), "");
}

static void progress(void *ctx, size_t index, size_t count, const char *path)
{
	(void)ctx;
	fprintf(stderr, "%s: reading %s (%zu/%zu)\n", prog, path, index + 1, count);
}

/* Progress within one big input, redrawn in place on the terminal. */
static void progress_bytes(void *ctx, uint64_t done, uint64_t total)
{
	(void)ctx;
	if (total)
		fprintf(stderr, "\r%s: %llu of %llu MB (%d%%)", prog,
			(unsigned long long)(done >> 20), (unsigned long long)(total >> 20),
			(int)(done * 100 / total));
	else
		fprintf(stderr, "\r%s: %llu MB", prog, (unsigned long long)(done >> 20));
	if (total && done >= total)
		fputc('\n', stderr);
}

static void warn(void *ctx, const char *message)
{
	(void)ctx;
	fprintf(stderr, "%s: warning: %s\n", prog, message);
}

static int exit_for(int code)
{
	return code == CG_EUSAGE ? 2 : 3;
}

enum { OPT_EXE = 256, OPT_TRANSPARENT, OPT_EVENT, OPT_MERGE, OPT_FPROF, OPT_ESTIMATE,
       OPT_SUSPEND_SELF, OPT_VERSION };

static int run(int argc, char **argv, const char **transparent);

int main(int argc, char **argv)
{
	/* room for every argument as a --transparent pattern */
	const char **transparent = calloc((size_t)argc + 1, sizeof *transparent);
	if (!transparent) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 3;
	}
	int rc = run(argc, argv, transparent);
	free(transparent);
	return rc;
}

static int run(int argc, char **argv, const char **transparent)
{
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "exe", required_argument, NULL, OPT_EXE },
		{ "transparent", required_argument, NULL, OPT_TRANSPARENT },
		{ "event", required_argument, NULL, OPT_EVENT },
		{ "merge-parts", no_argument, NULL, OPT_MERGE },
		{ "fprof-analyse", required_argument, NULL, OPT_FPROF },
		{ "gprof-estimate", no_argument, NULL, OPT_ESTIMATE },
		{ "fprof-suspend-self", no_argument, NULL, OPT_SUSPEND_SELF },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	cg_read_options ropts = CG_READ_OPTIONS_INIT;
	cg_write_options wopts = CG_WRITE_OPTIONS_INIT;
	cg_format to = CG_FORMAT_UNKNOWN;
	const char *output = "-";
	size_t ntransparent = 0;
	int c;
	while ((c = getopt_long(argc, argv, "f:t:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			ropts.format = cg_format_from_name(optarg);
			if (!cg_format_can_read(ropts.format)) {
				fprintf(stderr, "%s: cannot read '%s' input\n", prog, optarg);
				return 2;
			}
			break;
		case 't':
			to = cg_format_from_name(optarg);
			if (!cg_format_can_write(to)) {
				fprintf(stderr, "%s: cannot write '%s' output\n", prog, optarg);
				return 2;
			}
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_EXE:
			ropts.executable = optarg;
			break;
		case OPT_TRANSPARENT:
			transparent[ntransparent++] = optarg;
			break;
		case OPT_EVENT:
			wopts.event = optarg;
			break;
		case OPT_MERGE:
			wopts.merge_parts = 1;
			break;
		case OPT_FPROF:
			wopts.fprof_analyse = optarg;
			break;
		case OPT_ESTIMATE:
			wopts.gprof_estimate = 1;
			break;
		case OPT_SUSPEND_SELF:
			ropts.fprof_suspend_self = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("cgconvert (libcallgraph) %s\n", cg_version());
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (to == CG_FORMAT_UNKNOWN) {
		fprintf(stderr, "%s: no output format (-t)\n", prog);
		usage(stderr);
		return 2;
	}
	const char *default_input = "gmon.out";
	const char *const *inputs = (const char *const *)argv + optind;
	size_t ninputs = (size_t)(argc - optind);
	if (ninputs == 0) {
		if (ropts.format != CG_FORMAT_GMON) {
			fprintf(stderr, "%s: no input files\n", prog);
			usage(stderr);
			return 2;
		}
		inputs = &default_input;
		ninputs = 1;
	}
	if (isatty(STDERR_FILENO)) {
		ropts.progress = progress;
		ropts.progress_bytes = progress_bytes;
	}
	ropts.warn = warn;

	cg_error err = CG_ERROR_INIT;
	cg_profile *p = NULL;
	int rc = cg_read_files(&p, inputs, ninputs, &ropts, &err);
	if (rc == 0 && ntransparent) {
		cg_profile *t = NULL;
		rc = cg_transparent_apply(&t, p, transparent, ntransparent, &err);
		cg_profile_free(p);
		p = t;
	}
	if (rc) {
		fprintf(stderr, "%s: %s\n", prog, err.message);
		cg_profile_free(p);
		return exit_for(rc);
	}
	rc = cg_write_file(p, to, output, &wopts, &err);
	cg_profile_free(p);
	if (rc) {
		fprintf(stderr, "%s: %s\n", prog, err.message);
		return exit_for(rc);
	}
	return 0;
}
