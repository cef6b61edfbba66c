/*
 * error.c — error records and the library version.
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
