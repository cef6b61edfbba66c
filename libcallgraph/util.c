/*
 * util.c — error records, version, atomic output files.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "callgraph.h"

#ifndef CG_VERSION_STRING
#define CG_VERSION_STRING "0.1.0"
#endif

const char *cg_version(void)
{
	return CG_VERSION_STRING;
}

int cg_error_set(cg_error *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof err->message, fmt, ap);
		va_end(ap);
		/* One line only: a message never carries a newline. */
		for (char *c = err->message; *c; c++)
			if (*c == '\n' || *c == '\r')
				*c = ' ';
		err->code = code;
	}
	return code;
}

void cg_error_clear(cg_error *err)
{
	if (err) {
		err->code = 0;
		err->message[0] = '\0';
	}
}

const char *cg_strerror(int code)
{
	switch (code) {
	case CG_OK: return "success";
	case CG_ENOMEM: return "out of memory";
	case CG_EIO: return "input/output error";
	case CG_EFORMAT: return "malformed input";
	case CG_EUSAGE: return "invalid argument";
	case CG_ENOTFOUND: return "not found";
	case CG_EMISMATCH: return "inputs do not match";
	default: return "error";
	}
}

struct cg_output {
	FILE *fp;
	char *path;      /* final name; NULL for stdout */
	char *tmp_path;  /* temporary name beside it; NULL when written in place */
};

int cg_output_open(cg_output **out, const char *path, cg_error *err)
{
	cg_output *o = calloc(1, sizeof *o);
	if (!o)
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	if (!path || strcmp(path, "-") == 0) {
		o->fp = stdout;
		*out = o;
		return 0;
	}
	size_t n = strlen(path);
	o->path = malloc(n + 1);
	o->tmp_path = malloc(n + 32);
	if (!o->path || !o->tmp_path) {
		free(o->path);
		free(o->tmp_path);
		free(o);
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	}
	memcpy(o->path, path, n + 1);
	/* A target that is not a regular file (/dev/null, a FIFO, a tty) is
	 * written in place: a rename would replace the device node itself. */
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		free(o->tmp_path);
		o->tmp_path = NULL;
		if (!(o->fp = fopen(path, "w"))) {
			int e = errno;
			free(o->path);
			free(o);
			return cg_error_set(err, CG_EIO, "%s: %s", path, strerror(e));
		}
		*out = o;
		return 0;
	}
	snprintf(o->tmp_path, n + 32, "%s.tmpXXXXXX", path);
	int fd = mkstemp(o->tmp_path);
	if (fd < 0 || !(o->fp = fdopen(fd, "w"))) {
		int e = errno;
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp_path);
		}
		free(o->path);
		free(o->tmp_path);
		free(o);
		return cg_error_set(err, CG_EIO, "%s: cannot create output file: %s", path,
				    strerror(e));
	}
	/* mkstemp makes the file private; give it the mode a plain fopen
	 * would have. */
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	*out = o;
	return 0;
}

FILE *cg_output_file(cg_output *o)
{
	return o->fp;
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
	if (ferror(o->fp) | (fclose(o->fp) != 0)) {
		rc = cg_error_set(err, CG_EIO, "%s: write error: %s", o->path, strerror(errno));
		if (o->tmp_path)
			unlink(o->tmp_path);
	} else if (o->tmp_path && rename(o->tmp_path, o->path) != 0) {
		rc = cg_error_set(err, CG_EIO, "%s: cannot rename output into place: %s", o->path,
				  strerror(errno));
		unlink(o->tmp_path);
	}
	free(o->path);
	free(o->tmp_path);
	free(o);
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
	free(o->path);
	free(o->tmp_path);
	free(o);
}
