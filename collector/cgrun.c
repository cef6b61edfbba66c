/*
 * cgrun — runs a program built with -finstrument-functions under
 * libcgcollect (LD_PRELOAD) and says where the profile went and how to view
 * it.  Depends on libc only; finds the collector next to itself
 * (bin/../lib/libcgcollect.so), or at $CGRUN_LIBRARY.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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
	      "             [--lang=lua|python|prolog] [--interval=SECONDS] [--quiet]\n"
	      "             [--] PROGRAM [ARGS]\n"
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
	      "      --interval=SECONDS  also write a snapshot every SECONDS (for\n"
	      "                        programs killed by SIGKILL or never ending)\n"
	      "  -q, --quiet           no summary on stderr\n"
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

/* ---- what the collector reported (CGCOLLECT_REPORT) ------------------------ */

/* One line per profile a process wrote or failed to write (see
 * collect_dump.c: report()).  The last line for a path wins: snapshots
 * and the final write go to the same file. */
struct report {
	long pid;
	char *path;
	char kind[16];
	long value;
	int failed, err, cut;
	unsigned long long calls, samples, overhead, lost;
	unsigned long long unplaced;  /* ticks kept without an address */
};

static char *unescape(const char *s)
{
	if (strcmp(s, "-") == 0)
		return strdup("");
	char *d = malloc(strlen(s) + 1), *o = d;
	if (!d)
		return NULL;
	for (; *s; s++) {
		unsigned v;
		if (s[0] == '%' && s[1] && s[2] && sscanf(s + 1, "%2x", &v) == 1) {
			*o++ = (char)v;
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return d;
}

static size_t read_reports(const char *file, struct report **out)
{
	FILE *f = fopen(file, "r");
	struct report *v = NULL;
	size_t n = 0;
	char line[PATH_MAX * 3 + 256];
	while (f && fgets(line, sizeof line, f)) {
		char status[16], path[PATH_MAX * 3], kind[16], tail[64];
		long pid, value;
		struct report r;
		memset(&r, 0, sizeof r);
		if (sscanf(line, "%15s %ld %s %15s %ld", status, &pid, path, kind, &value) != 5)
			continue;
		if (strcmp(status, "written") == 0) {
			if (sscanf(line, "%*s %*s %*s %*s %*s calls %llu samples %llu overhead %llu lost %llu status %63s",
				   &r.calls, &r.samples, &r.overhead, &r.lost, tail) != 5)
				continue;
			r.cut = strcmp(tail, "ok") != 0;
			const char *u = strstr(line, " status ");
			if (u && (u = strstr(u, " unplaced ")) != NULL)
				sscanf(u, " unplaced %llu", &r.unplaced);
		} else if (strcmp(status, "failed") == 0) {
			if (sscanf(line, "%*s %*s %*s %*s %*s errno %d", &r.err) != 1)
				continue;
			r.failed = 1;
		} else {
			continue;
		}
		r.pid = pid;
		r.value = value;
		snprintf(r.kind, sizeof r.kind, "%s", kind);
		if (!(r.path = unescape(path)))
			continue;
		size_t i;
		for (i = 0; i < n; i++)
			if (v[i].pid == r.pid && strcmp(v[i].path, r.path) == 0)
				break;
		if (i < n) {
			free(v[i].path);
			v[i] = r;
			continue;
		}
		struct report *nv = realloc(v, (n + 1) * sizeof *v);
		if (!nv) {
			free(r.path);
			continue;
		}
		v = nv;
		v[n++] = r;
	}
	if (f)
		fclose(f);
	*out = v;
	return n;
}

static const char *sig_name(int sig, char *buf, size_t size)
{
	const char *a = sigabbrev_np(sig);
	snprintf(buf, size, "SIG%s", a ? a : "?");
	return buf;
}

/* "exited with status 3", "was killed by signal 15 (SIGTERM)" */
static void describe_status(int status, char *buf, size_t size)
{
	char name[32];
	if (WIFEXITED(status))
		snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
	else
		snprintf(buf, size, "was killed by signal %d (%s)%s", WTERMSIG(status),
			 sig_name(WTERMSIG(status), name, sizeof name),
			 WCOREDUMP(status) ? ", core dumped" : "");
}

static void describe_counts(const struct report *r, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%llu calls", r->calls);
	if (r->samples && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n,
			      ", %llu samples, collector overhead %llu (%.1f%%), lost %llu", r->samples,
			      r->overhead, 100.0 * (double)r->overhead / (double)r->samples, r->lost);
	if (r->unplaced && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, ", %llu without an address (CGCOLLECT_LINES)",
			      r->unplaced);
	if (r->cut && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, ", CUT SHORT (a thread ran out of memory or stack)");
}

/* ---- signals: forwarded to the program ------------------------------------ */

static volatile pid_t g_child;

static void forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	/* A terminal's ^C/^\ went to the whole foreground group, the
	 * program included: forwarding would deliver it twice. */
	if (si->si_code == SI_KERNEL && getpgrp() == getpgid(g_child))
		return;
	if (g_child > 0)
		kill(g_child, sig);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "time", required_argument, NULL, 't' },
		{ "hz", required_argument, NULL, 'z' },
		{ "noprofile", required_argument, NULL, 'n' },
		{ "lang", required_argument, NULL, 'L' },
		{ "interval", required_argument, NULL, 'i' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *output = "cgtree.out", *time_kind = "cpu", *hz = NULL, *interval = NULL;
	char *noprofile = NULL;
	int c, quiet = 0;
	while ((c = getopt_long(argc, argv, "+o:t:qhV", longopts, NULL)) != -1) {
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
		case 'i': {
			char *end;
			errno = 0;
			unsigned long v = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || v == 0 || v > 86400UL * 365) {
				fprintf(stderr, PROG ": --interval must be a number of seconds from 1 to 31536000, not '%s'\n", optarg);
				return 2;
			}
			interval = optarg;
			break;
		}
		case 'q':
			quiet = 1;
			break;
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
	    (noprofile && setenv("CGCOLLECT_NOPROFILE", noprofile, 1)) ||
	    (interval && setenv("CGCOLLECT_INTERVAL", interval, 1))) {
		fprintf(stderr, PROG ": cannot set the environment: %s\n", strerror(errno));
		return 2;
	}
	if (!noprofile)
		unsetenv("CGCOLLECT_NOPROFILE");
	if (!interval)
		unsetenv("CGCOLLECT_INTERVAL");
	unsetenv("CGCOLLECT_EXEC_FROM");
	/* The collector appends a line per profile written (or failed) here;
	 * a private directory, so nobody else can read or plant it. */
	char rdir[] = "/tmp/cgrun.XXXXXX";
	const char *tmpdir = getenv("TMPDIR");
	char rdir_buf[PATH_MAX];
	snprintf(rdir_buf, sizeof rdir_buf, "%s/cgrun.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	char *rd = mkdtemp(rdir_buf);
	if (!rd)
		rd = mkdtemp(rdir);
	char report_path[PATH_MAX + 16] = "";
	if (rd) {
		snprintf(report_path, sizeof report_path, "%s/report", rd);
		int fd = open(report_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0)
			close(fd);
		else
			report_path[0] = '\0';
	}
	if (report_path[0])
		setenv("CGCOLLECT_REPORT", report_path, 1);
	else
		unsetenv("CGCOLLECT_REPORT");
	free(noprofile);

	char **cmd = argv + optind;
	if (cgrun_lang_prepare(lib, &cmd) != 0)
		return 2;

	struct stat before;
	int existed = stat(abs_out, &before) == 0;
	fflush(NULL);
	/* Forward termination signals instead of dying of them: the program
	 * gets to write its profile, and we report its real ending. */
	static const int fwd[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa, old_act[4];
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigset_t block, oldmask;
	sigemptyset(&block);
	for (int i = 0; i < 4; i++)
		sigaddset(&block, fwd[i]);
	/* Blocked until the pid is known, so none is lost in between. */
	sigprocmask(SIG_BLOCK, &block, &oldmask);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, PROG ": cannot fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		execvp(cmd[0], cmd);
		fprintf(stderr, PROG ": %s: cannot run: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	g_child = pid;
	for (int i = 0; i < 4; i++) {
		struct sigaction cur;
		/* A signal ignored when we started (nohup, background ^C) stays
		 * ignored: the program inherits that too. */
		if (sigaction(fwd[i], NULL, &cur) == 0 && cur.sa_handler == SIG_IGN)
			continue;
		sigaction(fwd[i], &sa, &old_act[i]);
	}
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, PROG ": waitpid: %s\n", strerror(errno));
			return 2;
		}
	}
	int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	struct report *reps = NULL;
	size_t nrep = report_path[0] ? read_reports(report_path, &reps) : 0;
	if (report_path[0])
		unlink(report_path);
	if (rd)
		rmdir(rd);
	if (WIFEXITED(status) && rc == 127 && nrep == 0)
		return rc;

	char ending[128];
	describe_status(status, ending, sizeof ending);
	/* The main profile: the last one the program's own process wrote to
	 * the output (an exec'd successor has the same pid). */
	const struct report *main_rep = NULL;
	for (size_t i = 0; i < nrep; i++)
		if (reps[i].pid == pid && !main_rep)
			main_rep = &reps[i];
	int any_written = 0;
	for (size_t i = 0; i < nrep; i++)
		any_written |= !reps[i].failed;
	if (!quiet) {
		char counts[256];
		for (size_t i = 0; i < nrep; i++) {
			const struct report *r = &reps[i];
			if (r->failed) {
				fprintf(stderr, PROG ": the profile could not be written: %s: %s (errno %d); %s %s\n",
					r->path, strerror(r->err), r->err,
					r->pid == pid ? argv[optind] : "a child process", ending);
				continue;
			}
			describe_counts(r, counts, sizeof counts);
			if (r == main_rep)
				fprintf(stderr, PROG ": profile written to %s (%s); %s %s\n", r->path, counts,
					argv[optind], ending);
			else if (r->pid == pid)
				fprintf(stderr, PROG ": profile of the exec'd program written to %s (%s)\n",
					r->path, counts);
			else
				fprintf(stderr, PROG ": profile of forked child written to %s (%s)\n", r->path,
					counts);
		}
		struct stat after;
		int changed = stat(abs_out, &after) == 0 &&
			(!existed || after.st_ino != before.st_ino ||
			 after.st_mtim.tv_sec != before.st_mtim.tv_sec ||
			 after.st_mtim.tv_nsec != before.st_mtim.tv_nsec);
		if (nrep == 0 && changed) {
			/* A collector that does not report (an older static one). */
			fprintf(stderr, PROG ": profile written to %s; %s %s\n", abs_out, argv[optind], ending);
			any_written = 1;
		} else if (nrep == 0) {
			fprintf(stderr, PROG ": no profile written: %s made no instrumented calls"
				" (build it with -finstrument-functions)%s%s\n", argv[optind],
				WIFSIGNALED(status) ? "; it " : "", WIFSIGNALED(status) ? ending : "");
		}
		if (any_written && isatty(2) && main_rep && !main_rep->failed)
			fprintf(stderr, PROG ": view it with: cgconvert -t gprof %s\n", main_rep->path);
	}
	for (size_t i = 0; i < nrep; i++)
		free(reps[i].path);
	free(reps);
	/* Killed by a signal that does not dump core: die of it too, as a
	 * shell expects from a wrapper (its loops stop on our SIGINT); one
	 * that dumps core gives 128+N, so we do not add a core of our own. */
	if (WIFSIGNALED(status) && !WCOREDUMP(status)) {
		int sig = WTERMSIG(status);
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGPIPE ||
		    sig == SIGKILL || sig == SIGALRM || sig == SIGUSR1 || sig == SIGUSR2) {
			if (sig == SIGKILL)
				return rc;
			signal(sig, SIG_DFL);
			sigset_t one;
			sigemptyset(&one);
			sigaddset(&one, sig);
			sigprocmask(SIG_UNBLOCK, &one, NULL);
			fflush(NULL);
			raise(sig);
		}
	}
	return rc;
}
