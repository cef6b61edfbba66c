/*
 * cgcollect.h — the API of libcgcollect, the hierarchical (calling-context
 * tree) collector of the callgraph toolkit.
 *
 * C programs need none of this: build them with -finstrument-functions and
 * run them under cgrun(1) (or link libcgcollect.a).  The functions below are
 * for interpreters and other runtimes that want their own functions (Prolog
 * predicates, Lua functions, regex goals) in the profile, the way
 * SWI-Prolog's profCall/profExit/profRedo work.
 *
 * Model: each thread has its own tree whose nodes stand for one function at
 * one calling context.  The thread has a *current node*.  cgc_call() moves
 * to the child of the current node for the function (creating it once) and
 * returns it; the runtime keeps that node in its frame and later passes the
 * node it wants to resume to cgc_exit() or cgc_redo(), so exits need no
 * search.  Direct recursion stays in one node; mutual recursion is folded
 * into a link to the ancestor the first time the context is created.
 *
 * All functions are async-signal-unsafe except where noted, never fail in a
 * way that hurts the program (out of memory stops the collection and the
 * file says so), and act on the calling thread's tree unless noted.
 * The profile is written at exit to $CGCOLLECT_OUTPUT (default cgtree.out)
 * in the cgtree format (docs/cgtree.md); see libcgcollect(3).
 */
#ifndef CGCOLLECT_H
#define CGCOLLECT_H

#ifdef __cplusplus
extern "C" {
#endif

#define CGC_VERSION "0.1.0"

typedef struct cgc_func cgc_func;   /* a registered function; lives forever */
typedef struct cgc_node cgc_node;   /* a call-tree node; lives until exit */

/* ---- functions ----------------------------------------------------------- */

/* Registers a function of the runtime.  `file` may be NULL, `line` 0.
 * Strings are copied.  Registering the same name/file/line twice gives two
 * functions (cache the handle).  NULL only when out of memory. */
cgc_func *cgc_register(const char *name, const char *file, unsigned line);

/* Makes f transparent (SWI-Prolog's noprofile/1): calls to it create no
 * node; its time stays with its caller and its callees hang under the
 * caller.  Takes effect for contexts created afterwards. */
void cgc_noprofile(cgc_func *f);

/* Makes the C function called `name` transparent (as CGCOLLECT_NOPROFILE
 * does); returns 0, or -1 when no loaded object defines it. */
int cgc_noprofile_name(const char *name);

/* ---- ports --------------------------------------------------------------- */

/* Enters f from the current node; returns the node now current (the
 * caller's own node when f is transparent or profiling is disabled).
 * Keep it in the callee's frame. */
cgc_node *cgc_call(cgc_func *f);

/* Leaves the current function (success or failure) and resumes `resume`,
 * the node the caller's frame kept (what cgc_call returned to it, or
 * cgc_current() at its start). */
void cgc_exit(cgc_node *resume);

/* Re-enters, by backtracking, the frame whose node is `node` (counts a
 * redo there and makes it current). */
void cgc_redo(cgc_node *node);

/* The current node of the calling thread (the root before any call). */
cgc_node *cgc_current(void);

/* ---- control ------------------------------------------------------------- */

/* Zeroes every counter of every thread (nodes stay, so saved node pointers
 * remain valid; contexts left at zero are not written). */
void cgc_reset(void);
/* Stops / restarts counting calls and ticks in every thread. */
void cgc_disable(void);
void cgc_enable(void);
int cgc_enabled(void);

/* Writes the profile now (atomically: temporary file + rename) to `path`,
 * or to the configured output when path is NULL.  0 or -1 (errno set). */
int cgc_dump(const char *path);

#ifdef __cplusplus
}
#endif
#endif
