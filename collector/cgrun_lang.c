/*
 * cgrun_lang.c — interpreters under cgrun.
 *
 * The collector is preloaded as for a C program; what an interpreter needs
 * in addition is its binding, loaded early enough to see the script's
 * first call.  Each language has its own way in, picked so that the user's
 * own configuration of that mechanism keeps working:
 *
 *   Lua     LUA_INIT_5_4 loads the C module (package.loadlib) and then runs
 *           the user's LUA_INIT_5_4 or LUA_INIT, passed in CGRUN_LUA_INIT.
 *   Python  PYTHONPATH starts with our directory, whose sitecustomize
 *           starts the profiler and then imports the next sitecustomize
 *           on the path (Debian ships one).
 *   Prolog  "-s FILE" is put before the program's arguments: SWI-Prolog
 *           loads it before the script, and it turns SWI's own profiler on
 *           and hands its tree to the collector at halt.
 *
 * The bindings live in LIBDIR/cgcollect/LANG/, LIBDIR being the directory
 * of libcgcollect.so.  See cgcollect-interp(7).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgrun_lang.h"

#define PROG "cgrun"

enum lang { LANG_AUTO, LANG_NONE, LANG_LUA, LANG_PYTHON, LANG_PROLOG };

static enum lang forced = LANG_AUTO;

int cgrun_lang_option(const char *arg)
{
	if (strcmp(arg, "lua") == 0)
		forced = LANG_LUA;
	else if (strcmp(arg, "python") == 0)
		forced = LANG_PYTHON;
	else if (strcmp(arg, "prolog") == 0)
		forced = LANG_PROLOG;
	else if (strcmp(arg, "none") == 0 || strcmp(arg, "c") == 0)
		forced = LANG_NONE;
	else
		return -1;
	return 0;
}

/* NAME, or NAME followed by a version made of digits and dots
 * (lua5.4, python3.11), or NAME-SOMETHING (swipl-win). */
static int named(const char *base, const char *name, int dash)
{
	size_t n = strlen(name);
	if (strncmp(base, name, n) != 0)
		return 0;
	if (!base[n])
		return 1;
	if (dash && base[n] == '-')
		return 1;
	return strspn(base + n, "0123456789.") == strlen(base + n);
}

static enum lang recognise(const char *prog)
{
	const char *slash = strrchr(prog, '/');
	const char *base = slash ? slash + 1 : prog;
	if (named(base, "lua", 0) || named(base, "luajit", 0))
		return LANG_LUA;
	if (named(base, "python", 0))
		return LANG_PYTHON;
	if (named(base, "swipl", 1))
		return LANG_PROLOG;
	return LANG_NONE;
}

static int binding(char *out, size_t size, const char *collector, const char *rel)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", collector);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof dir, ".");
	if (snprintf(out, size, "%s/cgcollect/%s", dir, rel) >= (int)size)
		return -1;
	char real[PATH_MAX];
	if (realpath(out, real) && strlen(real) < size)
		snprintf(out, size, "%s", real);
	if (access(out, R_OK) != 0) {
		fprintf(stderr, PROG ": %s: cannot find the interpreter binding: %s\n", out,
			strerror(errno));
		return -1;
	}
	return 0;
}

static int set(const char *name, const char *value)
{
	if (setenv(name, value, 1) != 0) {
		fprintf(stderr, PROG ": cannot set %s: %s\n", name, strerror(errno));
		return -1;
	}
	return 0;
}

static int prepare_lua(const char *collector)
{
	char so[PATH_MAX];
	if (binding(so, sizeof so, collector, "lua/cgcollect.so") != 0)
		return -1;
	if (strstr(so, "]==]")) {
		fprintf(stderr, PROG ": %s: unusable path for LUA_INIT\n", so);
		return -1;
	}
	/* The user's init is read before the hook is on, so that the profile
	 * starts with the script's own calls.
	 * Lua reads LUA_INIT_5_4 in preference to LUA_INIT; whichever the user
	 * set runs after ours, as lua.c would have run it. */
	const char *user = getenv("LUA_INIT_5_4");
	if (!user || !*user)
		user = getenv("LUA_INIT");
	if (user && *user) {
		if (set("CGRUN_LUA_INIT", user) != 0)
			return -1;
	} else {
		unsetenv("CGRUN_LUA_INIT");
	}
	char init[PATH_MAX + 512];
	snprintf(init, sizeof init,
		 "local i = os.getenv('CGRUN_LUA_INIT') "
		 "assert(package.loadlib([==[%s]==], 'luaopen_cgcollect'))() "
		 "if i then if i:sub(1, 1) == '@' then dofile(i:sub(2)) "
		 "else assert(load(i, '=LUA_INIT'))() end end", so);
	return set("LUA_INIT_5_4", init);
}

static int prepare_python(const char *collector)
{
	char dir[PATH_MAX];
	if (binding(dir, sizeof dir, collector, "python") != 0)
		return -1;
	const char *old = getenv("PYTHONPATH");
	char path[PATH_MAX * 2 + 2];
	if (old && *old)
		snprintf(path, sizeof path, "%s:%s", dir, old);
	else
		snprintf(path, sizeof path, "%s", dir);
	return set("PYTHONPATH", path);
}

static int prepare_prolog(const char *collector, char ***argv)
{
	static char pl[PATH_MAX];
	if (binding(pl, sizeof pl, collector, "prolog/cgcollect.pl") != 0)
		return -1;
	size_t n = 0;
	while ((*argv)[n])
		n++;
	char **v = malloc((n + 3) * sizeof *v);
	if (!v) {
		fprintf(stderr, PROG ": out of memory\n");
		return -1;
	}
	v[0] = (*argv)[0];
	v[1] = "-s";
	v[2] = pl;
	memcpy(v + 3, *argv + 1, n * sizeof *v);  /* the arguments and the NULL */
	*argv = v;
	return 0;
}

int cgrun_lang_prepare(const char *collector, char ***argv)
{
	enum lang lang = forced == LANG_AUTO ? recognise((*argv)[0]) : forced;
	switch (lang) {
	case LANG_LUA:
		return prepare_lua(collector);
	case LANG_PYTHON:
		return prepare_python(collector);
	case LANG_PROLOG:
		return prepare_prolog(collector, argv);
	default:
		return 0;
	}
}
