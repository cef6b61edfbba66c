/*
 * cgdiff — compare two profiles and gate CI on the difference.
 *
 *   cgdiff [options] BASE NEW
 *
 * Exit status: 0 within limits, 1 a limit exceeded, 2 usage, 3 bad input
 * (or an output that could not be written).  See cgdiff(1).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "callgraph.h"

static const char *prog = "cgdiff";

static void usage(FILE *out)
{
	fprintf(out,
		"usage: %s [options] BASE NEW\n"
		"  -F, --fail=RULE        limit, e.g. 'self>5%%', 'inclusive(main)>2%%', 'calls>0',\n"
		"                         'arcs>0', 'total>3%%' (repeatable; default: self>5%%,\n"
		"                         calls>0, arcs>0)\n"
		"  -E, --event=NAME       event the rules check (repeatable; default: the first)\n"
		"  -z, --noise-z=Z        sampling noise factor (default %g)\n"
		"  -t, --format=FORMAT    table (default), tap, xml, callgrind\n"
		"  -o, --output=FILE      write the report to FILE (default: stdout)\n"
		"      --callgrind=FILE   also write the differential Callgrind file\n"
		"  -f, --from=FORMAT      input format of both profiles (default: detect)\n"
		"      --exe=FILE         gmon: executable of both profiles (default a.out)\n"
		"      --base-exe=FILE, --new-exe=FILE   gmon: executable of one side\n"
		"      --ignore-object, --ignore-file    match functions by name only\n"
		"      --map=OLD=NEW      base function OLD is new function NEW (repeatable)\n"
		"      --transparent=GLOB remove matching functions on both sides first\n"
		"      --cycles           compare cycles as single items\n"
		"      --parts            also compare matched parts (threads, processes)\n"
		"      --width=N, --limit=N, --all       table layout\n"
		"  -q, --quiet            no report, only the exit status\n"
		"  -h, --help             this help\n"
		"  -V, --version          the version\n",
		prog, CG_DIFF_DEFAULT_Z);
}

enum {
	OPT_EXE = 256, OPT_BASE_EXE, OPT_NEW_EXE, OPT_IGNORE_OBJECT, OPT_IGNORE_FILE, OPT_MAP,
	OPT_TRANSPARENT, OPT_CYCLES, OPT_PARTS, OPT_WIDTH, OPT_LIMIT, OPT_ALL, OPT_CALLGRIND,
	OPT_VERSION
};

struct args {
	const char **rules, **events, **transparent, **map_old, **map_new;
	size_t nrules, nevents, ntransparent, nmap;
	cg_read_options ropts;
	const char *exe[2];
	const char *output, *callgrind;
	int format, quiet;
	cg_diff_options dopts;
	cg_diff_write_options wopts;
	const char *paths[2];
};

static int parse_count(const char *s, const char *what, size_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end || errno || v < 0) {
		fprintf(stderr, "%s: %s: expected a non-negative integer, got '%s'\n", prog, what, s);
		return -1;
	}
	*out = (size_t)v;
	return 0;
}

static unsigned terminal_width(void)
{
	const char *cols = getenv("COLUMNS");
	if (cols && *cols) {
		char *end;
		long v = strtol(cols, &end, 10);
		if (!*end && v > 0 && v < 100000)
			return (unsigned)v;
	}
	struct winsize ws;
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		return ws.ws_col;
	return 80;
}

/* Returns -1 to exit 2, 1 to exit 0 (help), 0 to go on. */
static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option longopts[] = {
		{ "fail", required_argument, NULL, 'F' },
		{ "event", required_argument, NULL, 'E' },
		{ "noise-z", required_argument, NULL, 'z' },
		{ "format", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "from", required_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "exe", required_argument, NULL, OPT_EXE },
		{ "base-exe", required_argument, NULL, OPT_BASE_EXE },
		{ "new-exe", required_argument, NULL, OPT_NEW_EXE },
		{ "ignore-object", no_argument, NULL, OPT_IGNORE_OBJECT },
		{ "ignore-file", no_argument, NULL, OPT_IGNORE_FILE },
		{ "map", required_argument, NULL, OPT_MAP },
		{ "transparent", required_argument, NULL, OPT_TRANSPARENT },
		{ "cycles", no_argument, NULL, OPT_CYCLES },
		{ "parts", no_argument, NULL, OPT_PARTS },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "limit", required_argument, NULL, OPT_LIMIT },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "callgrind", required_argument, NULL, OPT_CALLGRIND },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	int c;
	size_t n;
	char *end;
	while ((c = getopt_long(argc, argv, "F:E:z:t:o:f:qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'F': a->rules[a->nrules++] = optarg; break;
		case 'E': a->events[a->nevents++] = optarg; break;
		case 'z':
			errno = 0;
			a->dopts.z = strtod(optarg, &end);
			if (end == optarg || *end || errno || !(a->dopts.z > 0)) {
				fprintf(stderr, "%s: --noise-z: expected a positive number, got '%s'\n",
					prog, optarg);
				return -1;
			}
			break;
		case 't':
			a->format = cg_diff_format_from_name(optarg);
			if (a->format < 0) {
				fprintf(stderr, "%s: unknown output format '%s' (table, tap, xml, callgrind)\n",
					prog, optarg);
				return -1;
			}
			break;
		case 'o': a->output = optarg; break;
		case 'f':
			a->ropts.format = optarg;
			if (!cg_format_can_read(cg_format_find(optarg))) {
				fprintf(stderr, "%s: cannot read '%s' input\n", prog, optarg);
				return -1;
			}
			break;
		case 'q': a->quiet = 1; break;
		case OPT_EXE: a->exe[0] = a->exe[1] = optarg; break;
		case OPT_BASE_EXE: a->exe[0] = optarg; break;
		case OPT_NEW_EXE: a->exe[1] = optarg; break;
		case OPT_IGNORE_OBJECT: a->dopts.ignore_object = 1; break;
		case OPT_IGNORE_FILE: a->dopts.ignore_file = 1; break;
		case OPT_MAP: {
			char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg || !eq[1]) {
				fprintf(stderr, "%s: --map: expected OLD=NEW, got '%s'\n", prog, optarg);
				return -1;
			}
			*eq = '\0';
			a->map_old[a->nmap] = optarg;
			a->map_new[a->nmap++] = eq + 1;
			break;
		}
		case OPT_TRANSPARENT: a->transparent[a->ntransparent++] = optarg; break;
		case OPT_CYCLES: a->dopts.cycles = 1; break;
		case OPT_PARTS: a->dopts.parts = 1; break;
		case OPT_WIDTH:
			if (parse_count(optarg, "--width", &n))
				return -1;
			a->wopts.width = (unsigned)n;
			break;
		case OPT_LIMIT:
			if (parse_count(optarg, "--limit", &n))
				return -1;
			a->wopts.limit = n;
			break;
		case OPT_ALL: a->wopts.all = 1; break;
		case OPT_CALLGRIND: a->callgrind = optarg; break;
		case 'h': usage(stdout); return 1;
		case 'V':
		case OPT_VERSION: printf("cgdiff (callgraph) %s\n", cg_version()); return 1;
		default: usage(stderr); return -1;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "%s: expected two profiles, BASE and NEW\n", prog);
		usage(stderr);
		return -1;
	}
	a->paths[0] = argv[optind];
	a->paths[1] = argv[optind + 1];
	return 0;
}

static int read_side(const struct args *a, int side, cg_profile **out)
{
	cg_error err = CG_ERROR_INIT;
	cg_read_options ro = a->ropts;
	ro.executable = a->exe[side];
	cg_profile *p;
	int rc = cg_read_file(&p, a->paths[side], &ro, &err);
	if (rc == 0 && a->ntransparent) {
		cg_profile *q;
		rc = cg_transparent_apply(&q, p, a->transparent, a->ntransparent, &err);
		cg_profile_free(p);
		p = rc ? NULL : q;
	}
	if (rc) {
		/* Reader messages usually name the file already. */
		if (strstr(err.message, a->paths[side]))
			fprintf(stderr, "%s: %s\n", prog, err.message);
		else
			fprintf(stderr, "%s: %s: %s\n", prog, a->paths[side],
				err.message[0] ? err.message : cg_strerror(rc));
		return rc == CG_EUSAGE ? 2 : 3;
	}
	/* A profile whose collector stopped early is missing calls and
	 * costs: a gate would read that as an improvement, so it is refused.
	 * Heavy overhead or a killed run is only worth a warning. */
	const cg_run_info *run = cg_profile_run_info(p);
	if (run) {
		char line[512];
		cg_run_info_format(run, line, sizeof line);
		if (run->threads_cut) {
			fprintf(stderr, "%s: %s: profile cut short, not comparable (%s)\n", prog,
				a->paths[side], line);
			cg_profile_free(p);
			return 3;
		}
		if (cg_run_info_suspect(run, CG_RUN_OVERHEAD_WARN) || run->lost * 10 > run->samples ||
		    (run->flags & (CG_RUN_KILLED | CG_RUN_PARTIAL)))
			fprintf(stderr, "%s: warning: %s: %s\n", prog, a->paths[side], line);
	}
	*out = p;
	return 0;
}

static int write_report(const cg_diff *d, int format, const char *path,
			const cg_diff_write_options *wo)
{
	cg_error err = CG_ERROR_INIT;
	cg_output *o;
	if (cg_output_open(&o, path, &err) == 0) {
		if (cg_diff_write(d, format, cg_output_file(o), wo, &err) != 0) {
			cg_output_abort(o);
		} else if (cg_output_commit(o, &err) == 0) {
			return 0;
		}
	}
	const char *name = path && strcmp(path, "-") ? path : "stdout";
	if (strstr(err.message, name))
		fprintf(stderr, "%s: %s\n", prog, err.message);
	else
		fprintf(stderr, "%s: %s: %s\n", prog, name, err.message);
	return 3;
}

int main(int argc, char **argv)
{
	struct args a;
	memset(&a, 0, sizeof a);
	cg_read_options ro = CG_READ_OPTIONS_INIT;
	cg_diff_options dopts = CG_DIFF_OPTIONS_INIT;
	cg_diff_write_options wopts = CG_DIFF_WRITE_OPTIONS_INIT;
	a.ropts = ro;
	a.dopts = dopts;
	a.wopts = wopts;
	a.output = "-";
	size_t max = (size_t)argc + 1;
	a.rules = calloc(max, sizeof *a.rules);
	a.events = calloc(max, sizeof *a.events);
	a.transparent = calloc(max, sizeof *a.transparent);
	a.map_old = calloc(max, sizeof *a.map_old);
	a.map_new = calloc(max, sizeof *a.map_new);
	cg_profile *p[2] = { NULL, NULL };
	cg_diff *d = NULL;
	int status = 0, rc;
	if (!a.rules || !a.events || !a.transparent || !a.map_old || !a.map_new) {
		fprintf(stderr, "%s: out of memory\n", prog);
		status = 3;
		goto out;
	}
	rc = parse_args(argc, argv, &a);
	if (rc) {
		status = rc < 0 ? 2 : 0;
		goto out;
	}
	if (!a.wopts.width)
		a.wopts.width = terminal_width();
	a.dopts.map_old = a.map_old;
	a.dopts.map_new = a.map_new;
	a.dopts.nmap = a.nmap;

	status = read_side(&a, 0, &p[0]);
	if (!status)
		status = read_side(&a, 1, &p[1]);
	cg_error err = CG_ERROR_INIT;
	if (!status && (rc = cg_diff_new(&d, p[0], p[1], &a.dopts, &err)) != 0) {
		fprintf(stderr, "%s: %s and %s: %s\n", prog, a.paths[0], a.paths[1], err.message);
		status = rc == CG_EUSAGE ? 2 : 3;
	}
	int flagged = 0;
	if (!status) {
		flagged = cg_diff_check(d, a.rules, a.nrules, a.events, a.nevents, &err);
		if (flagged < 0) {
			fprintf(stderr, "%s: %s\n", prog, err.message);
			status = flagged == CG_EUSAGE ? 2 : 3;
		}
	}
	if (!status && !a.quiet)
		status = write_report(d, a.format, a.output, &a.wopts);
	if (!status && a.callgrind)
		status = write_report(d, CG_DIFF_CALLGRIND, a.callgrind, &a.wopts);
	if (!status && flagged > 0)
		status = 1;
out:
	cg_diff_free(d);
	cg_profile_free(p[0]);
	cg_profile_free(p[1]);
	free(a.rules);
	free(a.events);
	free(a.transparent);
	free(a.map_old);
	free(a.map_new);
	return status;
}
