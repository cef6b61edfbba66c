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

/* The library's diagnostics: warnings always, progress only on a
 * terminal (ctx non-NULL), per file and, within one big input, redrawn in
 * place. */
static void diagnostic(void *ctx, const cg_diagnostic *d)
{
	switch (d->kind) {
	case CG_DIAG_WARNING:
		fprintf(stderr, "%s: warning: %s\n", prog, d->message);
		break;
	case CG_DIAG_INPUT:
		if (ctx)
			fprintf(stderr, "%s: reading %s (%zu/%zu)\n", prog, d->file, d->index + 1,
				d->count);
		break;
	case CG_DIAG_BYTES:
		if (!ctx)
			break;
		if (d->total)
			fprintf(stderr, "\r%s: %llu of %llu MB (%d%%)", prog,
				(unsigned long long)(d->done >> 20),
				(unsigned long long)(d->total >> 20), (int)(d->done * 100 / d->total));
		else
			fprintf(stderr, "\r%s: %llu MB", prog, (unsigned long long)(d->done >> 20));
		if (d->total && d->done >= d->total)
			fputc('\n', stderr);
		break;
	}
}

static int exit_for(int code)
{
	return code == CG_EUSAGE ? 2 : 3;
}

enum { OPT_EXE = 256, OPT_TRANSPARENT, OPT_EVENT, OPT_MERGE, OPT_FPROF, OPT_ESTIMATE,
       OPT_SUSPEND_SELF, OPT_VERSION };

static int run(int argc, char **argv, const char **transparent);

/* What the collector said about its run, said again where people read it:
 * a warning when its overhead, lost ticks or an early stop distort the
 * numbers, an error when it stopped before recording anything.  0 when the
 * profile is unusable (message printed). */
static int run_report_usable(const cg_profile *p, const char *name)
{
	const cg_run_info *run = cg_profile_run_info(p);
	if (!run)
		return 1;
	char line[512];
	cg_run_info_format(run, line, sizeof line);
	if (run->threads_cut) {
		int any = 0;
		for (unsigned part = 0; part < cg_profile_part_count(p) && !any; part++)
			for (size_t f = 0; f < cg_profile_function_count(p) && !any; f++)
				for (size_t e = 0; e < cg_profile_event_count(p) && !any; e++)
					any = cg_profile_self(p, part, (cg_fid)f)[e] != 0;
		if (!any) {
			fprintf(stderr, "%s: %s: the collector stopped before recording any cost (%s)\n",
				prog, name, line);
			return 0;
		}
	}
	if (cg_run_info_suspect(run, CG_RUN_OVERHEAD_WARN) || run->lost * 10 > run->samples ||
	    (run->flags & (CG_RUN_KILLED | CG_RUN_PARTIAL)))
		fprintf(stderr, "%s: warning: %s: %s\n", prog, name, line);
	return 1;
}

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
	const char *to = NULL;
	char names[512];
	const char *output = "-";
	size_t ntransparent = 0;
	int c;
	while ((c = getopt_long(argc, argv, "f:t:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			ropts.format = optarg;
			if (!cg_format_can_read(cg_format_find(optarg))) {
				fprintf(stderr, "%s: cannot read '%s' input (one of: %s)\n", prog, optarg,
					cg_format_list(names, sizeof names, 0));
				return 2;
			}
			break;
		case 't':
			to = optarg;
			if (!cg_format_can_write(cg_format_find(optarg))) {
				fprintf(stderr, "%s: cannot write '%s' output (one of: %s)\n", prog, optarg,
					cg_format_list(names, sizeof names, 1));
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
	if (!to) {
		fprintf(stderr, "%s: no output format (-t)\n", prog);
		usage(stderr);
		return 2;
	}
	const char *default_input = "gmon.out";
	const char *const *inputs = (const char *const *)argv + optind;
	size_t ninputs = (size_t)(argc - optind);
	if (ninputs == 0) {
		if (!ropts.format || strcmp(ropts.format, "gmon") != 0) {
			fprintf(stderr, "%s: no input files\n", prog);
			usage(stderr);
			return 2;
		}
		inputs = &default_input;
		ninputs = 1;
	}
	ropts.diag = diagnostic;
	ropts.diag_ctx = isatty(STDERR_FILENO) ? (void *)&ropts : NULL;

	cg_error err = CG_ERROR_INIT;
	cg_profile *p = NULL;
	int rc = cg_read_files(&p, inputs, ninputs, &ropts, &err);
	if (rc == 0 && !run_report_usable(p, ninputs == 1 ? inputs[0] : "the inputs")) {
		cg_profile_free(p);
		return 3;
	}
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
