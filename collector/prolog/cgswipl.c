/*
 * cgswipl.c — the foreign half of the SWI-Prolog binding of libcgcollect
 * (cgcollect.pl is the other half).
 *
 * SWI-Prolog's virtual machine reports the ports of every predicate only
 * to its own profiler (profCall, profExit, profRedo in pl-prof.c); there is
 * no callback for foreign code.  So the binding runs SWI's profiler for the
 * whole program and, at halt, hands the calling-context tree it built to
 * the collector: cgcollect.pl walks it ('$prof_sibling_of'/2,
 * '$prof_node'/8) and calls the predicates below, which enter each context
 * through the interpreter API as often as SWI counted: calls, direct
 * recursive entries and redos.  SWI folds recursion with the rule the
 * collector uses (same predicate with the same parent predicate higher
 * up), so every context of its tree is a context of ours and the counts
 * are the same, port by port.
 *
 *   cg_func(+Label, +File, +Line, -Func)   register a predicate (once)
 *   cg_enter(+Func, +Calls, +Redos, +Recur) enter its context from the
 *                                           current one, counting these
 *   cg_leave                                back to the context entered
 *                                           from
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <SWI-Prolog.h>

#include "cgcollect.h"

static cgc_node **parents;
static size_t depth, cap;

static int noprofile(const char *label)
{
	const char *list = getenv("CGCOLLECT_NOPROFILE");
	size_t n = strlen(label);
	while (list && *list) {
		const char *comma = strchr(list, ',');
		size_t len = comma ? (size_t)(comma - list) : strlen(list);
		if (len == n && memcmp(label, list, len) == 0)
			return 1;
		list = comma ? comma + 1 : NULL;
	}
	return 0;
}

static foreign_t cg_func(term_t label, term_t file, term_t line, term_t func)
{
	char *l, *f = NULL;
	int ln = 0;
	if (!PL_get_chars(label, &l, CVT_ATOM | CVT_STRING | REP_UTF8 | CVT_EXCEPTION))
		return FALSE;
	if (!PL_get_chars(file, &f, CVT_ATOM | CVT_STRING | REP_UTF8))
		f = NULL;
	if (!PL_get_integer(line, &ln) || ln < 0)
		ln = 0;
	cgc_func *fn = cgc_register(l, f, (unsigned)ln);
	if (!fn)
		return PL_resource_error("memory");
	if (noprofile(l))
		cgc_noprofile(fn);
	return PL_unify_int64(func, (int64_t)(intptr_t)fn);
}

static int get_count(term_t t, int64_t *v)
{
	return PL_get_int64_ex(t, v) && (*v >= 0 || PL_domain_error("not_less_than_zero", t));
}

static foreign_t cg_enter(term_t func, term_t calls, term_t redos, term_t recur)
{
	int64_t f, c, r, x;
	if (!PL_get_int64_ex(func, &f) || !get_count(calls, &c) || !get_count(redos, &r) ||
	    !get_count(recur, &x))
		return FALSE;
	if (depth == cap) {
		size_t ncap = cap ? cap * 2 : 256;
		cgc_node **p = realloc(parents, ncap * sizeof *p);
		if (!p)
			return PL_resource_error("memory");
		parents = p;
		cap = ncap;
	}
	cgc_func *fn = (cgc_func *)(intptr_t)f;
	cgc_node *parent = cgc_current();
	parents[depth++] = parent;
	/* A context SWI created has at least one call; one without (its
	 * counters reset) is still entered so its callees have a place. */
	cgc_node *me = cgc_call(fn);
	for (int64_t i = 1; i < c; i++) {
		cgc_exit(parent);
		me = cgc_call(fn);
	}
	for (int64_t i = 0; i < x; i++)
		cgc_call(fn);  /* fn calling itself: a recursive entry */
	for (int64_t i = 0; i < r; i++)
		cgc_redo(me);
	return TRUE;
}

static foreign_t cg_leave(void)
{
	if (depth > 0)
		cgc_exit(parents[--depth]);
	return TRUE;
}

install_t install_cgswipl(void);

__attribute__((visibility("default"))) install_t install_cgswipl(void)
{
	PL_register_foreign("cg_func", 4, cg_func, 0);
	PL_register_foreign("cg_enter", 4, cg_enter, 0);
	PL_register_foreign("cg_leave", 0, cg_leave, 0);
}
