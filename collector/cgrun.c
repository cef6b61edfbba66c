/*
 * cgrun — runs a program built with -finstrument-functions under
 * libcgcollect (LD_PRELOAD) and says where the profile went and how to view
 * it.  Depends on libc only; finds the collector next to itself
 * (bin/../lib/libcgcollect.so), or at $CGRUN_LIBRARY.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cgcollect.h"
#include "cgrun_lang.h"

#define PROG "cgrun"

static void usage(FILE *f)
{
	fputs("Usage: cgrun [-o FILE] [--time=cpu|wall|calls] [--hz=N] [--noprofile=NAME]...\n"
	      "             [--lang=lua|python|prolog] [--] PROGRAM [ARGS]\n"
	      "Run PROGRAM (built with -finstrument-functions) under the callgraph\n"
	      "collector and write its calling-context tree in cgtree format.\n"
	      "\n"
	      "  -o, --output=FILE     profile file (default cgtree.out; %p is the pid;\n"
	      "                        a forked child writes FILE.PID)\n"
	      "  -t, --time=KIND       cpu: per-thread CPU-time samples (default)\n"
	      "                        wall: wall-clock samples\n"
	      "                        calls: every call is one tick (deterministic)\n"
	      "      --hz=N            sampling rate for cpu/wall (default 1000)\n"
	      "      --noprofile=NAME  make function NAME transparent (repeatable)\n"
	      "      --lang=LANG       PROGRAM is a Lua, Python or SWI-Prolog interpreter\n"
	      "                        (default: recognised by its name; see cgcollect-interp(7))\n"
	      "  -h, --help            show this help\n"
	      "  -V, --version         show the version\n", f);
}

static int append(char **list, const char *item)
{
	size_t old = *list ? strlen(*list) : 0, add = strlen(item);
	char *s = realloc(*list, old + add + 2);
	if (!s)
		return -1;
	if (old)
		s[old++] = ',';
	memcpy(s + old, item, add + 1);
	*list = s;
	return 0;
}

static int find_collector(char *out, size_t size)
{
	const char *env = getenv("CGRUN_LIBRARY");
	if (env && *env) {
		snprintf(out, size, "%s", env);
		return access(out, R_OK);
	}
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return -1;
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if (snprintf(out, size, "%s/../lib/libcgcollect.so", self) >= (int)size)
		return -1;
	return access(out, R_OK);
}

/* Files FILE.PID that forked children write.  Listed before and after the
 * run: those new or changed are this run's (mtimes are too coarse to
 * compare with a start time). */
struct seen {
	char **name;
	struct stat *st;
	size_t n;
};

static void scan_children(const char *output, struct seen *before, int report)
{
	char dir[PATH_MAX * 2];
	if (snprintf(dir, sizeof dir, "%s", output) >= (int)sizeof dir)
		return;
	char *slash = strrchr(dir, '/');
	const char *base = output;
	if (slash) {
		*slash = '\0';
		base = output + (slash - dir) + 1;
	}
	DIR *d = opendir(slash ? (dir[0] ? dir : "/") : ".");
	if (!d)
		return;
	size_t blen = strlen(base);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		const char *name = e->d_name;
		if (strncmp(name, base, blen) != 0 || name[blen] != '.' || !name[blen + 1] ||
		    strspn(name + blen + 1, "0123456789") != strlen(name + blen + 1))
			continue;
		char path[PATH_MAX * 3];
		struct stat st;
		if (snprintf(path, sizeof path, "%s/%s", slash ? dir : ".", name) >= (int)sizeof path ||
		    stat(path, &st) != 0)
			continue;
		if (!report) {
			char **nv = realloc(before->name, (before->n + 1) * sizeof *nv);
			struct stat *sv = realloc(before->st, (before->n + 1) * sizeof *sv);
			if (nv)
				before->name = nv;
			if (sv)
				before->st = sv;
			if (!nv || !sv || !(nv[before->n] = strdup(name)))
				continue;
			sv[before->n++] = st;
			continue;
		}
		int old = 0;
		for (size_t i = 0; i < before->n && !old; i++)
			old = strcmp(before->name[i], name) == 0 && before->st[i].st_ino == st.st_ino &&
			      before->st[i].st_mtim.tv_sec == st.st_mtim.tv_sec &&
			      before->st[i].st_mtim.tv_nsec == st.st_mtim.tv_nsec;
		if (!old)
			fprintf(stderr, PROG ": profile of forked child written to %s\n", path);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "time", required_argument, NULL, 't' },
		{ "hz", required_argument, NULL, 'z' },
		{ "noprofile", required_argument, NULL, 'n' },
		{ "lang", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *output = "cgtree.out", *time_kind = "cpu", *hz = NULL;
	char *noprofile = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "+o:t:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 't':
			if (strcmp(optarg, "cpu") && strcmp(optarg, "wall") && strcmp(optarg, "calls")) {
				fprintf(stderr, PROG ": --time must be cpu, wall or calls, not '%s'\n", optarg);
				return 2;
			}
			time_kind = optarg;
			break;
		case 'z': {
			char *end;
			errno = 0;
			unsigned long v = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || v == 0 || v > 100000) {
				fprintf(stderr, PROG ": --hz must be a number from 1 to 100000, not '%s'\n", optarg);
				return 2;
			}
			hz = optarg;
			break;
		}
		case 'n':
			if (!*optarg || strchr(optarg, ',') || append(&noprofile, optarg) != 0) {
				fprintf(stderr, PROG ": bad --noprofile name '%s'\n", optarg);
				return 2;
			}
			break;
		case 'L':
			if (cgrun_lang_option(optarg) != 0) {
				fprintf(stderr, PROG ": --lang must be lua, python or prolog, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("cgrun (callgraph) %s\n", CGC_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fputs(PROG ": no PROGRAM given\n", stderr);
		usage(stderr);
		return 2;
	}

	char lib[PATH_MAX];
	if (find_collector(lib, sizeof lib) != 0) {
		fprintf(stderr, PROG ": %s: cannot find the collector library\n", lib);
		return 2;
	}
	char abs_out[PATH_MAX * 2];
	if (output[0] == '/') {
		snprintf(abs_out, sizeof abs_out, "%s", output);
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof cwd)) {
			fprintf(stderr, PROG ": cannot get the current directory: %s\n", strerror(errno));
			return 2;
		}
		snprintf(abs_out, sizeof abs_out, "%s/%s", cwd, output);
	}
	const char *old_preload = getenv("LD_PRELOAD");
	char preload[PATH_MAX * 2];
	if (old_preload && *old_preload)
		snprintf(preload, sizeof preload, "%s:%s", lib, old_preload);
	else
		snprintf(preload, sizeof preload, "%s", lib);
	if (setenv("LD_PRELOAD", preload, 1) || setenv("CGCOLLECT_OUTPUT", abs_out, 1) ||
	    setenv("CGCOLLECT_TIME", time_kind, 1) || (hz && setenv("CGCOLLECT_HZ", hz, 1)) ||
	    (noprofile && setenv("CGCOLLECT_NOPROFILE", noprofile, 1))) {
		fprintf(stderr, PROG ": cannot set the environment: %s\n", strerror(errno));
		return 2;
	}
	if (!noprofile)
		unsetenv("CGCOLLECT_NOPROFILE");
	free(noprofile);

	char **cmd = argv + optind;
	if (cgrun_lang_prepare(lib, &cmd) != 0)
		return 2;

	struct stat before;
	int existed = stat(abs_out, &before) == 0;
	struct seen children = { NULL, NULL, 0 };
	scan_children(abs_out, &children, 0);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, PROG ": cannot fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		execvp(cmd[0], cmd);
		fprintf(stderr, PROG ": %s: cannot run: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, PROG ": waitpid: %s\n", strerror(errno));
			return 2;
		}
	}
	int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (WIFEXITED(status) && rc == 127)
		return rc;

	struct stat after;
	int written = stat(abs_out, &after) == 0 &&
		(!existed || after.st_ino != before.st_ino ||
		 after.st_mtim.tv_sec != before.st_mtim.tv_sec ||
		 after.st_mtim.tv_nsec != before.st_mtim.tv_nsec);
	if (written) {
		fprintf(stderr, PROG ": profile written to %s\n", abs_out);
		fprintf(stderr, PROG ": view it with: cgconvert -t callgrind -o callgrind.out %s"
			" && callgrind_annotate callgrind.out\n", abs_out);
		fprintf(stderr, PROG ": or as a gprof-style report: cgconvert -t gprof %s\n", abs_out);
	} else {
		fprintf(stderr, PROG ": no profile written: %s made no instrumented calls"
			" (build it with -finstrument-functions)%s\n", argv[optind],
			WIFSIGNALED(status) ? " or was killed before exit" : "");
	}
	scan_children(abs_out, &children, 1);
	for (size_t i = 0; i < children.n; i++)
		free(children.name[i]);
	free(children.name);
	free(children.st);
	return rc;
}
