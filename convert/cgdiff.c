/*
 * cgdiff — compare two profiles and gate CI on the difference.
 *
 *   cgdiff [options] BASE NEW
 *   cgdiff [options] BASE... -- NEW...      (repeated runs)
 *
 * Exit status: 0 within limits, 1 a limit exceeded, 2 usage, 3 bad input
 * (or an output that could not be written).  See cgdiff(1).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "callgraph.h"
#include "max_memory.h"

static const char *prog = "cgdiff";

static void usage(FILE *out)
{
	fprintf(out,
		"usage: %s [options] BASE NEW\n"
		"       %s [options] BASE... -- NEW...   (repeated runs of each side)\n"
		"  -F, --fail=RULE        limit, e.g. 'self>5%%', 'inclusive(main)>2%%', 'calls>0',\n"
		"                         'arcs>0', 'total>3%%' (repeatable; default: self>5%%,\n"
		"                         calls>0, arcs>0)\n"
		"  -E, --event=NAME       event the rules check (repeatable; default: the first)\n"
		"  -z, --noise-z=Z        sampling noise factor (default %g)\n"
		"  -t, --format=FORMAT    table (default), tap, xml, callgrind, junit, github,\n"
		"                         markdown, bmf, svg (differential flame graph)\n"
		"  -o, --output=FILE      write the report to FILE (default: stdout)\n"
		"      --callgrind=FILE   also write the differential Callgrind file\n"
		"  -f, --from=FORMAT      input format of both profiles (default: detect)\n"
		"      --exe=FILE         gmon: executable of both profiles (default a.out)\n"
		"      --base-exe=FILE, --new-exe=FILE   gmon: executable of one side\n"
		"      --ignore-object, --ignore-file    match functions by name only\n"
		"      --source-root=DIR  source paths relative to DIR (both sides; default:\n"
		"                         detected by path suffix)\n"
		"      --base-source-root=DIR, --new-source-root=DIR   the same for one side\n"
		"      --absolute-paths   match source files by their full path\n"
		"      --ignore=GLOB      no verdict for matching functions (repeatable)\n"
		"      --max-memory=MB    fail (exit 3) when reading and comparing need more\n"
		"                         (N, NK, NM, NG; default: half the physical memory;\n"
		"                         0: no limit)\n"
		"      --alpha=A          repeated runs: false-alarm rate of the comparison\n"
		"                         (default %g)\n"
		"      --create-baseline  a missing BASE is written from NEW (XML) and passes\n"
		"      --learn RUN...     write tolerances for the counts that vary between\n"
		"                         unchanged runs (to -o FILE)\n"
		"      --tolerances=FILE  apply learned tolerances\n"
		"      --map=OLD=NEW      base function OLD is new function NEW (repeatable)\n"
		"      --transparent=GLOB remove matching functions on both sides first\n"
		"      --cycles           compare cycles as single items\n"
		"      --parts            also compare matched parts (threads, processes)\n"
		"      --width=N, --limit=N, --all       table layout\n"
		"  -q, --quiet            no report, only the exit status\n"
		"  -h, --help             this help\n"
		"  -V, --version          the version\n",
		prog, prog, CG_DIFF_DEFAULT_Z, CG_DIFF_DEFAULT_ALPHA);
}

enum {
	OPT_EXE = 256, OPT_BASE_EXE, OPT_NEW_EXE, OPT_IGNORE_OBJECT, OPT_IGNORE_FILE, OPT_MAP,
	OPT_TRANSPARENT, OPT_CYCLES, OPT_PARTS, OPT_WIDTH, OPT_LIMIT, OPT_ALL, OPT_CALLGRIND,
	OPT_VERSION, OPT_SOURCE_ROOT, OPT_BASE_SOURCE_ROOT, OPT_NEW_SOURCE_ROOT, OPT_ABSOLUTE_PATHS,
	OPT_IGNORE, OPT_ALPHA, OPT_CREATE_BASELINE, OPT_LEARN, OPT_TOLERANCES, OPT_MAX_MEMORY
};

struct args {
	const char **rules, **events, **transparent, **map_old, **map_new, **ignore;
	size_t nrules, nevents, ntransparent, nmap, nignore;
	cg_read_options ropts;
	const char *exe[2];
	const char *output, *callgrind;
	int format, quiet, width_given, create_baseline, learn;
	const char *tolerances;
	uint64_t max_memory;         /* the reading budget (cg_set_memory_limit) */
	char *tolerance_text;        /* the file's contents; rules point into it */
	cg_diff_options dopts;
	cg_diff_write_options wopts;
	/* paths[s][0..npaths[s]): the runs of each side */
	char **paths[2];
	size_t npaths[2];
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
		{ "source-root", required_argument, NULL, OPT_SOURCE_ROOT },
		{ "base-source-root", required_argument, NULL, OPT_BASE_SOURCE_ROOT },
		{ "new-source-root", required_argument, NULL, OPT_NEW_SOURCE_ROOT },
		{ "absolute-paths", no_argument, NULL, OPT_ABSOLUTE_PATHS },
		{ "ignore", required_argument, NULL, OPT_IGNORE },
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "create-baseline", no_argument, NULL, OPT_CREATE_BASELINE },
		{ "learn", no_argument, NULL, OPT_LEARN },
		{ "tolerances", required_argument, NULL, OPT_TOLERANCES },
		{ "max-memory", required_argument, NULL, OPT_MAX_MEMORY },
		{ NULL, 0, NULL, 0 }
	};
	int c;
	size_t n;
	char *end;
	/* "--" splits the base runs from the new ones; options come before it. */
	int split = 0;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			split = i;
			break;
		}
	int nopt = split ? split : argc;
	while ((c = getopt_long(nopt, argv, "F:E:z:t:o:f:qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'F': a->rules[a->nrules++] = optarg; break;
		case 'E': a->events[a->nevents++] = optarg; break;
		case 'z':
			errno = 0;
			a->dopts.z = strtod(optarg, &end);
			if (end == optarg || *end || errno || !(a->dopts.z > 0) || isinf(a->dopts.z)) {
				fprintf(stderr, "%s: --noise-z: expected a positive number, got '%s'\n",
					prog, optarg);
				return -1;
			}
			break;
		case 't':
			a->format = cg_diff_format_from_name(optarg);
			if (a->format < 0) {
				fprintf(stderr, "%s: unknown output format '%s' (table, tap, xml, "
					"callgrind, junit, github, markdown, bmf, svg)\n", prog, optarg);
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
			a->width_given = 1;
			break;
		case OPT_SOURCE_ROOT: a->dopts.source_root[0] = a->dopts.source_root[1] = optarg; break;
		case OPT_BASE_SOURCE_ROOT: a->dopts.source_root[0] = optarg; break;
		case OPT_NEW_SOURCE_ROOT: a->dopts.source_root[1] = optarg; break;
		case OPT_ABSOLUTE_PATHS: a->dopts.absolute_paths = 1; break;
		case OPT_IGNORE: a->ignore[a->nignore++] = optarg; break;
		case OPT_CREATE_BASELINE: a->create_baseline = 1; break;
		case OPT_LEARN: a->learn = 1; break;
		case OPT_TOLERANCES: a->tolerances = optarg; break;
		case OPT_MAX_MEMORY:
			if (max_memory_parse(optarg, &a->max_memory)) {
				fprintf(stderr, "%s: --max-memory: '%s' is not a size in MB "
					"(N, NK, NM, NG; 0: no limit)\n", prog, optarg);
				return -1;
			}
			break;
		case OPT_ALPHA:
			errno = 0;
			a->dopts.alpha = strtod(optarg, &end);
			if (end == optarg || *end || errno || !(a->dopts.alpha > 0 && a->dopts.alpha < 1)) {
				fprintf(stderr, "%s: --alpha: expected a number between 0 and 1, got '%s'\n",
					prog, optarg);
				return -1;
			}
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
	if (a->learn) {
		/* --learn RUN...: every run on one side, for the diff's run access */
		if (split || argc - optind < 3) {
			fprintf(stderr, "%s: --learn needs three unchanged runs or more (no '--')\n",
				prog);
			return -1;
		}
		a->paths[0] = argv + optind;
		a->npaths[0] = 1;
		a->paths[1] = argv + optind + 1;
		a->npaths[1] = (size_t)(argc - optind - 1);
		return 0;
	}
	if (split) {
		a->paths[0] = argv + optind;
		a->npaths[0] = (size_t)(split - optind);
		a->paths[1] = argv + split + 1;
		a->npaths[1] = (size_t)(argc - split - 1);
		if (!a->npaths[0] || !a->npaths[1]) {
			fprintf(stderr, "%s: expected BASE... -- NEW...: a profile on each side\n", prog);
			usage(stderr);
			return -1;
		}
	} else {
		if (argc - optind != 2) {
			fprintf(stderr, "%s: expected two profiles, BASE and NEW "
				"(or BASE... -- NEW... for repeated runs)\n", prog);
			usage(stderr);
			return -1;
		}
		a->paths[0] = argv + optind;
		a->paths[1] = argv + optind + 1;
		a->npaths[0] = a->npaths[1] = 1;
	}
	if (a->create_baseline && a->npaths[0] != 1) {
		fprintf(stderr, "%s: --create-baseline takes one BASE\n", prog);
		return -1;
	}
	return 0;
}

/* The new profile read in a second thread while the main one reads the
 * base (profiles are independent: the library allows it), which nearly
 * halves the wall time of comparing two large profiles. */
struct prefetch {
	const struct args *a;
	const char *path;
	pthread_t thread;
	int started;
	cg_profile *p;
	int rc;
	cg_error err;
};

static void *prefetch_main(void *arg)
{
	struct prefetch *pf = arg;
	cg_read_options ro = pf->a->ropts;
	ro.executable = pf->a->exe[1];
	pf->rc = cg_read_file(&pf->p, pf->path, &ro, &pf->err);
	return NULL;
}

static void prefetch_start(struct prefetch *pf, const struct args *a, const char *path)
{
	memset(pf, 0, sizeof *pf);
	pf->a = a;
	pf->path = path;
	pf->started = pthread_create(&pf->thread, NULL, prefetch_main, pf) == 0;
}

/* Waits for the read; the profile is the caller's unless taken. */
static void prefetch_wait(struct prefetch *pf)
{
	if (pf->started) {
		pthread_join(pf->thread, NULL);
		pf->started = 0;
	}
}

static int read_run(const struct args *a, int side, const char *path, cg_profile **out,
		    struct prefetch *pf)
{
	cg_error err = CG_ERROR_INIT;
	cg_read_options ro = a->ropts;
	ro.executable = a->exe[side];
	cg_profile *p;
	int rc;
	if (pf && pf->started && pf->path == path) {
		prefetch_wait(pf);
		p = pf->p;
		pf->p = NULL;
		rc = pf->rc;
		err = pf->err;
	} else {
		rc = cg_read_file(&p, path, &ro, &err);
	}
	if (rc == 0 && a->ntransparent) {
		cg_profile *q;
		rc = cg_transparent_apply(&q, p, a->transparent, a->ntransparent, &err);
		cg_profile_free(p);
		p = rc ? NULL : q;
	}
	if (rc) {
		/* Reader messages usually name the file already. */
		if (strstr(err.message, path))
			fprintf(stderr, "%s: %s%s\n", prog, err.message, max_memory_hint());
		else
			fprintf(stderr, "%s: %s: %s%s\n", prog, path,
				err.message[0] ? err.message : cg_strerror(rc), max_memory_hint());
		return rc == CG_EUSAGE ? 2 : 3;
	}
	/* only read from now on: its lookup tables would sit idle */
	cg_profile_compact(p);
	/* A profile whose collector stopped early is missing calls and
	 * costs: a gate would read that as an improvement, so it is refused.
	 * Heavy overhead or a killed run is only worth a warning. */
	const cg_run_info *run = cg_profile_run_info(p);
	if (run) {
		char line[512];
		cg_run_info_format(run, line, sizeof line);
		if (run->threads_cut) {
			fprintf(stderr, "%s: %s: profile cut short, not comparable (%s)\n", prog,
				path, line);
			cg_profile_free(p);
			return 3;
		}
		if (cg_run_info_suspect(run, CG_RUN_OVERHEAD_WARN) || run->lost * 10 > run->samples ||
		    (run->flags & (CG_RUN_KILLED | CG_RUN_PARTIAL)))
			fprintf(stderr, "%s: warning: %s: %s\n", prog, path, line);
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

/* A profile in which nothing was measured would make every rule pass. */
static int empty_side(const cg_diff *d, int side)
{
	cg_diff_value v;
	for (size_t e = 0; e < cg_diff_event_count(d); e++) {
		cg_diff_value_get(d, 0, CG_DIFF_TOTAL, 0, e, &v);
		if (side ? v.new_value : v.base)
			return 0;
	}
	for (size_t i = 0; i < cg_diff_function_count(d); i++) {
		cg_diff_value_get(d, 0, CG_DIFF_CALLS, i, 0, &v);
		if (side ? v.new_value : v.base)
			return 0;
	}
	for (size_t i = 0; i < cg_diff_arc_count(d); i++) {
		cg_diff_value_get(d, 0, CG_DIFF_ARC_CALLS, i, 0, &v);
		if (side ? v.new_value : v.base)
			return 0;
	}
	return 1;
}

/* --tolerances=FILE: lines "ignore NAME" and "fail RULE" ('#' comments). */
static int read_tolerances(struct args *a)
{
	FILE *f = fopen(a->tolerances, "r");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, a->tolerances, strerror(errno));
		return 3;
	}
	size_t cap = 4096, len = 0;
	char *text = malloc(cap);
	size_t n;
	while (text && (n = fread(text + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len + 1 == cap) {
			char *t = realloc(text, cap *= 2);
			if (!t)
				free(text);
			text = t;
		}
	}
	int bad = ferror(f);
	fclose(f);
	if (!text || bad) {
		free(text);
		fprintf(stderr, "%s: %s: cannot read\n", prog, a->tolerances);
		return 3;
	}
	text[len] = '\0';
	a->tolerance_text = text;
	size_t lines = 1;
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	const char **rules = realloc(a->rules, (a->nrules + lines + 3) * sizeof *rules);
	const char **ignore = realloc(a->ignore, (a->nignore + lines + 1) * sizeof *ignore);
	if (rules)
		a->rules = rules;
	if (ignore)
		a->ignore = ignore;
	if (!rules || !ignore) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 3;
	}
	/* The learned rules come on top of the defaults, not instead. */
	if (!a->nrules) {
		a->rules[a->nrules++] = "self>5%";
		a->rules[a->nrules++] = "calls>0";
		a->rules[a->nrules++] = "arcs>0";
	}
	size_t lineno = 0;
	for (char *line = text, *next; line && *line; line = next) {
		lineno++;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line || *line == '#')
			continue;
		char *comment = strstr(line, " #");
		if (comment)
			*comment = '\0';
		for (char *end = line + strlen(line); end > line && (end[-1] == ' ' || end[-1] == '\t');)
			*--end = '\0';
		if (strncmp(line, "ignore ", 7) == 0 && line[7])
			a->ignore[a->nignore++] = line + 7;
		else if (strncmp(line, "fail ", 5) == 0 && line[5])
			a->rules[a->nrules++] = line + 5;
		else {
			fprintf(stderr, "%s: %s: line %zu: expected 'ignore NAME' or 'fail RULE'\n",
				prog, a->tolerances, lineno);
			return 3;
		}
	}
	return 0;
}

/* --learn: the counts that vary between unchanged runs, and by how much.
 * A varying function is exempt from the general rules ("ignore") and
 * gets its own limit: twice the largest spread seen, relative to the
 * smallest run, so reruns like the learned ones pass and an added call
 * in a function that does not vary still fails. */
static int learn(const struct args *a, const cg_diff *d)
{
	cg_error err = CG_ERROR_INIT;
	cg_output *o;
	if (cg_output_open(&o, a->output, &err)) {
		fprintf(stderr, "%s: %s\n", prog, err.message);
		return 3;
	}
	FILE *out = cg_output_file(o);
	size_t nruns = 1 + cg_diff_run_count(d, 1);
	fprintf(out, "# cgdiff tolerances learned from %zu unchanged runs (cgdiff --learn);\n"
		     "# apply with cgdiff --tolerances=FILE.  'ignore NAME' exempts NAME from\n"
		     "# the general rules, 'fail RULE' is its own limit (twice the spread seen).\n",
		nruns);
	size_t varying = 0;
	for (size_t i = 0; i < cg_diff_function_count(d); i++) {
		cg_diff_function fn;
		cg_diff_function_at(d, i, &fn);
		int metrics[2] = { CG_DIFF_CALLS, CG_DIFF_SELF };
		int said = 0;
		for (int m = 0; m < 2; m++)
			for (size_t e = 0; e < cg_diff_event_count(d); e++) {
				if (metrics[m] == CG_DIFF_CALLS && e > 0)
					break;
				if (metrics[m] == CG_DIFF_SELF &&
				    cg_diff_event_kind(d, e) != CG_DIFF_EXACT)
					continue;
				int64_t lo = INT64_MAX, hi = INT64_MIN, v;
				for (size_t r = 0; r < nruns; r++) {
					if (r == 0)
						cg_diff_run_value(d, 0, metrics[m], i, e, 0, 0, &v);
					else
						cg_diff_run_value(d, 0, metrics[m], i, e, 1, r - 1, &v);
					lo = v < lo ? v : lo;
					hi = v > hi ? v : hi;
				}
				if (lo == hi)
					continue;
				if (!said++) {
					fprintf(out, "ignore %s\n", fn.name);
					varying++;
				}
				if (lo <= 0)
					continue;   /* absent in some run: ignored only */
				double spread = 100.0 * (double)(hi - lo) / (double)lo;
				long pct = (long)(2 * spread);
				if ((double)pct < 2 * spread)
					pct++;
				if (metrics[m] == CG_DIFF_CALLS)
					fprintf(out, "fail calls(%s)<>%ld%%   # %lld..%lld\n", fn.name,
						pct < 1 ? 1 : pct, (long long)lo, (long long)hi);
				else
					fprintf(out, "fail self(%s)[%s]<>%ld%%   # %lld..%lld\n", fn.name,
						cg_diff_event(d, e)->name, pct < 1 ? 1 : pct,
						(long long)lo, (long long)hi);
			}
	}
	fprintf(out, "# %zu function%s vary\n", varying, varying == 1 ? "" : "s");
	if (cg_output_commit(o, &err)) {
		fprintf(stderr, "%s: %s\n", prog, err.message);
		return 3;
	}
	fprintf(stderr, "%s: %zu of %zu functions vary between the %zu runs\n", prog, varying,
		cg_diff_function_count(d), nruns);
	return 0;
}

/* --create-baseline with BASE absent: store NEW as the baseline. */
static int create_baseline(const struct args *a)
{
	cg_profile *p;
	int status = read_run(a, 1, a->paths[1][0], &p, NULL);
	if (status)
		return status;
	cg_error err = CG_ERROR_INIT;
	if (cg_write_file(p, "xml", a->paths[0][0], NULL, &err)) {
		fprintf(stderr, "%s: %s: %s\n", prog, a->paths[0][0], err.message);
		status = 3;
	} else {
		fprintf(stderr, "%s: %s did not exist: created it from %s; nothing compared\n", prog,
			a->paths[0][0], a->paths[1][0]);
	}
	cg_profile_free(p);
	return status;
}

int main(int argc, char **argv)
{
	struct args a;
	memset(&a, 0, sizeof a);
	cg_read_options ro = CG_READ_OPTIONS_INIT;
	ro.drop_positions = 1;   /* compared per function and arc, never per line */
	cg_diff_options dopts = CG_DIFF_OPTIONS_INIT;
	cg_diff_write_options wopts = CG_DIFF_WRITE_OPTIONS_INIT;
	a.ropts = ro;
	a.dopts = dopts;
	a.wopts = wopts;
	a.output = "-";
	a.max_memory = max_memory_default();
	max_memory_init();
	size_t max = (size_t)argc + 1;
	a.rules = calloc(max, sizeof *a.rules);
	a.events = calloc(max, sizeof *a.events);
	a.transparent = calloc(max, sizeof *a.transparent);
	a.map_old = calloc(max, sizeof *a.map_old);
	a.map_new = calloc(max, sizeof *a.map_new);
	a.ignore = calloc(max, sizeof *a.ignore);
	cg_profile **runs = calloc(max, sizeof *runs);
	size_t nruns = 0;
	cg_diff *d = NULL;
	int status = 0, rc;
	if (!a.rules || !a.events || !a.transparent || !a.map_old || !a.map_new || !a.ignore ||
	    !runs) {
		fprintf(stderr, "%s: out of memory\n", prog);
		status = 3;
		goto out;
	}
	rc = parse_args(argc, argv, &a);
	if (rc) {
		status = rc < 0 ? 2 : 0;
		goto out;
	}
	/* Names are cut to the width only on a terminal: logs and files get
	 * them whole. */
	if (!a.width_given && !getenv("COLUMNS") && !(isatty(STDOUT_FILENO) &&
						      (!a.output || !strcmp(a.output, "-"))))
		a.wopts.full_names = 1;
	if (!a.wopts.width)
		a.wopts.width = terminal_width();
	/* the picture's title names the two files */
	a.wopts.names[0] = a.paths[0][0];
	a.wopts.names[1] = a.paths[1][0];
	a.dopts.map_old = a.map_old;
	a.dopts.map_new = a.map_new;
	a.dopts.nmap = a.nmap;
	a.dopts.ignore = a.ignore;
	a.dopts.nignore = a.nignore;

	if (a.tolerances && (status = read_tolerances(&a)) != 0)
		goto out;
	a.dopts.ignore = a.ignore;
	a.dopts.nignore = a.nignore;
	cg_set_memory_limit(a.max_memory);
	if (a.create_baseline && access(a.paths[0][0], F_OK) != 0) {
		status = create_baseline(&a);
		goto out;
	}
	struct prefetch pf = { 0 };
	if (a.npaths[0] == 1 && a.npaths[1] == 1)
		prefetch_start(&pf, &a, a.paths[1][0]);
	for (int side = 0; side < 2 && !status; side++)
		for (size_t r = 0; r < a.npaths[side] && !status; r++)
			status = read_run(&a, side, a.paths[side][r], &runs[nruns++], &pf);
	prefetch_wait(&pf);
	cg_profile_free(pf.p);   /* not taken when the base failed */
	cg_error err = CG_ERROR_INIT;
	if (!status) {
		a.dopts.more_runs[0] = (const cg_profile *const *)runs + 1;
		a.dopts.nmore_runs[0] = a.npaths[0] - 1;
		a.dopts.more_runs[1] = (const cg_profile *const *)runs + a.npaths[0] + 1;
		a.dopts.nmore_runs[1] = a.npaths[1] - 1;
		rc = cg_diff_new(&d, runs[0], runs[a.npaths[0]], &a.dopts, &err);
		if (rc == CG_ENOMEM && cg_memory_limit_hit()) {
			fprintf(stderr, "%s: %s and %s: comparing them exceeds the memory limit of "
				"%llu MB (--max-memory)\n", prog, a.paths[0][0], a.paths[1][0],
				(unsigned long long)(cg_memory_limit() >> 20));
			status = 3;
		} else if (rc) {
			fprintf(stderr, "%s: %s and %s: %s\n", prog, a.paths[0][0], a.paths[1][0],
				err.message);
			status = rc == CG_EUSAGE ? 2 : 3;
		}
	}
	for (int side = 0; side < 2 && !status; side++)
		if (empty_side(d, side)) {
			fprintf(stderr, "%s: %s: nothing was measured (no cost, no calls in the events "
				"both profiles have): refusing to compare\n", prog, a.paths[side][0]);
			status = 3;
		}
	if (!status && a.learn) {
		status = learn(&a, d);
		goto out;
	}
	int flagged = 0;
	if (!status) {
		flagged = cg_diff_check(d, a.rules, a.nrules, a.events, a.nevents, &err);
		if (flagged < 0) {
			fprintf(stderr, "%s: %s%s\n", prog, err.message, max_memory_hint());
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
	for (size_t r = 0; r < nruns; r++)
		cg_profile_free(runs[r]);
	free(runs);
	free(a.ignore);
	free(a.tolerance_text);
	free(a.rules);
	free(a.events);
	free(a.transparent);
	free(a.map_old);
	free(a.map_new);
	return status;
}
