/*
 * cgprof — a drop-in GNU gprof 2.40 on libcallgraph.
 *
 * Same command line as gprof (getopt_long with gprof's option string and
 * long options, @FILE response files), same report on stdout, gprof's
 * error messages and exit statuses (1 for every fatal error, nothing on
 * stdout before it).  The reading is libcallgraph's gmon reader, the
 * analysis and report its gprof writer.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <sys/stat.h>
#include <libiberty/libiberty.h>

#include "callgraph.h"
#include "cgprof_views.h"

static const char *whoami = "cgprof";

/* gprof's option string, unchanged: options with '::' take an argument
 * only when it is glued on (-pNAME, --flat-profile=NAME). */
static const char optstring[] =
	"aA::bBcC::d::De:E:f:F:hiI:J::k:lLm:n:N:O:p::P::q::Q::rR:sS:t:TvVw:xyzZ::";

enum { OPT_DEMANGLE = 150, OPT_NO_DEMANGLE, OPT_INLINE_FILE_NAMES, OPT_PART, OPT_EVENT,
       OPT_THRESHOLD, OPT_ESTIMATE };

static const struct option long_options[] = {
	{ "line", no_argument, NULL, 'l' },
	{ "no-static", no_argument, NULL, 'a' },
	{ "ignore-non-functions", no_argument, NULL, 'D' },
	{ "external-symbol-table", required_argument, NULL, 'S' },
	{ "annotated-source", optional_argument, NULL, 'A' },
	{ "no-annotated-source", optional_argument, NULL, 'J' },
	{ "flat-profile", optional_argument, NULL, 'p' },
	{ "no-flat-profile", optional_argument, NULL, 'P' },
	{ "graph", optional_argument, NULL, 'q' },
	{ "no-graph", optional_argument, NULL, 'Q' },
	{ "exec-counts", optional_argument, NULL, 'C' },
	{ "no-exec-counts", optional_argument, NULL, 'Z' },
	{ "function-ordering", no_argument, NULL, 'r' },
	{ "file-ordering", required_argument, NULL, 'R' },
	{ "file-info", no_argument, NULL, 'i' },
	{ "sum", no_argument, NULL, 's' },
	{ "all-lines", no_argument, NULL, 'x' },
	{ "demangle", optional_argument, NULL, OPT_DEMANGLE },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "directory-path", required_argument, NULL, 'I' },
	{ "display-unused-functions", no_argument, NULL, 'z' },
	{ "inline-file-names", no_argument, NULL, OPT_INLINE_FILE_NAMES },
	{ "min-count", required_argument, NULL, 'm' },
	{ "print-path", no_argument, NULL, 'L' },
	{ "separate-files", no_argument, NULL, 'y' },
	{ "static-call-graph", no_argument, NULL, 'c' },
	{ "table-length", required_argument, NULL, 't' },
	{ "time", required_argument, NULL, 'n' },
	{ "no-time", required_argument, NULL, 'N' },
	{ "width", required_argument, NULL, 'w' },
	{ "brief", no_argument, NULL, 'b' },
	{ "debug", optional_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ "file-format", required_argument, NULL, 'O' },
	{ "traditional", no_argument, NULL, 'T' },
	{ "version", no_argument, NULL, 'v' },
	/* ours, for profiles other than gmon.out (cgprof_views.h) */
	{ "part", required_argument, NULL, OPT_PART },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "gprof-estimate", no_argument, NULL, OPT_ESTIMATE },
	{ NULL, 0, NULL, 0 }
};

/* Output styles, as gprof tracks them (what is on, what the user named). */
enum {
	STYLE_FLAT = 1 << 0,
	STYLE_GRAPH = 1 << 1,
	STYLE_EXEC_COUNTS = 1 << 2,
	STYLE_ANNOTATED = 1 << 3,
	STYLE_FUNCTION_ORDER = 1 << 4,
	STYLE_FILE_ORDER = 1 << 5,
	STYLE_GMON_INFO = 1 << 6,
	STYLE_SUMMARY = 1 << 7
};

typedef struct args {
	cg_gmon_options gmon;
	cg_gprof_options report;
	cg_gprof_symspec *specs;
	size_t nspecs, cap;
	const char **paths;        /* -I DIRS..., then $GPROF_PATH */
	size_t npaths;
	unsigned style, user_specified;
	const char *unsupported;   /* first option we do not implement */
	const char *part, *event;  /* --part, --event (cgprof_views.h) */
	double threshold;          /* --threshold */
	int gprof_estimate;        /* --gprof-estimate */
} args;

static void usage(FILE *f, int status)
{
	fprintf(f,
		"Usage: %s [OPTION...] [EXECUTABLE [PROFILE...]]\n"
		"Reports on gmon.out profiles (defaults: a.out, gmon.out) like GNU gprof, and on\n"
		"every other profile libcallgraph reads (see \"Any profile\").\n"
		"\n"
		"Sections:   -p[SPEC] -P[SPEC] --flat-profile[=SPEC] --no-flat-profile[=SPEC]\n"
		"            -q[SPEC] -Q[SPEC] --graph[=SPEC] --no-graph[=SPEC]  -B (call graph)\n"
		"            -C[SPEC] -Z[SPEC] --exec-counts[=SPEC] --no-exec-counts[=SPEC]\n"
		"            -i --file-info   -r --function-ordering\n"
		"            -A[SPEC] -J[SPEC] --annotated-source[=SPEC] --no-annotated-source[=SPEC]\n"
		"Annotation: -I DIRS --directory-path=DIRS  -m N --min-count=N  -t N --table-length=N\n"
		"            -x --all-lines  -y --separate-files\n"
		"Selection:  -k FROM/TO  -n SPEC --time=SPEC  -N SPEC --no-time=SPEC\n"
		"            -e SPEC -E SPEC -f SPEC -F SPEC\n"
		"Symbols:    -a --no-static   -D --ignore-non-functions\n"
		"            -S FILE --external-symbol-table=FILE (nm-style listing)\n"
		"Layout:     -b --brief  -T --traditional  -z --display-unused-functions\n"
		"            -w N --width=N  -L --print-path  --inline-file-names\n"
		"            --demangle[=STYLE] --no-demangle\n"
		"Input:      -O FORMAT --file-format=auto|magic|bsd|4.4bsd\n"
		"Lines:      -l --line   -s --sum (write gmon.sum)\n"
		"Any profile (Callgrind, XML, fprof trace or analysis, cgtree, -: stdin; detected):\n"
		"            --part=N|NAME|all  --event=NAME  --threshold=PERCENT  --gprof-estimate\n"
		"Other:      -h --help  -v -V --version  -d[N] --debug[=N] (accepted, no trace)\n"
		"            @FILE (read options from FILE)\n"
		"Not supported: -R --file-ordering, -c --static-call-graph (see cgprof(1)).\n",
		whoami);
	exit(status);
}

static void version(void)
{
	printf("cgprof (callgraph) %s\n", cg_version());
	printf("A reimplementation of GNU gprof 2.40's reports on libcallgraph.\n");
	exit(0);
}

static void add_spec(args *a, unsigned table, const char *spec)
{
	if (a->nspecs == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		cg_gprof_symspec *s = realloc(a->specs, cap * sizeof *s);

		if (s == NULL) {
			fprintf(stderr, "%s: out of memory\n", whoami);
			exit(1);
		}
		a->specs = s;
		a->cap = cap;
	}
	a->specs[a->nspecs].table = table;
	a->specs[a->nspecs].spec = spec;
	a->nspecs++;
}

static void add_path(args *a, const char *dirs)
{
	const char **p = realloc(a->paths, (a->npaths + 1) * sizeof *p);

	if (p == NULL) {
		fprintf(stderr, "%s: out of memory\n", whoami);
		exit(1);
	}
	a->paths = p;
	a->paths[a->npaths++] = dirs;
}

/* Like C's ascii-to-int: gprof reads -w and -t with it. */
static int int_of(const char *s)
{
	long v = strtol(s, NULL, 10);

	return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v;
}

/* Style options: `on` switches the style on; a spec goes to `table`. */
static void style_opt(args *a, unsigned style, const char *arg, unsigned table)
{
	if (arg)
		add_spec(a, table, arg);
	a->style |= style;
	a->user_specified |= style;
}

/* The negative style options: without a spec they switch the style off,
 * with one they add an exclusion and switch it on. */
static void no_style_opt(args *a, unsigned style, const char *arg, unsigned table)
{
	if (arg) {
		add_spec(a, table, arg);
		a->style |= style;
	} else {
		a->style &= ~style;
	}
	a->user_specified |= style;
}

static void unsupported(args *a, const char *what)
{
	if (a->unsupported == NULL)
		a->unsupported = what;
}

static void parse(args *a, int argc, char **argv)
{
	int ch;

	while ((ch = getopt_long(argc, argv, optstring, long_options, NULL)) != -1) {
		switch (ch) {
		case 'a': a->gmon.no_static = 1; break;
		case 'A': style_opt(a, STYLE_ANNOTATED, optarg, CG_GPROF_INCL_ANNO); break;
		case 'b': a->report.brief = 1; break;
		case 'B': style_opt(a, STYLE_GRAPH, NULL, 0); break;
		case 'c': unsupported(a, "-c (--static-call-graph)"); break;
		case 'C': style_opt(a, STYLE_EXEC_COUNTS, optarg, CG_GPROF_INCL_EXEC); break;
		case 'd': break;  /* gprof's internal debug trace: not reproduced */
		case 'D': a->gmon.ignore_non_functions = 1; break;
		case 'E': add_spec(a, CG_GPROF_EXCL_TIME, optarg); /* fall through */
		case 'e': add_spec(a, CG_GPROF_EXCL_GRAPH, optarg); break;
		case 'F': add_spec(a, CG_GPROF_INCL_TIME, optarg); /* fall through */
		case 'f': add_spec(a, CG_GPROF_INCL_GRAPH, optarg); break;
		case 'h': usage(stdout, 0); break;
		case 'i': a->style |= STYLE_GMON_INFO; a->user_specified |= STYLE_GMON_INFO; break;
		case 'I': add_path(a, optarg); break;
		case 'J': no_style_opt(a, STYLE_ANNOTATED, optarg, CG_GPROF_EXCL_ANNO); break;
		case 'k': add_spec(a, CG_GPROF_EXCL_ARCS, optarg); break;
		case 'l': a->gmon.line_granularity = 1; break;
		case 'L': a->report.print_path = 1; break;
		case 'm': a->report.min_count = strtoul(optarg, NULL, 10); break;
		case 'n': add_spec(a, CG_GPROF_INCL_TIME, optarg); break;
		case 'N': add_spec(a, CG_GPROF_EXCL_TIME, optarg); break;
		case 'O':
			switch (optarg[0]) {
			case 'a': case 'm': case 'b': case '4': case 'p':
				a->gmon.file_format = optarg[0];
				break;
			default:
				/* gprof prints the two names the other way round */
				fprintf(stderr, "%s: unknown file format %s\n", optarg, whoami);
				exit(1);
			}
			break;
		case 'p': style_opt(a, STYLE_FLAT, optarg, CG_GPROF_INCL_FLAT); break;
		case 'P': no_style_opt(a, STYLE_FLAT, optarg, CG_GPROF_EXCL_FLAT); break;
		case 'q':
			style_opt(a, STYLE_GRAPH, optarg,
				  optarg && strchr(optarg, '/') ? CG_GPROF_INCL_ARCS : CG_GPROF_INCL_GRAPH);
			break;
		case 'Q':
			no_style_opt(a, STYLE_GRAPH, optarg,
				     optarg && strchr(optarg, '/') ? CG_GPROF_EXCL_ARCS : CG_GPROF_EXCL_GRAPH);
			break;
		case 'r':
			a->style |= STYLE_FUNCTION_ORDER;
			a->user_specified |= STYLE_FUNCTION_ORDER;
			break;
		case 'R':
			a->style |= STYLE_FILE_ORDER;
			a->user_specified |= STYLE_FILE_ORDER;
			break;
		case 's':
			a->style |= STYLE_SUMMARY;
			a->user_specified |= STYLE_SUMMARY;
			break;
		case 'S': a->gmon.external_symbol_table = optarg; break;
		case 't': {
			int t = int_of(optarg);

			a->report.table_length = t < 0 ? 0 : t;
			break;
		}
		case 'T': a->report.traditional = 1; break;
		case 'v': case 'V': version(); break;
		case 'w': {
			int w = int_of(optarg);

			a->report.width = w < 1 ? 1 : (unsigned)w;
			break;
		}
		case 'x': a->report.all_lines = 1; break;
		case 'y': a->report.separate_files = 1; break;
		case 'z': a->report.zero = 1; break;
		case 'Z': no_style_opt(a, STYLE_EXEC_COUNTS, optarg, CG_GPROF_EXCL_EXEC); break;
		case OPT_DEMANGLE:
			a->report.demangle = 1;
			a->report.demangle_style = optarg;
			if (optarg && !cg_demangle_style_known(optarg)) {
				fprintf(stderr, "%s: unknown demangling style `%s'\n", whoami, optarg);
				exit(1);
			}
			break;
		case OPT_NO_DEMANGLE: a->report.demangle = 0; break;
		case OPT_INLINE_FILE_NAMES: a->report.inline_file_names = 1; break;
		case OPT_PART: a->part = optarg; break;
		case OPT_EVENT: a->event = optarg; break;
		case OPT_THRESHOLD:
			if (gprof_view_parse_threshold(optarg, &a->threshold) < 0) {
				fprintf(stderr, "%s: --threshold=%s: not a percentage between 0 and 100\n",
					whoami, optarg);
				exit(1);
			}
			break;
		case OPT_ESTIMATE: a->gprof_estimate = 1; break;
		default: usage(stderr, 1);
		}
	}
	if ((a->user_specified & STYLE_FUNCTION_ORDER) && (a->user_specified & STYLE_FILE_ORDER)) {
		fprintf(stderr, "%s: Only one of --function-ordering and --file-ordering may be specified.\n",
			whoami);
		exit(1);
	}
	/* the source search path ends with $GPROF_PATH, as in gprof */
	if (getenv("GPROF_PATH"))
		add_path(a, getenv("GPROF_PATH"));
	if (a->style & STYLE_FILE_ORDER)
		unsupported(a, "-R (--file-ordering)");
	/* gmon.sum keeps line-level arcs: -s implies -l, as in gprof */
	if (a->style & STYLE_SUMMARY)
		a->gmon.line_granularity = 1;
	a->report.line_mode = a->gmon.line_granularity;
}

/* The report sections of the chosen styles. */
static unsigned sections_of(unsigned style)
{
	unsigned parts = 0;
	if (style & STYLE_FLAT)
		parts |= CG_GPROF_FLAT;
	if (style & STYLE_GRAPH)
		parts |= CG_GPROF_GRAPH;
	if (style & STYLE_EXEC_COUNTS)
		parts |= CG_GPROF_EXEC_COUNTS;
	if (style & STYLE_ANNOTATED)
		parts |= CG_GPROF_ANNOTATE;
	if (style & STYLE_FUNCTION_ORDER)
		parts |= CG_GPROF_FUNCTION_ORDER;
	return parts;
}

/* The view of a profile other than gmon.out: the gprof options that apply
 * to any profile, sections as asked (flat profile and call graph by
 * default), the true per-arc costs unless --gprof-estimate. */
static gprof_view view_of(const args *a)
{
	gprof_view v = GPROF_VIEW_INIT;
	unsigned style = a->style;
	v.report = a->report;
	v.report.specs = a->specs;
	v.report.nspecs = a->nspecs;
	v.report.use_exact_inclusive = !a->gprof_estimate;
	if (style == 0)
		style = (STYLE_FLAT | STYLE_GRAPH) & ~a->user_specified;
	v.sections = sections_of(style);
	v.part = a->part;
	v.event = a->event;
	v.threshold = a->threshold;
	return v;
}

/* Everything main() holds, released on every way out. */
typedef struct run {
	args a;
	char **expanded_argv;  /* from expandargv, when it made a new one */
	cg_profile *p;
	cg_gmon_reader *reader;
	cg_gprof_tables *tables;
} run;

static int finish(run *r, int status)
{
	cg_gmon_reader_free(r->reader);
	cg_gprof_tables_free(r->tables);
	cg_profile_free(r->p);
	free(r->a.specs);
	free(r->a.paths);
	if (r->expanded_argv)
		freeargv(r->expanded_argv);
	return status;
}

/* An error: gprof's words on stderr, nothing more on stdout, status 1. */
static int fail(run *r, const char *text)
{
	fflush(stdout);
	fputs(text, stderr);
	return finish(r, 1);
}

static int fail_err(run *r, const cg_error *err)
{
	fflush(stdout);
	fprintf(stderr, "%s\n", err->message);
	return finish(r, 1);
}

/* Sections to print: what was asked for, else what the data has (gprof's
 * default), then gprof's checks that the data is there. */
static int choose_parts(run *r, unsigned *parts)
{
	const cg_gmon_info *gi = cg_profile_gmon_info(r->p);
	int has_hist = gi && gi->has_histogram, has_arcs = gi && gi->has_arcs;
	args *a = &r->a;

	if (a->style == 0) {
		if (has_hist || has_arcs)
			a->style = (has_hist ? STYLE_FLAT : 0) | (has_arcs ? STYLE_GRAPH : 0);
		else
			a->style = STYLE_EXEC_COUNTS;
		a->style &= ~a->user_specified;
	}
	if ((a->style & STYLE_FLAT) && !has_hist) {
		fprintf(stderr, "%s: gmon.out file is missing histogram\n", whoami);
		return -1;
	}
	if ((a->style & STYLE_GRAPH) && !has_arcs) {
		fprintf(stderr, "%s: gmon.out file is missing call-graph data\n", whoami);
		return -1;
	}
	*parts = sections_of(a->style);
	return 0;
}

/* Whether the file at path is a profile cgprof's gmon reader cannot read
 * (Callgrind, XML, fprof trace or analysis, cgtree): a cheap look at its
 * first bytes, so that gmon.out reports load nothing more than gprof
 * needs.  Standard input ("-") cannot be looked at without using it up:
 * it always takes the all-formats path, which detects every format. */
static int foreign_input(const char *path, int may_be_pipe)
{
	struct stat st;
	if (strcmp(path, "-") == 0)
		return 1;
	/* a pipe (/dev/stdin, a FIFO) cannot be looked at without using it
	 * up either: after the executable, it is a profile (the all-formats
	 * path reads gmon.out from pipes too); as the first name it is the
	 * executable, as in gprof */
	if (stat(path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return may_be_pipe;
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	unsigned char h[64];
	size_t n = fread(h, 1, sizeof h, f);
	fclose(f);
	size_t i = 0;
	if (n >= 3 && memcmp(h, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < n && (h[i] == ' ' || h[i] == '\t' || h[i] == '\r' || h[i] == '\n'))
		i++;
	static const char *const text_starts[] = {
		"# cgtree ", "# callgrind format", "%% Analysis results:", "<?xml", "<callgraph",
		"version:", "creator:", "pid:", "cmd:", "events:", "positions:", "part:", "desc:",
	};
	for (size_t k = 0; k < sizeof text_starts / sizeof text_starts[0]; k++) {
		size_t len = strlen(text_starts[k]);
		if (n - i >= len && memcmp(h + i, text_starts[k], len) == 0)
			return 1;
	}
	/* an fprof trace: trace-port framing, then an external term (131) */
	if (n >= 6 && h[0] == 0 && h[5] == 131)
		return 1;
	/* gzip (pprof's profile.proto is gzipped) */
	if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
		return 1;
	/* any other text (folded stacks, perf script, formats added later):
	 * a gmon.out never is (it starts with "gmon" or, in the old BSD
	 * formats, with binary addresses) */
	if (n < 16 || memcmp(h, "gmon", 4) == 0)
		return 0;
	for (size_t k = 0; k < n; k++)
		if (h[k] < 0x20 && h[k] != '\n' && h[k] != '\t' && h[k] != '\r')
			return 0;
	return 1;
}

/* Symbols, option tables, then every profile file, as gprof orders it. */
static int read_input(run *r, int argc, char **argv, const char *exe)
{
	cg_error err = CG_ERROR_INIT;
	args *a = &r->a;
	int rc;

	if (cg_profile_new(&r->p) < 0) {
		fprintf(stderr, "%s: out of memory\n", whoami);
		return finish(r, 1);
	}
	if (cg_gmon_reader_new(&r->reader, r->p, exe, &a->gmon, &err) < 0)
		return fail_err(r, &err);
	/* gprof resolves its option tables before reading the profiles: the
	 * flat tables decide which functions histogram samples credit */
	a->report.specs = a->specs;
	a->report.nspecs = a->nspecs;
	if (cg_gprof_tables_new(&r->tables, r->p, &a->report, &err) < 0)
		return fail_err(r, &err);
	cg_gmon_reader_set_flat_filter(r->reader, cg_gprof_flat_filter, r->tables);
	if (a->gmon.file_format == 'p') {
		fprintf(stderr, "%s: sorry, file format `prof' is not yet supported\n", whoami);
		return finish(r, 1);
	}
	if (optind >= argc) {
		rc = cg_gmon_reader_read(r->reader, "gmon.out", &err);
	} else {
		for (rc = 0; optind < argc && rc == 0; optind++)
			rc = cg_gmon_reader_read(r->reader, argv[optind], &err);
	}
	/* gprof's exact words, including its multi-line and newline-less
	 * messages */
	if (rc < 0 && cg_gmon_reader_gprof_message(r->reader))
		return fail(r, cg_gmon_reader_gprof_message(r->reader));
	if (rc == 0 && (a->style & STYLE_SUMMARY))
		rc = cg_gmon_reader_write_sum(r->reader, "gmon.sum", &err);
	if (rc == 0)
		rc = cg_gmon_reader_finish(r->reader, &err);
	if (rc < 0)
		return fail_err(r, &err);
	cg_gmon_reader_free(r->reader);
	cg_gprof_tables_free(r->tables);
	r->reader = NULL;
	r->tables = NULL;
	return 0;
}

int main(int argc, char **argv)
{
	cg_gmon_options gdef = CG_GMON_OPTIONS_INIT;
	cg_gprof_options rdef = CG_GPROF_OPTIONS_INIT;
	cg_error err = CG_ERROR_INIT;
	const char *exe = "a.out";
	unsigned parts = 0;
	run r;
	args *a = &r.a;

	/* Large blocks (symbol tables, arc arrays) come and go between the
	 * reading and the analysis; giving them their own mappings returns
	 * them to the system when freed instead of leaving holes in the heap
	 * (a few MB less peak memory on big programs). */
	mallopt(M_MMAP_THRESHOLD, 64 * 1024);
	whoami = argv[0];
	memset(&r, 0, sizeof r);
	a->gmon = gdef;
	a->report = rdef;
	{
		char **given = argv;

		expandargv(&argc, &argv);
		if (argv != given)
			r.expanded_argv = argv;
	}
	parse(a, argc, argv);
	if (a->unsupported) {
		fprintf(stderr, "%s: %s is not supported by cgprof (see cgprof(1))\n", whoami,
			a->unsupported);
		return finish(&r, 1);
	}
	a->report.source_paths = a->paths;
	a->report.nsource_paths = a->npaths;
	a->report.messages = stderr;
	a->report.program_name = whoami;
	for (int i = optind; i < argc && a->gmon.file_format == 'a'; i++) {
		if (!foreign_input(argv[i], i > optind))
			continue;
		/* the first name is the executable unless it is a profile itself */
		const char *named_exe = NULL;
		if (!foreign_input(argv[optind], 0))
			named_exe = argv[optind++];
		gprof_view view = view_of(a);
		int status = cgprof_views_run(whoami, argv, named_exe, argv + optind,
					      (size_t)(argc - optind), &view);
		return finish(&r, status);
	}
	if (optind < argc)
		exe = argv[optind++];
	a->gmon.program_name = whoami;
	a->gmon.warnings = stderr;
	if (a->style & STYLE_GMON_INFO)
		a->gmon.file_info = stdout;
	if (read_input(&r, argc, argv, exe) != 0)
		return 1;
	if (choose_parts(&r, &parts) < 0)
		return finish(&r, 1);
	a->report.after_output = (a->style & STYLE_GMON_INFO) != 0;
	if (a->part || a->event || a->threshold > 0) {
		/* the choices made for other formats apply to gmon.out too */
		gprof_view view = view_of(a);
		view.report = a->report;
		view.sections = parts;
		if (parts && gprof_view_print(r.p, &view, stdout, &err) < 0)
			return fail_err(&r, &err);
	} else if (parts && cg_gprof_report(r.p, 0, parts, &a->report, stdout, &err) < 0) {
		return fail_err(&r, &err);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: error writing the report: %s\n", whoami, strerror(errno));
		return finish(&r, 1);
	}
	return finish(&r, 0);
}

/* libbfd 2.40 leaks a few bytes of DWARF file names per executable; keep
 * sanitizer builds (make SANITIZE=1) quiet about a leak that is not ours. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libbfd\n";
}

const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}
