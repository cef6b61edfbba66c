/*
 * collect_file.c — creating the profile file so that nobody else can steer
 * the write, and so that no temporary file outlives the process.
 *
 * The collector runs inside arbitrary programs (root ones too) and may
 * write from a signal handler, so everything here is async-signal-safe:
 * system calls and string copies only, no malloc, no stdio.
 *
 *   1. The destination is resolved first: when it is a symlink we write the
 *      file it points to (resolved by hand with readlink, since realpath
 *      may allocate), so `-o link` updates the link's target.
 *   2. The data goes to an unnamed file, O_TMPFILE in the destination's
 *      directory: it has no name that could be pre-planted, and it simply
 *      vanishes if the process dies (SIGKILL included) before the commit.
 *   3. Commit: linkat() gives it a random name (linkat never follows a
 *      symlink at the new name; an existing name fails with EEXIST and we
 *      draw again), and rename() puts it over the destination.  Signals are
 *      blocked across these two calls, so a signal handler cannot stop us
 *      between them and leave the random name behind.
 *   4. Without O_TMPFILE (old kernels, some file systems) the temporary
 *      file is created O_CREAT|O_EXCL|O_NOFOLLOW under a random name,
 *      registered so a termination handler can unlink it, and unlinked on
 *      any failure.
 *   5. An existing destination keeps its mode (and, when we may, its
 *      owner); a destination that is not a regular file (/dev/null, a FIFO,
 *      /dev/full) is written in place, as is a regular file in a directory
 *      we cannot create files in (not atomic; documented).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>  /* renameat */
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "collect_internal.h"

/* The named temporary file being written (fallback path only), so that a
 * termination signal arriving mid-write can remove it.  Written only by
 * the thread holding the dump, read by signal handlers. */
static volatile int g_tmp_dirfd = -1;
static char g_tmp_name[300];

/* Test knob: CGCOLLECT_NO_TMPFILE=1 forces the named-temporary fallback. */
int g_no_tmpfile;

static size_t CGC_TEXT copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);
	if (n >= size)
		return (size_t)-1;
	memcpy(dst, src, n + 1);
	return n;
}

/* Follows `path` while its last component is a symlink.  Relative link
 * targets are relative to the link's directory.  A dangling link resolves
 * to its (missing) target, which will then be created. */
static int CGC_TEXT resolve_links(char *path, size_t size)
{
	for (int hops = 0; hops < 40; hops++) {
		char target[PATH_MAX_CGC];
		ssize_t n = readlink(path, target, sizeof target - 1);
		if (n < 0)
			return (errno == EINVAL || errno == ENOENT) ? 0 : -1;
		target[n] = '\0';
		if (target[0] == '/') {
			if (copy_str(path, size, target) == (size_t)-1)
				goto too_long;
			continue;
		}
		char *slash = strrchr(path, '/');
		size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
		if (dirlen + (size_t)n + 1 > size)
			goto too_long;
		memcpy(path + dirlen, target, (size_t)n + 1);
	}
	errno = ELOOP;
	return -1;
too_long:
	errno = ENAMETOOLONG;
	return -1;
}

/* Splits the resolved destination into an O_PATH descriptor of its
 * directory and its last component. */
static int CGC_TEXT open_dir(struct cgc_outfile *of)
{
	char dir[PATH_MAX_CGC];
	char *slash = strrchr(of->path, '/');
	if (!slash) {
		memcpy(dir, ".", 2);
		of->base = of->path;
	} else {
		size_t len = (size_t)(slash - of->path);
		if (len == 0)
			len = 1;  /* "/name": the root directory */
		memcpy(dir, of->path, len);
		dir[len] = '\0';
		of->base = slash + 1;
	}
	if (!*of->base) {
		errno = EISDIR;
		return -1;
	}
	of->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return of->dirfd < 0 ? -1 : 0;
}

/* ".BASE.tmp.<16 random hex digits>": unpredictable, so it cannot be
 * planted in advance; hidden, and matched by the usual *.tmp* cleanups. */
static int CGC_TEXT random_name(const char *base, char *out, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char rnd[8];
	ssize_t got = getrandom(rnd, sizeof rnd, GRND_NONBLOCK);
	if (got != (ssize_t)sizeof rnd) {
		/* No entropy yet (early boot): still unique enough with O_EXCL /
		 * EEXIST retries, since nobody can plant a name we have not
		 * chosen yet without racing us and then only making us retry. */
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t v = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)out;
		memcpy(rnd, &v, sizeof rnd);
	}
	size_t blen = strlen(base);
	if (blen + 1 + 5 + 16 + 1 > size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	size_t n = 0;
	out[n++] = '.';
	memcpy(out + n, base, blen);
	n += blen;
	memcpy(out + n, ".tmp.", 5);
	n += 5;
	for (size_t i = 0; i < sizeof rnd; i++) {
		out[n++] = hex[rnd[i] >> 4];
		out[n++] = hex[rnd[i] & 15];
	}
	out[n] = '\0';
	return 0;
}

/* Applies the old file's mode (exactly, whatever the umask) and, when
 * possible, its owner, so overwriting a 0600 profile keeps it private. */
static void CGC_TEXT keep_attributes(const struct cgc_outfile *of)
{
	if (!of->existed)
		return;
	if (of->old_uid != geteuid() || of->old_gid != getegid())
		(void)!fchown(of->fd, of->old_uid, of->old_gid);
	(void)fchmod(of->fd, of->old_mode & 07777);
}

int CGC_TEXT cgc_file_open(struct cgc_outfile *of, const char *path)
{
	memset(of, 0, sizeof *of);
	of->fd = of->dirfd = -1;
	of->how = CGC_FILE_TMPFILE;
	if (copy_str(of->path, sizeof of->path, path) == (size_t)-1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (resolve_links(of->path, sizeof of->path) != 0)
		return -1;

	struct stat st;
	if (stat(of->path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			return -1;
		}
		if (!S_ISREG(st.st_mode)) {
			/* A device or FIFO: renaming over it would replace it. */
			of->how = CGC_FILE_IN_PLACE;
			of->fd = open(of->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
			return of->fd < 0 ? -1 : 0;
		}
		of->existed = 1;
		of->old_mode = st.st_mode;
		of->old_uid = st.st_uid;
		of->old_gid = st.st_gid;
	}
	if (open_dir(of) != 0)
		return -1;

	if (!g_no_tmpfile) {
		of->fd = openat(of->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
		if (of->fd >= 0) {
			keep_attributes(of);
			return 0;
		}
		/* Only "not supported here" falls back; a real failure (EACCES,
		 * EROFS, ENOSPC) would fail the same way below. */
		if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT) {
			if (errno == EACCES && of->existed)
				goto in_place;
			return -1;
		}
	}

	of->how = CGC_FILE_NAMED;
	for (int tries = 0; tries < 16; tries++) {
		if (random_name(of->base, of->tmpname, sizeof of->tmpname) != 0)
			return -1;
		/* Registered before it exists: a handler unlinking a name that
		 * is not there yet does no harm. */
		memcpy(g_tmp_name, of->tmpname, sizeof g_tmp_name);
		g_tmp_dirfd = of->dirfd;
		of->fd = openat(of->dirfd, of->tmpname,
				O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (of->fd >= 0) {
			if (of->existed) {
				keep_attributes(of);
			} else {
				/* What open(..., 0666) would have given: the umask
				 * applies.  umask() cannot be read without
				 * setting it, so read it back from a probe. */
				mode_t mask = umask(022);
				umask(mask);
				(void)fchmod(of->fd, 0666 & ~mask);
			}
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	g_tmp_dirfd = -1;
	if (errno == EACCES && of->existed)
		goto in_place;
	return -1;

in_place:
	/* The directory is not writable but the file is: overwrite it in place
	 * as gprof does (not atomic; a reader may see a partial file). */
	of->how = CGC_FILE_IN_PLACE;
	of->fd = open(of->path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	return of->fd < 0 ? -1 : 0;
}

static void CGC_TEXT block_all(sigset_t *old)
{
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, old);
}

/* Gives the unnamed file the random name `of->tmpname` in the directory. */
static int CGC_TEXT link_tmpfile(struct cgc_outfile *of)
{
	char proc[40] = "/proc/self/fd/";
	char digits[12];
	int i = sizeof digits;
	unsigned v = (unsigned)of->fd;
	do {
		digits[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(proc + 14, digits + i, sizeof digits - (size_t)i);
	proc[14 + sizeof digits - (size_t)i] = '\0';
	for (int tries = 0; tries < 16; tries++) {
		if (random_name(of->base, of->tmpname, sizeof of->tmpname) != 0)
			return -1;
		if (linkat(AT_FDCWD, proc, of->dirfd, of->tmpname, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno == ENOENT || errno == ENOTDIR) {
			/* No /proc: AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH,
			 * which root has. */
			if (linkat(of->fd, "", of->dirfd, of->tmpname, AT_EMPTY_PATH) == 0)
				return 0;
		}
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

/* Finishes the file: on success it replaces the destination, on failure
 * nothing is left.  `failed`/`saved_errno` report a write error seen by
 * the caller.  Returns 0, or -1 with errno set. */
int CGC_TEXT cgc_file_finish(struct cgc_outfile *of, int failed, int saved_errno)
{
	int err = saved_errno;
	if (of->how == CGC_FILE_IN_PLACE || (of->how == CGC_FILE_TMPFILE && failed)) {
		/* In place there is nothing to rename; an unnamed file that
		 * failed disappears with its descriptor. */
		if (of->fd >= 0 && close(of->fd) != 0 && !failed) {
			failed = 1;
			err = errno;
		}
		goto out;
	}
	if (of->how == CGC_FILE_NAMED && close(of->fd) != 0 && !failed) {
		failed = 1;
		err = errno;
	}
	sigset_t old;
	block_all(&old);
	if (of->how == CGC_FILE_TMPFILE) {
		/* Linked while the descriptor is still open (an unnamed file
		 * cannot be named after close). */
		if (link_tmpfile(of) != 0) {
			failed = 1;
			err = errno;
			of->tmpname[0] = '\0';
		} else {
			memcpy(g_tmp_name, of->tmpname, sizeof g_tmp_name);
			g_tmp_dirfd = of->dirfd;
		}
	}
	if (!failed && renameat(of->dirfd, of->tmpname, of->dirfd, of->base) != 0) {
		failed = 1;
		err = errno;
	}
	if (failed && of->tmpname[0])
		unlinkat(of->dirfd, of->tmpname, 0);
	g_tmp_dirfd = -1;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (of->how == CGC_FILE_TMPFILE && close(of->fd) != 0 && !failed) {
		failed = 1;
		err = errno;
	}
out:
	of->fd = -1;
	if (of->dirfd >= 0)
		close(of->dirfd);
	of->dirfd = -1;
	if (failed) {
		errno = err ? err : EIO;
		return -1;
	}
	return 0;
}

/* Called by a termination handler that interrupts a write in the fallback
 * mode: removes the named temporary file before the process dies. */
void CGC_TEXT cgc_file_cleanup_on_signal(void)
{
	int dirfd = g_tmp_dirfd;
	if (dirfd >= 0)
		unlinkat(dirfd, g_tmp_name, 0);
}
