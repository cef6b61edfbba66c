/*
 * cgconvert — any profile libcallgraph reads to any format it writes.
 *
 *   cgconvert [-f IN] -t OUT [-o FILE] [--exe EXECUTABLE]
 *             [--transparent=NAME]... [OPTIONS] INPUT...
 * (cgconvert --help lists every option; docs/cgconvert.1 explains them.)
 *
 * Exit status: 0 ok, 2 usage, 3 bad input or failed output.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "callgraph.h"
#include "cgconvert_gprof.h"
#include "max_memory.h"

static const char *prog = "cgconvert";

static void usage(FILE *out)
{
	char in[512], outs[512];
	fprintf(out,
		"usage: %s [-f IN] -t OUT [-o FILE] [OPTIONS] INPUT...   (INPUT - : standard input)\n"
		"Converts profiles of any kind into any other.\n"
		"  -f, --from=IN          input format (default: detected): %s\n"
		"  -t, --to=OUT           output format: %s\n"
		"  -o, --output=FILE      write FILE (default: standard output, also -o -)\n"
		"  --exe=PROGRAM          gmon.out inputs: the profiled program (default a.out)\n"
		"  --transparent=NAME     remove functions matching NAME, charging their callers\n"
		"  --event=NAME           the event to show (default: the first)\n"
		"  --no-fprof-suspend-self  fprof traces: keep fprof's zero self time for suspend\n"
		"  --fprof-suspend-self   fprof traces: suspend's waiting time as self time (default)\n"
		"  --max-memory=MB        fail (exit 3) when reading needs more (N, NK, NM, NG;\n"
		"                         default: half the physical memory; 0: no limit)\n"
		"callgrind:\n"
		"  --split-parts          one Callgrind part per thread/process (default: summed)\n"
		"  --merge-parts          sum the parts into one (the default)\n"
		"folded, dot:\n"
		"  --lines                source lines where the input has them (folded: func:LINE\n"
		"                         frames; dot: hot lines and call-site lines in labels)\n"
		"fprof:\n"
		"  --fprof-analyse=LIST   fprof:analyse options, e.g. totals,no_callers,{sort,own}\n"
		"gprof, flat, graph (gprof's options, see cgprof(1)):\n"
		"  -p[SPEC] -P[SPEC] --flat-profile[=SPEC] --no-flat-profile[=SPEC]\n"
		"  -q[SPEC] -Q[SPEC] --graph[=SPEC] --no-graph[=SPEC]\n"
		"  -C[SPEC] -Z[SPEC] --exec-counts[=SPEC] --no-exec-counts[=SPEC]\n"
		"  -e SPEC -E SPEC -F SPEC -n SPEC --time=SPEC -N SPEC --no-time=SPEC -k FROM/TO\n"
		"  -b --brief  -T --traditional  -z --display-unused-functions  -w N --width=N\n"
		"  --demangle[=STYLE] --no-demangle --inline-file-names\n"
		"  --part=N|NAME|all      one part (thread, process) or all summed (default)\n"
		"  --gprof-estimate       gprof's proportional estimate instead of true arc costs\n"
		"  --threshold=PERCENT    gprof: leave functions below PERCENT out of the call graph;\n"
		"                         dot: out of the graph (default 0.5)\n"
		"  -h, --help             this help\n"
		"  -V, --version          the version\n",
		prog, cg_format_list(in, sizeof in, 0), cg_format_list(outs, sizeof outs, 1));
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

/* gprof's reports with the options given, to a file written whole or
 * not at all. */
static int write_gprof_view(const cg_profile *p, const gprof_view *view, const char *to,
			    const char *path, cg_error *err)
{
	/* refused like every writer but xml (cg_write): no costs, no report */
	if (cg_profile_event_count(p) == 0)
		return cg_error_set(err, CG_EFORMAT,
				    "the profile has no events: nothing to write as %s (xml keeps it)",
				    to);
	cg_output *o;
	int rc = cg_output_open(&o, path, err);
	if (rc)
		return rc;
	rc = gprof_view_print(p, view, cg_output_file(o), err);
	if (rc) {
		cg_output_abort(o);
		return rc;
	}
	return cg_output_commit(o, err);
}

/* gmon.out names no program: without --exe it is a.out, as for gprof.
 * Say which option is missing before libbfd says "a.out: No such file". */
static int check_gmon_program(const cg_read_options *ropts, const char *first_input)
{
	if (ropts->executable || access("a.out", F_OK) == 0)
		return 0;
	if (!ropts->format) {
		const cg_format_ops *f = NULL;
		cg_error ignored = CG_ERROR_INIT;
		struct stat st;
		/* only a regular file can be looked at twice (not a pipe) */
		if (stat(first_input, &st) != 0 || !S_ISREG(st.st_mode) ||
		    cg_format_detect_file(first_input, &f, &ignored) != 0 ||
		    strcmp(cg_format_name(f), "gmon") != 0)
			return 0;
	} else if (strcmp(ropts->format, "gmon") != 0) {
		return 0;
	}
	fprintf(stderr,
		"%s: %s: a gmon.out profile needs the program that wrote it: --exe PROGRAM "
		"(the default, a.out, does not exist)\n",
		prog, first_input);
	return 2;
}

/* A gmon.out read against another program: its samples land outside every
 * function, and the report would be empty.  An error, not an empty
 * profile. */
static int check_gmon_match(const cg_profile *p, const char *first_input)
{
	const cg_gmon_info *gmon = cg_profile_gmon_info(p);
	if (!gmon || gmon->total_samples == 0 || cg_profile_part_count(p) != 1 ||
	    !cg_profile_has_self_exact(p, 0))
		return 0;
	for (size_t f = 0; f < cg_profile_function_count(p); f++)
		if (cg_profile_self_exact(p, 0, (cg_fid)f) > 0)
			return 0;
	const char *exe = cg_profile_meta(p, "executable");
	fprintf(stderr,
		"%s: %s: none of its %llu samples lands in a function of %s: is --exe the "
		"program that wrote it?\n",
		prog, first_input, (unsigned long long)gmon->total_samples,
		exe ? exe : "the executable");
	return 3;
}

static int exit_for(int code)
{
	return code == CG_EUSAGE ? 2 : 3;
}

enum { OPT_EXE = 256, OPT_TRANSPARENT, OPT_EVENT, OPT_MERGE, OPT_FPROF, OPT_ESTIMATE,
       OPT_SUSPEND_SELF, OPT_VERSION, OPT_SPLIT, OPT_NO_SUSPEND_SELF, OPT_MAX_MEMORY,
       OPT_LINES };

/* Whether the output is one of gprof's reports. */
static int is_gprof_report(const char *to)
{
	return strcmp(to, "gprof") == 0 || strcmp(to, "flat") == 0 || strcmp(to, "graph") == 0;
}

/* An option given for an output it does not apply to: say so, and to
 * which outputs it does apply. */
static int not_for(const char *option, const char *to, const char *applies)
{
	fprintf(stderr, "%s: %s does not apply to -t %s (only to -t %s)\n", prog, option, to,
		applies);
	return 2;
}

static int run(int argc, char **argv, const char **transparent);
static int run_parsed(int argc, char **argv, const char **transparent,
		      const struct option *longopts, const char *shortopts, cgconvert_gprof *gp);

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
	static const struct option own_longopts[] = {
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
		{ "split-parts", no_argument, NULL, OPT_SPLIT },
		{ "no-fprof-suspend-self", no_argument, NULL, OPT_NO_SUSPEND_SELF },
		{ "max-memory", required_argument, NULL, OPT_MAX_MEMORY },
		{ "lines", no_argument, NULL, OPT_LINES },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	/* ours, then the gprof reports' options */
	enum { NOWN = sizeof own_longopts / sizeof own_longopts[0] - 1 };
	struct option longopts[NOWN + 64];
	size_t nlong = 0;
	for (size_t i = 0; i < NOWN; i++)
		longopts[nlong++] = own_longopts[i];
	for (const struct option *o = cgconvert_gprof_longopts; o->name && nlong < NOWN + 63; o++)
		longopts[nlong++] = *o;
	memset(&longopts[nlong], 0, sizeof longopts[nlong]);
	char shortopts[64];
	snprintf(shortopts, sizeof shortopts, "f:t:o:hV%s", cgconvert_gprof_shortopts);
	cgconvert_gprof gp;
	cgconvert_gprof_init(&gp);
	int rc = run_parsed(argc, argv, transparent, longopts, shortopts, &gp);
	cgconvert_gprof_free(&gp);
	return rc;
}

static int run_parsed(int argc, char **argv, const char **transparent,
		      const struct option *longopts, const char *shortopts, cgconvert_gprof *gp)
{
	cg_read_options ropts = CG_READ_OPTIONS_INIT;
	cg_write_options wopts = CG_WRITE_OPTIONS_INIT;
	uint64_t max_memory = max_memory_default();
	max_memory_init();
	const char *to = NULL;
	char names[512];
	const char *output = "-";
	size_t ntransparent = 0;
	/* what was given, to refuse options the output does not use */
	const char *fprof_given = NULL, *parts_given = NULL, *estimate_given = NULL;
	int c;
	/* the defaults that are right in the viewers: one summed Callgrind
	 * part (callgrind_annotate reads only the first, KCachegrind shows one
	 * at a time), fprof's suspend time as self time (inclusive costs
	 * within the total) */
	wopts.merge_parts = 1;
	ropts.fprof_suspend_self = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		int mine = cgconvert_gprof_option(gp, c, optarg, prog);
		if (mine < 0)
			return 2;
		if (mine)
			continue;
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
			parts_given = "--merge-parts";
			break;
		case OPT_SPLIT:
			wopts.merge_parts = 0;
			parts_given = "--split-parts";
			break;
		case OPT_FPROF:
			wopts.fprof_analyse = optarg;
			fprof_given = "--fprof-analyse";
			break;
		case OPT_ESTIMATE:
			wopts.gprof_estimate = 1;
			gp->view.report.use_exact_inclusive = 0;
			estimate_given = "--gprof-estimate";
			break;
		case OPT_SUSPEND_SELF:
			ropts.fprof_suspend_self = 1;
			break;
		case OPT_NO_SUSPEND_SELF:
			ropts.fprof_suspend_self = 0;
			break;
		case OPT_MAX_MEMORY:
			if (max_memory_parse(optarg, &max_memory)) {
				fprintf(stderr, "%s: --max-memory: '%s' is not a size in MB "
					"(N, NK, NM, NG; 0: no limit)\n", prog, optarg);
				return 2;
			}
			break;
		case OPT_LINES:
			wopts.lines = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
		case OPT_VERSION:
			printf("cgconvert (callgraph) %s\n", cg_version());
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
	int gprof_report = is_gprof_report(to);
	if (gp->first && !gprof_report)
		return not_for(gp->first, to, "gprof, flat, graph");
	if (gp->view.part && !gprof_report)
		return not_for("--part", to, "gprof, flat, graph");
	if (estimate_given && !gprof_report)
		return not_for(estimate_given, to, "gprof, flat, graph");
	if (gp->used_threshold && !gprof_report && strcmp(to, "dot") != 0)
		return not_for("--threshold", to, "gprof, flat, graph, dot");
	if (fprof_given && strcmp(to, "fprof") != 0)
		return not_for(fprof_given, to, "fprof");
	if (wopts.lines && strcmp(to, "folded") != 0 && strcmp(to, "dot") != 0)
		return not_for("--lines", to, "folded, dot");
	if (parts_given && strcmp(to, "callgrind") != 0)
		return not_for(parts_given, to, "callgrind");
	if (gp->used_threshold)
		wopts.dot_threshold = gp->view.threshold;
	if (gprof_report) {
		gp->view.sections = strcmp(to, "flat") == 0    ? CG_GPROF_FLAT
				    : strcmp(to, "graph") == 0 ? CG_GPROF_GRAPH
							       : CG_GPROF_FLAT | CG_GPROF_GRAPH;
		cgconvert_gprof_finish(gp);
		gp->view.event = wopts.event;
		if (!gp->view.sections) {
			fprintf(stderr, "%s: every section of the report is switched off\n", prog);
			return 2;
		}
	}
	int rc;
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
	if ((rc = check_gmon_program(&ropts, inputs[0])) != 0)
		return rc;
	ropts.diag = diagnostic;
	ropts.diag_ctx = isatty(STDERR_FILENO) ? (void *)&ropts : NULL;

	cg_error err = CG_ERROR_INIT;
	cg_profile *p = NULL;
	cg_set_memory_limit(max_memory);
	rc = cg_read_files(&p, inputs, ninputs, &ropts, &err);
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
		fprintf(stderr, "%s: %s%s\n", prog, err.message, max_memory_hint());
		cg_profile_free(p);
		return exit_for(rc);
	}
	/* only read from now on: free the tables that adding needed, which
	 * leaves the writers room */
	cg_profile_compact(p);
	if ((rc = check_gmon_match(p, inputs[0])) != 0) {
		cg_profile_free(p);
		return rc;
	}
	if (gprof_report)
		rc = write_gprof_view(p, &gp->view, to, output, &err);
	else
		rc = cg_write_file(p, to, output, &wopts, &err);
	cg_profile_free(p);
	if (rc) {
		fprintf(stderr, "%s: %s\n", prog, err.message);
		return exit_for(rc);
	}
	return 0;
}
