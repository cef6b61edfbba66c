/*
 * output.c — output files that appear whole or not at all, and that nobody
 * else can redirect.
 *
 * The data goes to an unnamed file (O_TMPFILE) in the destination's
 * directory, which is given a name only once it is complete: nothing can
 * be planted at its path beforehand, and a process killed mid-write leaves
 * nothing behind.  Filesystems without O_TMPFILE get a randomly named file
 * created with O_EXCL|O_NOFOLLOW (a planted link makes the open fail, it is
 * never followed), removed again on failure.
 *
 * The destination:
 *  - a symbolic link is written through: the link's target is replaced,
 *    atomically, in the target's directory, and the link stays a link;
 *  - an existing regular file keeps its permission bits;
 *  - something that is not a regular file (/dev/null, a FIFO, a tty) is
 *    written in place, since a rename would replace the node itself;
 *  - a file in a directory we cannot create files in is overwritten in
 *    place, as gprof does (not atomic; documented in reliability.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "callgraph.h"

struct cg_output {
	FILE *fp;
	char *path;      /* final name (the link's target for a symlink); NULL for stdout */
	char *tmp_path;  /* named temporary file; NULL when unnamed or in place */
	int unnamed;     /* O_TMPFILE: linked into place at commit */
	int keep_mode;   /* mode to restore on the new file, -1 for the umask default */
};

/* Named temporary files still being written.  If SIGINT, SIGTERM or SIGHUP
 * arrives while one exists, and the program left that signal at its
 * default action, the handler removes them before the signal takes its
 * course, so an interrupted conversion leaves nothing behind.  (Unnamed
 * files need none of this, and nothing can help against SIGKILL for named
 * ones: that is why O_TMPFILE comes first.) */
#define PENDING_MAX 64
static char *volatile pending[PENDING_MAX];
static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void remove_pending(int sig)
{
	for (int i = 0; i < PENDING_MAX; i++) {
		char *p = pending[i];
		if (p)
			unlink(p);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_cleanup(void)
{
	for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++) {
		struct sigaction old;
		if (sigaction(cleanup_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
		    !(old.sa_flags & SA_SIGINFO)) {
			struct sigaction sa;
			memset(&sa, 0, sizeof sa);
			sa.sa_handler = remove_pending;
			sigemptyset(&sa.sa_mask);
			sigaction(cleanup_signals[i], &sa, NULL);
		}
	}
}

/* Creating a named temporary file and recording it must look atomic to
 * the cleanup handler, or a signal between the two leaves the file behind:
 * the handler is installed and the signals blocked before the file exists,
 * and unblocked once it is tracked. */
static void begin_pending(sigset_t *saved)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, install_cleanup);
	sigset_t block;
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++)
		sigaddset(&block, cleanup_signals[i]);
	pthread_sigmask(SIG_BLOCK, &block, saved);
}

static void end_pending(const sigset_t *saved)
{
	pthread_sigmask(SIG_SETMASK, saved, NULL);
}

static void track_pending(char *path)
{
	for (int i = 0; i < PENDING_MAX; i++)
		if (__sync_bool_compare_and_swap(&pending[i], NULL, path))
			return;
}

static void untrack_pending(const char *path)
{
	for (int i = 0; i < PENDING_MAX; i++)
		if (pending[i] == path)
			pending[i] = NULL;
}

/* The directory part of path ("." when there is none), malloc'd. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

static void output_free(cg_output *o)
{
	if (o->tmp_path)
		untrack_pending(o->tmp_path);
	free(o->path);
	free(o->tmp_path);
	free(o);
}

/* An unnamed file in dir, or -1 (errno set) when the filesystem or kernel
 * does not support it. */
static int open_unnamed(const char *dir)
{
#ifdef O_TMPFILE
	/* CG_OUTPUT_NAMED_TEMP=1 takes the fallback path everywhere: for
	 * filesystems whose O_TMPFILE misbehaves, and for the tests. */
	const char *named = getenv("CG_OUTPUT_NAMED_TEMP");
	if (named && strcmp(named, "1") == 0) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
#else
	(void)dir;
	errno = EOPNOTSUPP;
	return -1;
#endif
}

/* A new file with an unpredictable name beside path, created exclusively
 * (never through an existing name or link). */
static int open_named(const char *path, char **tmp_out)
{
	size_t n = strlen(path);
	char *tmp = malloc(n + 32);
	if (!tmp) {
		errno = ENOMEM;
		return -1;
	}
	for (int attempt = 0; attempt < 16; attempt++) {
		unsigned long long r = 0;
		if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
			r = ((unsigned long long)getpid() << 32) ^ (unsigned long long)(uintptr_t)tmp ^
			    (unsigned long long)attempt * 0x9e3779b97f4a7c15ull;
		snprintf(tmp, n + 32, "%s.tmp%016llx", path, r);
		sigset_t saved;
		begin_pending(&saved);
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd >= 0) {
			track_pending(tmp);
			end_pending(&saved);
			*tmp_out = tmp;
			return fd;
		}
		int e = errno;
		end_pending(&saved);
		errno = e;
		if (errno != EEXIST)
			break;
	}
	int e = errno;
	free(tmp);
	errno = e;
	return -1;
}

int cg_output_open(cg_output **out, const char *path, cg_error *err)
{
	*out = NULL;
	cg_output *o = calloc(1, sizeof *o);
	if (!o)
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	o->keep_mode = -1;
	if (!path || strcmp(path, "-") == 0) {
		o->fp = stdout;
		*out = o;
		return 0;
	}
	/* Write through a symbolic link: its target is what gets replaced. */
	struct stat lst;
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		char *real = realpath(path, NULL);
		if (real) {
			o->path = real;
		} else if (errno == ENOENT) {
			/* A dangling link: create what it names, as fopen would. */
			char buf[PATH_MAX];
			ssize_t len = readlink(path, buf, sizeof buf - 1);
			if (len > 0) {
				buf[len] = '\0';
				if (buf[0] == '/') {
					o->path = strdup(buf);
				} else {
					char *d = dir_of(path);
					size_t need = strlen(d) + (size_t)len + 2;
					if (d && (o->path = malloc(need)))
						snprintf(o->path, need, "%s/%s", d, buf);
					free(d);
				}
			}
		}
	}
	if (!o->path)
		o->path = strdup(path);
	if (!o->path) {
		output_free(o);
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	}

	struct stat st;
	int exists = stat(o->path, &st) == 0;
	int fd = -1;
	if (exists && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode)) {
			output_free(o);
			return cg_error_set(err, CG_EIO, "%s: is a directory", path);
		}
		/* A device or FIFO: written in place, never renamed over. */
		fd = open(o->path, O_WRONLY | O_CLOEXEC);
	} else {
		if (exists)
			o->keep_mode = (int)(st.st_mode & 07777);
		char *dir = dir_of(o->path);
		if (!dir) {
			output_free(o);
			return cg_error_set(err, CG_ENOMEM, "out of memory");
		}
		fd = open_unnamed(dir);
		free(dir);
		if (fd >= 0) {
			o->unnamed = 1;
		} else {
			fd = open_named(o->path, &o->tmp_path);
			if (fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM) && exists) {
				/* No right to create files in the directory, but the
				 * file itself may be writable: overwrite in place. */
				fd = open(o->path, O_WRONLY | O_TRUNC | O_CLOEXEC);
			}
		}
	}
	if (fd < 0 || !(o->fp = fdopen(fd, "w"))) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		if (o->tmp_path)
			unlink(o->tmp_path);
		output_free(o);
		return cg_error_set(err, CG_EIO, "%s: cannot create output file: %s", path,
				    strerror(e));
	}
	if (o->unnamed || o->tmp_path) {
		/* The new file takes the old one's permissions, or what a plain
		 * fopen would give it. */
		mode_t mode = (mode_t)o->keep_mode;
		if (o->keep_mode < 0) {
			mode_t mask = umask(0);
			umask(mask);
			mode = 0666 & ~mask;
		}
		if (fchmod(fd, mode) != 0 && o->keep_mode >= 0) {
			int e = errno;
			cg_output_abort(o);
			return cg_error_set(err, CG_EIO, "%s: cannot set the file mode: %s", path,
					    strerror(e));
		}
	}
	*out = o;
	return 0;
}

FILE *cg_output_file(cg_output *o)
{
	return o->fp;
}

/* Gives the unnamed file a temporary name beside the destination, then
 * renames it over the destination (linkat cannot replace an existing name). */
static int link_unnamed(cg_output *o)
{
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fileno(o->fp));
	size_t n = strlen(o->path);
	char *tmp = malloc(n + 32);
	if (!tmp) {
		errno = ENOMEM;
		return -1;
	}
	for (int attempt = 0; attempt < 16; attempt++) {
		unsigned long long r = 0;
		if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
			r = (unsigned long long)getpid() * 2654435761u + (unsigned)attempt;
		snprintf(tmp, n + 32, "%s.tmp%016llx", o->path, r);
		/* linkat never follows or replaces an existing name: a link
		 * planted at this path makes it fail with EEXIST. */
		sigset_t saved;
		begin_pending(&saved);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0) {
			track_pending(tmp);
			end_pending(&saved);
			o->tmp_path = tmp;
			return 0;
		}
		int e = errno;
		end_pending(&saved);
		errno = e;
		if (errno != EEXIST)
			break;
	}
	int e = errno;
	free(tmp);
	errno = e;
	return -1;
}

int cg_output_commit(cg_output *o, cg_error *err)
{
	int rc = 0;
	if (!o->path) {
		if (fflush(o->fp) != 0 || ferror(o->fp))
			rc = cg_error_set(err, CG_EIO, "<stdout>: write error: %s", strerror(errno));
		free(o);
		return rc;
	}
	int bad = fflush(o->fp) != 0 || ferror(o->fp);
	int e = errno;
	if (!bad && o->unnamed && link_unnamed(o) != 0) {
		e = errno;
		rc = cg_error_set(err, CG_EIO, "%s: cannot name the output file: %s", o->path,
				  strerror(e));
	}
	if (fclose(o->fp) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	if (bad && !rc)
		rc = cg_error_set(err, CG_EIO, "%s: write error: %s", o->path, strerror(e));
	if (!rc && o->tmp_path && rename(o->tmp_path, o->path) != 0)
		rc = cg_error_set(err, CG_EIO, "%s: cannot rename output into place: %s", o->path,
				  strerror(errno));
	if (rc && o->tmp_path)
		unlink(o->tmp_path);
	output_free(o);
	return rc;
}

void cg_output_abort(cg_output *o)
{
	if (!o)
		return;
	if (o->path) {
		fclose(o->fp);
		if (o->tmp_path)
			unlink(o->tmp_path);
	} else {
		fflush(o->fp);
	}
	output_free(o);
}
