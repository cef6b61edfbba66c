/*
 * callgraph/model.h — the profile model of libcallgraph.
 *
 * A cg_profile owns everything it holds: one arena, one string table.
 * Nothing in it points into a reader's buffer, and cg_profile_free()
 * releases it all in one call.
 *
 * Invariants:
 *  - Events are declared before any cost is stored (cg_profile_add_event
 *    fails with CG_EUSAGE afterwards).  A cost is a vector of
 *    cg_profile_event_count() 64-bit integers in the events' units.
 *  - Functions are numbered 0..n-1 in the order they were added; the
 *    numbering never changes (transforms build new profiles or mark
 *    functions, they do not renumber in place).
 *  - Every profile has at least one part (part 0, created by
 *    cg_profile_new).  Self costs, arcs and the call tree live in a part;
 *    functions and events are shared by all parts.
 *  - Arcs of a part are kept in the order they were first added; adding an
 *    existing (caller, callee) pair adds to it.
 *  - Node 0 of every part's call tree is the root: it stands for no
 *    function (func == CG_NO_FUNC) and carries no cost.
 *  - Strings returned by the model live as long as the profile.
 *
 * Thread safety: a profile has no hidden shared state: any number of
 * threads may read one profile at once, and different profiles may be
 * modified in parallel; modifying one profile needs the caller's lock.
 */
#ifndef CALLGRAPH_MODEL_H
#define CALLGRAPH_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include "callgraph/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int64_t cg_cost;
typedef uint32_t cg_fid;          /* function index */
typedef uint32_t cg_nid;          /* call-tree node index within a part */
#define CG_NO_FUNC ((cg_fid)UINT32_MAX)
#define CG_NO_NODE ((cg_nid)UINT32_MAX)
#define CG_MAX_EVENTS 32

typedef struct cg_profile cg_profile;

/* ---- events (cost kinds) ------------------------------------------------ */

typedef struct cg_event {
	const char *name;        /* short id, no spaces: "samples", "us", "calls", "Ir" */
	const char *description; /* long name for humans, may equal name */
	/* Seconds per unit when the event measures time (0.01 for 100 Hz
	 * samples, 1e-6 for microseconds); 0 when it does not. */
	double unit_seconds;
} cg_event;

/* ---- functions ---------------------------------------------------------- */

enum cg_function_flags {
	CG_FN_HAS_ADDR     = 1u << 0,  /* addr/end are valid */
	CG_FN_STATIC       = 1u << 1,  /* file-local symbol (gprof prints it with its file) */
	CG_FN_IS_FUNC      = 1u << 2,  /* ELF STT_FUNC (as opposed to a label) */
	CG_FN_TRANSPARENT  = 1u << 3,  /* marked noprofile; removed by cg_transparent_apply */
	CG_FN_SYNTHETIC    = 1u << 4,  /* not real code: <spontaneous>, suspend, garbage_collect */
	CG_FN_SPONTANEOUS  = 1u << 5   /* the "called from nowhere" pseudo caller */
};

typedef struct cg_function {
	const char *name;    /* never NULL, interned */
	const char *object;  /* executable/library path or Erlang node; NULL unknown */
	const char *file;    /* source file; NULL unknown */
	uint32_t line;       /* 0 unknown */
	uint32_t flags;      /* cg_function_flags */
	uint64_t addr;       /* first address (CG_FN_HAS_ADDR) */
	uint64_t end;        /* one past the last address, 0 unknown */
} cg_function;

/* ---- arcs --------------------------------------------------------------- */

typedef struct cg_arc {
	cg_fid caller;       /* may be a CG_FN_SPONTANEOUS function */
	cg_fid callee;
	uint64_t count;      /* number of calls */
	/* Inclusive cost of the calls (event vector) or NULL when the input
	 * does not know it (gmon: gprof derives it by propagation). */
	cg_cost *inclusive;
	uint32_t line;       /* call-site line in the caller's file, 0 unknown */
	uint32_t reserved;
	/* The callee's self cost while called from this caller (event
	 * vector), or NULL when the input does not know it: fprof's OWN per
	 * (caller, function) row.  Most inputs know self cost only per
	 * function (cg_profile_self). */
	cg_cost *self;
} cg_arc;

/* ---- call tree (calling-context tree) ------------------------------------ */

typedef struct cg_node {
	cg_fid func;         /* CG_NO_FUNC for the root */
	cg_nid parent;       /* CG_NO_NODE for the root */
	cg_nid first_child;  /* CG_NO_NODE if none */
	cg_nid next_sibling; /* CG_NO_NODE if none */
	/* When the node folds recursion it is a link to the ancestor node that
	 * stands for the same function; calls through it are counted here in
	 * `calls` but costs live at the ancestor.  CG_NO_NODE otherwise. */
	cg_nid recursion_target;
	uint32_t reserved;
	uint64_t calls;      /* entries from the parent context */
	uint64_t redos;      /* re-entries by backtracking (redo port) */
	uint64_t recursive;  /* direct recursive entries folded into this node */
	cg_cost *self;       /* event vector, never NULL once the node exists */
} cg_node;

/* ---- life cycle ---------------------------------------------------------- */

CG_EXTERN int cg_profile_new(cg_profile **out);
CG_EXTERN void cg_profile_free(cg_profile *profile);

/* Copy every string into the profile's string table; returns the interned
 * copy (equal strings give equal pointers) or NULL on out-of-memory. */
CG_EXTERN const char *cg_profile_intern(cg_profile *profile, const char *s);
CG_EXTERN const char *cg_profile_intern_len(cg_profile *profile, const char *s, size_t len);

/* Frees the lookup tables that only adding to the profile needs (the
 * function identities, the arcs by caller and callee, the call tree's
 * children): a profile that is read from then on takes less memory (two
 * 200k-function profiles: 40 MB).  Nothing else changes; adding to the
 * profile or cg_profile_find_arc rebuilds what it needs. */
CG_EXTERN void cg_profile_compact(cg_profile *profile);

/* Arena allocation owned by the profile (zeroed, 16-byte aligned). */
CG_EXTERN void *cg_profile_alloc(cg_profile *profile, size_t size);

/* ---- metadata (key/value, e.g. "cmd", "creator", "executable", "hz") ---- */

CG_EXTERN int cg_profile_set_meta(cg_profile *profile, const char *key, const char *value);
/* NULL when absent. */
CG_EXTERN const char *cg_profile_meta(const cg_profile *profile, const char *key);
CG_EXTERN size_t cg_profile_meta_count(const cg_profile *profile);
CG_EXTERN void cg_profile_meta_at(const cg_profile *profile, size_t i,
				  const char **key, const char **value);

/* ---- gmon histogram facts ----------------------------------------------- */

/* What a gmon.out reader learnt beyond costs, in the exact form gprof
 * computes with: the gprof engine needs these very doubles to print
 * byte-identical reports.  Profiles from other inputs have none. */
typedef struct cg_gmon_info {
	int has_histogram;          /* a histogram record was read */
	int has_arcs;               /* an arc record was read (BSD files: always) */
	int has_bb;                 /* a basic-block record was read */
	int version;                /* version of the last GNU file read, 0 BSD */
	const char *dimension;      /* "seconds"; interned, never NULL once set */
	const char *dimension_abbrev; /* "s" */
	double scale;               /* gprof's hist_scale (UNITs per bin); 0 without histogram */
	double total_time;          /* gprof's total_time in ticks after the flat
				     * tables (interleaved order of operations) */
	uint64_t total_samples;     /* sum of all bin counts: total_time before
				     * flat-table exclusions */
} cg_gmon_info;

/* Copies *info into the profile (strings interned; NULL dimension strings
 * become "seconds" and "s"); info NULL removes it.  0 or CG_ENOMEM. */
CG_EXTERN int cg_profile_set_gmon_info(cg_profile *profile, const cg_gmon_info *info);
/* NULL when the profile did not come from gmon.out (or a file that kept
 * the facts, such as the XML image of one).  Borrowed, lives as long as
 * the profile. */
CG_EXTERN const cg_gmon_info *cg_profile_gmon_info(const cg_profile *profile);

/* ---- what a collector says about its own run ------------------------------ *
 * A profiler that measures itself (our collector, in cgtree files) reports
 * how much of what it saw was its own overhead, what it could not charge,
 * and whether it ran to the end.  Reports must show this: a profile whose
 * collector spent 60% of the ticks in itself, or stopped early for lack of
 * memory, is not the same evidence as a clean one. */

enum cg_run_flags {
	CG_RUN_OOM      = 1u << 0,  /* the collector ran out of memory: data stops early */
	CG_RUN_OVERFLOW = 1u << 1,  /* call depth beyond the collector's stack: data stops early */
	CG_RUN_KILLED   = 1u << 2,  /* the program died of a signal (written in the handler) */
	CG_RUN_PARTIAL  = 1u << 3   /* a snapshot or dump of a program still running */
};

typedef struct cg_run_info {
	uint64_t samples;    /* timer ticks taken (0 when costs are call counts) */
	uint64_t overhead;   /* ticks that landed in the collector itself */
	uint64_t lost;       /* ticks that could not be charged to any function */
	uint64_t resyncs;    /* shadow-stack repairs after longjmp */
	unsigned threads;    /* threads reported */
	unsigned threads_cut;  /* threads whose data stops early (OOM, OVERFLOW) */
	unsigned flags;      /* enum cg_run_flags */
	char ending[64];     /* how the run ended, as the collector wrote it
	                      * ("exit 0", "signal 15 SIGTERM", "snapshot 2"), or "" */
} cg_run_info;

/* The profile's run report, or NULL when its source had none. */
CG_EXTERN const cg_run_info *cg_profile_run_info(const cg_profile *profile);
/* Adds a report to the profile's: counts and flags are summed, the first
 * ending is kept.  Merges and transforms use it to carry the report along.
 * 0 or CG_ENOMEM. */
CG_EXTERN int cg_profile_add_run_info(cg_profile *profile, const cg_run_info *info);
/* Nonzero when the report says the numbers cannot be trusted as a whole
 * profile: some thread's data stops early, or the collector's own overhead
 * is at least `overhead_share` (0..1) of the samples. */
CG_EXTERN int cg_run_info_suspect(const cg_run_info *info, double overhead_share);
/* The share of collector overhead from which the tools warn (10%). */
#define CG_RUN_OVERHEAD_WARN 0.10
/* A one-line summary for people ("collector: 5715 samples, 3897 (68.2%) its
 * own overhead, 12 lost; thread data cut short (out of memory) in 1 of 2
 * threads; ended by signal 15 SIGTERM"), without a newline.  Returns
 * snprintf's count. */
CG_EXTERN int cg_run_info_format(const cg_run_info *info, char *buf, size_t size);

/* ---- events ------------------------------------------------------------- */

/* Returns the new event's index (>= 0) or a negative CG_E* code. */
CG_EXTERN int cg_profile_add_event(cg_profile *profile, const char *name,
				   const char *description, double unit_seconds);
CG_EXTERN size_t cg_profile_event_count(const cg_profile *profile);
CG_EXTERN const cg_event *cg_profile_event(const cg_profile *profile, size_t i);
/* Index of the event with that name, or -1. */
CG_EXTERN int cg_profile_find_event(const cg_profile *profile, const char *name);

/* ---- functions ------------------------------------------------------------ */

/* Always adds a new function (strings in `fn` are interned by copy). */
CG_EXTERN int cg_profile_add_function(cg_profile *profile, const cg_function *fn,
				      cg_fid *out);
/* Finds the function with this identity (name, object, file — pointer or
 * string equality, NULL matching NULL) or adds it. */
CG_EXTERN int cg_profile_intern_function(cg_profile *profile, const char *name,
					 const char *object, const char *file,
					 cg_fid *out);
CG_EXTERN size_t cg_profile_function_count(const cg_profile *profile);
/* Borrowed; valid until the next function is added. Readers may update
 * line/flags/addr through it. */
CG_EXTERN cg_function *cg_profile_function(const cg_profile *profile, cg_fid f);

/* ---- parts (threads, processes, files) ----------------------------------- */

CG_EXTERN size_t cg_profile_part_count(const cg_profile *profile);
/* Adds an empty part named `name` ("pid 1234", "<0.80.0>", "thread 2"). */
CG_EXTERN int cg_profile_add_part(cg_profile *profile, const char *name, unsigned *out);
CG_EXTERN const char *cg_profile_part_name(const cg_profile *profile, unsigned part);
CG_EXTERN int cg_profile_set_part_name(cg_profile *profile, unsigned part, const char *name);

/* Key/value pairs of one part, e.g. the Erlang process record of an fprof
 * part ("spawned_by", "spawned_as", "initial_calls").  They belong to the
 * part, so they follow it through cg_profile_merge_into (parts matched by
 * name) and the XML image.  A part has few of them: lookups scan. */
CG_EXTERN int cg_profile_set_part_meta(cg_profile *profile, unsigned part, const char *key,
				       const char *value);
/* NULL when absent or part does not exist. */
CG_EXTERN const char *cg_profile_part_meta(const cg_profile *profile, unsigned part,
					   const char *key);
CG_EXTERN size_t cg_profile_part_meta_count(const cg_profile *profile, unsigned part);
CG_EXTERN void cg_profile_part_meta_at(const cg_profile *profile, unsigned part, size_t i,
				       const char **key, const char **value);

/* ---- self cost and per-function totals ----------------------------------- */

/* Adds `costs` (an event vector) to the self cost of f in part. */
CG_EXTERN int cg_profile_add_self(cg_profile *profile, unsigned part, cg_fid f,
				  const cg_cost *costs);
/* Event vector of f's self cost in part; all zeros if nothing was stored.
 * Borrowed, valid until the next function is added. */
CG_EXTERN const cg_cost *cg_profile_self(const cg_profile *profile, unsigned part, cg_fid f);

/* Exact (fractional) self cost of event 0, for inputs whose self cost is
 * not an integer: gprof's histogram splits bins between functions in
 * floating point, and byte-identical reports need that very double.
 * Setting it marks the part as having exact values; readers of parts
 * without them get (double)self[0]. */
CG_EXTERN int cg_profile_set_self_exact(cg_profile *profile, unsigned part, cg_fid f, double v);
CG_EXTERN double cg_profile_self_exact(const cg_profile *profile, unsigned part, cg_fid f);
CG_EXTERN int cg_profile_has_self_exact(const cg_profile *profile, unsigned part);

/* Inclusive cost of f when the input knows it exactly (fprof ACC, call
 * tree); cg_profile_inclusive returns NULL when unknown. */
CG_EXTERN int cg_profile_set_inclusive(cg_profile *profile, unsigned part, cg_fid f,
				       const cg_cost *costs);
CG_EXTERN const cg_cost *cg_profile_inclusive(const cg_profile *profile, unsigned part, cg_fid f);

/* Number of times f was called, when known independently of the arcs
 * (fprof CNT, calls from outside the profiled range).  UINT64_MAX unknown. */
CG_EXTERN int cg_profile_set_calls(cg_profile *profile, unsigned part, cg_fid f, uint64_t calls);
CG_EXTERN uint64_t cg_profile_calls(const cg_profile *profile, unsigned part, cg_fid f);

/* ---- arcs ----------------------------------------------------------------- */

/* Adds `count` calls caller->callee in part, and `inclusive` (event vector,
 * may be NULL) to the arc's inclusive cost.  Returns the arc's index in
 * *out_index if not NULL. */
CG_EXTERN int cg_profile_add_arc(cg_profile *profile, unsigned part, cg_fid caller,
				 cg_fid callee, uint64_t count, const cg_cost *inclusive,
				 size_t *out_index);
/* Adds `self` (an event vector) to the per-caller self cost of arc
 * `index` of part (see cg_arc.self).  It does not change the callee's
 * self cost: readers store that with cg_profile_add_self as well.  Part
 * and profile merges add it up like the arcs' inclusive costs; transforms
 * that rebuild arcs drop it. */
CG_EXTERN int cg_profile_add_arc_self(cg_profile *profile, unsigned part, size_t index,
				      const cg_cost *self);
CG_EXTERN size_t cg_profile_arc_count(const cg_profile *profile, unsigned part);
/* Borrowed, valid until the next arc is added to that part. */
CG_EXTERN cg_arc *cg_profile_arc(const cg_profile *profile, unsigned part, size_t i);
/* Index of the arc caller->callee in part, or -1. */
CG_EXTERN long cg_profile_find_arc(const cg_profile *profile, unsigned part, cg_fid caller,
				   cg_fid callee);

/* ---- positions: where inside a function the cost was spent ---------------- *
 * Optional, and stored only when a reader supplies them (Callgrind's
 * `positions: instr line`; XML).  A function's self cost may be split by
 * position and an arc by call site.  Everything that only knows functions
 * keeps reading cg_profile_self and cg_arc: the positions of a function
 * always add up to its self cost, the call sites of an arc to its count
 * and inclusive cost (cg_profile_check_positions verifies it; the adders
 * below keep it by adding to both).  Merges carry positions; cost merged
 * from a side that had none is put at the function's own line (the arc's
 * line for calls), so the sums still hold.  Transforms that rebuild arcs
 * drop call sites. */

enum cg_position_kinds {
	CG_POS_LINE  = 1u << 0,   /* source lines */
	CG_POS_INSTR = 1u << 1    /* instruction addresses */
};

typedef struct cg_position {
	uint64_t addr;       /* instruction address, 0 unknown */
	uint32_t line;       /* source line, 0 unknown */
	uint32_t reserved;   /* 0 */
	/* The line's file when it is not the function's own (inlined code,
	 * Callgrind's fi=/fe=); NULL means the function's file.  Interned by
	 * the adders. */
	const char *file;
} cg_position;

/* Adds `costs` to f's self cost (as cg_profile_add_self) and to its cost
 * at *pos.  0, CG_EUSAGE, CG_ENOMEM or CG_EFORMAT (a sum past 2^63-1:
 * nothing changed). */
CG_EXTERN int cg_profile_add_self_at(cg_profile *profile, unsigned part, cg_fid f,
				     const cg_position *pos, const cg_cost *costs);
/* Walks f's self cost per position in part, in the order the positions
 * were first added: start with *cursor = 0; returns 1 and sets *pos and
 * *costs (borrowed event vector) while there are more, then 0.  A
 * function without positions yields none. */
CG_EXTERN int cg_profile_next_self_position(const cg_profile *profile, unsigned part, cg_fid f,
					    size_t *cursor, cg_position *pos,
					    const cg_cost **costs);
/* Adds `count` calls and `inclusive` (may be NULL: zeros) made at call
 * site *site to the arc caller->callee, like cg_profile_add_arc. */
CG_EXTERN int cg_profile_add_arc_at(cg_profile *profile, unsigned part, cg_fid caller,
				    cg_fid callee, const cg_position *site, uint64_t count,
				    const cg_cost *inclusive, size_t *out_index);
/* Walks the call sites of arc `index` of part, like
 * cg_profile_next_self_position; *inclusive is an event vector. */
CG_EXTERN int cg_profile_next_arc_site(const cg_profile *profile, unsigned part, size_t index,
				       size_t *cursor, cg_position *site, uint64_t *count,
				       const cg_cost **inclusive);
/* Nonzero when some function or arc of part has positions. */
CG_EXTERN int cg_profile_has_positions(const cg_profile *profile, unsigned part);
/* The kinds of positions the profile's input knew (cg_position_kinds):
 * what a reader declared, or'ed with what the stored positions show. */
CG_EXTERN unsigned cg_profile_position_kinds(const cg_profile *profile);
CG_EXTERN void cg_profile_declare_position_kinds(cg_profile *profile, unsigned kinds);
/* Checks that every function's positions add up to its self cost and
 * every arc's call sites to its count and inclusive cost; CG_EFORMAT and
 * "NAME: ..." naming the function when not. */
CG_EXTERN int cg_profile_check_positions(const cg_profile *profile, const char *name,
					 cg_error *err);

/* ---- call tree ------------------------------------------------------------ */

/* Number of nodes in part's tree: 0 when the part has no tree, else >= 1
 * (the root). */
CG_EXTERN size_t cg_profile_node_count(const cg_profile *profile, unsigned part);
/* Finds the child of `parent` for function f or creates it (creating the
 * root first if the part has no tree).  Use CG_NO_NODE as parent... never:
 * the root is node 0. */
CG_EXTERN int cg_profile_node_child(cg_profile *profile, unsigned part, cg_nid parent,
				    cg_fid f, cg_nid *out);
/* Always creates a new child (readers of files that list nodes in order). */
CG_EXTERN int cg_profile_node_add(cg_profile *profile, unsigned part, cg_nid parent,
				  cg_fid f, cg_nid *out);
/* Borrowed, valid until the next node is added to that part. */
CG_EXTERN cg_node *cg_profile_node(const cg_profile *profile, unsigned part, cg_nid n);

/* ---- whole-profile operations ------------------------------------------- */

/* Fills, for every part that has a call tree, the per-function self costs,
 * the arcs (with call counts and exact inclusive costs) and per-function
 * inclusive costs from the tree.  Inclusive cost is charged only where a
 * function is the outermost instance of itself on the path, so recursion
 * is never counted twice.  Existing self costs and arcs of those parts are
 * replaced. */
CG_EXTERN int cg_profile_derive_from_tree(cg_profile *profile, cg_error *err);

/* Returns a new profile with one part holding the sum of all parts of
 * `profile` (self, arcs, inclusive, calls, call trees merged by path). */
CG_EXTERN int cg_profile_merge_parts(cg_profile **out, const cg_profile *profile, cg_error *err);

/* Sum of self costs over all functions of part (event vector written to
 * `totals`, which must hold cg_profile_event_count() entries). */
CG_EXTERN void cg_profile_part_totals(const cg_profile *profile, unsigned part, cg_cost *totals);

#ifdef __cplusplus
}
#endif
#endif
