/*
 * cglua.c — the Lua 5.4 binding of libcgcollect.
 *
 * A Lua C module (luaopen_cgcollect) that installs a call/return hook with
 * lua_sethook and reports every Lua and C function call to the collector
 * through the interpreter API (cgcollect.h).  cgrun loads it before the
 * script through LUA_INIT_5_4 (see cgcollect-interp(7)); the collector
 * itself is preloaded by cgrun, so this module only needs its symbols.
 *
 * Functions are keyed by what makes them the same function for a user:
 * a Lua function by its prototype's source and line range (all closures of
 * one prototype are one function), a C function by its address.  They are
 * registered once, named the way Lua's debug library names them at the
 * first call: "NAME@FILE:LINE" (FILE the base name of the source) for Lua functions ("main" for a main
 * chunk, "?" when Lua has no name), the bare NAME for C functions, so
 * --noprofile=pcall works.
 *
 * Every coroutine (lua_State) has its own shadow stack of the nodes its
 * frames resume on return.  A coroutine's frames live in the context where
 * it first ran; a yield is an exit back to the resumer and a resume is a
 * redo of the coroutine's outermost frame (the same mapping as Python's
 * generators).  The shadow stack hangs off the coroutine's LUA_EXTRASPACE,
 * which lua_newthread copies from the main thread: a stack whose owner is
 * not the running state is a copy, and the coroutine gets its own, freed by
 * a __gc when the coroutine is collected.
 *
 * Lua calls no return hook for frames an error unwinds (pcall catching an
 * error), so every entry remembers its CallInfo (lua_Debug.i_ci): a return
 * pops down to the entry of the returning frame, and a call at a CallInfo
 * still on the shadow stack drops the dead entries above it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include "cgcollect.h"

/* The only exported symbol (the module is built -fvisibility=hidden). */
__attribute__((visibility("default"))) int luaopen_cgcollect(lua_State *L);

struct entry {
	cgc_node *resume;   /* the caller's node, current again on return */
	cgc_node *self;     /* what cgc_call returned for this frame */
	const void *ci;     /* the frame's CallInfo */
	int tail;           /* entered by a tail call: returns with its caller */
};

struct costack {
	lua_State *owner;
	cgc_node *base;     /* current node when the coroutine first ran */
	struct costack *from;  /* the resumer, while this one runs */
	struct entry *e;
	size_t n, cap;
	int started;
};

/* ---- functions: an open-addressing table from key to cgc_func ---------- */

struct fkey {
	const void *a;      /* source string (Lua) or C function address */
	int line, last;     /* linedefined, lastlinedefined; -1 for C */
};

struct fslot {
	struct fkey k;
	cgc_func *f;
};

static struct fslot *ftab;
static size_t fcap, fcount;

static size_t fhash(const struct fkey *k)
{
	uint64_t h = (uint64_t)(uintptr_t)k->a * 0x9E3779B97F4A7C15ull;
	h ^= (uint64_t)(unsigned)k->line * 0xC2B2AE3D27D4EB4Full;
	h ^= (uint64_t)(unsigned)k->last * 0x165667B19E3779F9ull;
	return (size_t)(h ^ (h >> 29));
}

static int fkey_eq(const struct fkey *x, const struct fkey *y)
{
	return x->a == y->a && x->line == y->line && x->last == y->last;
}

static int fgrow(void)
{
	size_t cap = fcap ? fcap * 2 : 1024;
	struct fslot *t = calloc(cap, sizeof *t);
	if (!t)
		return -1;
	for (size_t i = 0; i < fcap; i++) {
		if (!ftab[i].f)
			continue;
		size_t j = fhash(&ftab[i].k) & (cap - 1);
		while (t[j].f)
			j = (j + 1) & (cap - 1);
		t[j] = ftab[i];
	}
	free(ftab);
	ftab = t;
	fcap = cap;
	return 0;
}

/* Names given with --noprofile (CGCOLLECT_NOPROFILE): a function whose bare
 * name or full label is listed is made transparent when registered. */
static int is_noprofile(const char *bare, const char *label)
{
	const char *list = getenv("CGCOLLECT_NOPROFILE");
	while (list && *list) {
		const char *comma = strchr(list, ',');
		size_t len = comma ? (size_t)(comma - list) : strlen(list);
		if ((strlen(bare) == len && memcmp(bare, list, len) == 0) ||
		    (strlen(label) == len && memcmp(label, list, len) == 0))
			return 1;
		list = comma ? comma + 1 : NULL;
	}
	return 0;
}

/* C functions are named by their bare name; two different C functions
 * that Lua names alike get "#2", "#3" so the reader keeps them apart. */
static char **cnames;
static size_t ncnames;

static int cname_taken(const char *s)
{
	for (size_t i = 0; i < ncnames; i++)
		if (strcmp(cnames[i], s) == 0)
			return 1;
	return 0;
}

static cgc_func *register_func(lua_Debug *ar, const struct fkey *k)
{
	char label[512];
	const char *name = ar->name ? ar->name : "?";
	cgc_func *f;
	if (k->line < 0) {
		snprintf(label, sizeof label, "%s", name);
		for (int i = 2; cname_taken(label); i++)
			snprintf(label, sizeof label, "%s#%d", name, i);
		char **v = realloc(cnames, (ncnames + 1) * sizeof *v);
		if (v && (v[ncnames] = strdup(label)) != NULL) {
			cnames = v;
			ncnames++;
		} else if (v) {
			cnames = v;
		}
		f = cgc_register(label, "[C]", 0);
	} else {
		if (strcmp(ar->what, "main") == 0)
			name = "main";
		/* The label keeps the base name; the full path is the file. */
		const char *base = strrchr(ar->short_src, '/');
		base = base ? base + 1 : ar->short_src;
		snprintf(label, sizeof label, "%s@%s:%d", name, base, ar->linedefined);
		/* The file for Callgrind and gprof: the path as loaded ("@path"),
		 * or the short form of a chunk loaded from a string. */
		const char *file = ar->source && ar->source[0] == '@' ? ar->source + 1 : ar->short_src;
		f = cgc_register(label, file, (unsigned)(ar->linedefined > 0 ? ar->linedefined : 0));
	}
	if (f && is_noprofile(name, label))
		cgc_noprofile(f);
	return f;
}

static cgc_func *lookup_func(lua_State *L, lua_Debug *ar)
{
	struct fkey k;
	lua_getinfo(L, "S", ar);
	if (ar->what[0] == 'C') {
		lua_getinfo(L, "f", ar);
		k.a = (const void *)lua_tocfunction(L, -1);
		lua_pop(L, 1);
		k.line = k.last = -1;
	} else {
		k.a = ar->source;
		k.line = ar->linedefined;
		k.last = ar->lastlinedefined;
	}
	if (fcap) {
		for (size_t i = fhash(&k) & (fcap - 1); ftab[i].f; i = (i + 1) & (fcap - 1))
			if (fkey_eq(&ftab[i].k, &k))
				return ftab[i].f;
	}
	if ((fcount + 1) * 2 > fcap && fgrow() != 0)
		return NULL;
	lua_getinfo(L, "n", ar);
	cgc_func *f = register_func(ar, &k);
	if (!f)
		return NULL;
	size_t i = fhash(&k) & (fcap - 1);
	while (ftab[i].f)
		i = (i + 1) & (fcap - 1);
	ftab[i].k = k;
	ftab[i].f = f;
	fcount++;
	return f;
}

/* ---- coroutines ------------------------------------------------------------ */

static struct costack *active;
static const char *const GCKEY = "cgcollect.costacks";   /* weak table */
static const char *const GCMETA = "cgcollect.costack";   /* its values' metatable */

static int costack_gc(lua_State *L)
{
	struct costack **u = lua_touserdata(L, 1);
	if (u && *u) {
		if (active == *u)
			active = NULL;
		/* No other stack's `from` points here: a resumer is alive
		 * until the coroutine it resumed hands control back. */
		free((*u)->e);
		free(*u);
		*u = NULL;
	}
	return 0;
}

/* A stack for L, owned by a userdata in a weak-keyed registry table so it
 * is freed with the coroutine. */
static struct costack *new_costack(lua_State *L)
{
	struct costack *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->owner = L;
	if (!lua_checkstack(L, 4))
		return s;  /* never freed; still correct */
	lua_getfield(L, LUA_REGISTRYINDEX, GCKEY);
	if (lua_istable(L, -1)) {
		lua_pushthread(L);
		struct costack **u = lua_newuserdatauv(L, sizeof *u, 0);
		*u = s;
		luaL_setmetatable(L, GCMETA);
		lua_rawset(L, -3);
	}
	lua_pop(L, 1);
	return s;
}

static struct costack *stack_of(lua_State *L)
{
	struct costack **slot = lua_getextraspace(L);
	struct costack *s = *slot;
	if (!s || s->owner != L) {
		s = new_costack(L);
		*slot = s;
	}
	return s;
}

/* Another lua_State runs now: a coroutine was resumed (a redo of its
 * outermost frame), or one yielded or ended back to its resumer (which
 * just goes on where it was). */
static void switch_to(struct costack *s)
{
	struct costack *prev = active;
	active = s;
	if (prev && prev->from == s) {
		prev->from = NULL;
		cgc_exit(s->n ? s->e[s->n - 1].self : s->base);
		return;
	}
	s->from = prev;
	if (!s->started) {
		s->started = 1;
		s->base = cgc_current();
		return;
	}
	if (s->n == 0) {
		cgc_exit(s->base);
		return;
	}
	cgc_redo(s->e[0].self);
	cgc_exit(s->e[s->n - 1].self);
}

static int push(struct costack *s, cgc_node *resume, cgc_node *self, const void *ci, int tail)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct entry *e = realloc(s->e, cap * sizeof *e);
		if (!e)
			return -1;
		s->e = e;
		s->cap = cap;
	}
	s->e[s->n++] = (struct entry){ resume, self, ci, tail };
	return 0;
}

/* How far down a call looks for a dead entry at its own CallInfo; errors
 * caught by pcall unwind only a few frames in practice, and a return finds
 * any depth. */
#define STALE_SCAN 16

static void hook(lua_State *L, lua_Debug *ar)
{
	struct costack *s = active && active->owner == L ? active : stack_of(L);
	if (!s)
		return;
	if (s != active)
		switch_to(s);
	const void *ci = ar->i_ci;
	if (ar->event == LUA_HOOKRET) {
		size_t i = s->n;
		while (i > 0 && s->e[i - 1].ci != ci)
			i--;
		if (i == 0)
			return;  /* a frame that started before the hook */
		/* A tail-called frame shares its caller's CallInfo: the caller's
		 * entry is below it, and goes with it. */
		while (i > 1 && s->e[i - 1].tail && s->e[i - 2].ci == ci)
			i--;
		i--;
		cgc_exit(s->e[i].resume);
		s->n = i;
		return;
	}
	int tail = ar->event == LUA_HOOKTAILCALL;
	if (!tail) {
		for (size_t i = s->n, stop = s->n > STALE_SCAN ? s->n - STALE_SCAN : 0; i > stop; i--) {
			if (s->e[i - 1].ci == ci) {
				cgc_exit(s->e[i - 1].resume);
				s->n = i - 1;
				break;
			}
		}
	}
	cgc_func *f = lookup_func(L, ar);
	cgc_node *resume = s->n ? s->e[s->n - 1].self : s->base;
	cgc_exit(resume);
	if (push(s, resume, cgc_call(f), ci, tail) != 0)
		cgc_exit(resume);
}

int luaopen_cgcollect(lua_State *L)
{
	/* The registry table of coroutine stacks (weak keys) and the
	 * metatable that frees them. */
	if (luaL_newmetatable(L, GCMETA)) {
		lua_pushcfunction(L, costack_gc);
		lua_setfield(L, -2, "__gc");
	}
	lua_pop(L, 1);
	lua_newtable(L);
	lua_newtable(L);
	lua_pushliteral(L, "k");
	lua_setfield(L, -2, "__mode");
	lua_setmetatable(L, -2);
	lua_setfield(L, LUA_REGISTRYINDEX, GCKEY);
	/* The main state's extraspace is what every new coroutine copies, so
	 * it must start as a clean slot. */
	*(struct costack **)lua_getextraspace(L) = NULL;
	lua_sethook(L, hook, LUA_MASKCALL | LUA_MASKRET, 0);
	lua_pushboolean(L, 1);
	return 1;
}
