/*
 * fprof_profile.h — fprof's profiling phase (internal).
 *
 * Replays trace events the way `fprof:profile` does (docs/fprof.md, "The mapping into the model"): one
 * simulated two-dimensional stack per process (levels of tail-call
 * chains), and a table of counters per (process, caller, function):
 * CNT, OWN and ACC in microseconds.  Alongside, a calling-context tree
 * of the simulated frames (levels) carrying OWN and call counts.
 *
 * Cost: O(1) amortised per event.  ACC uses the "deepest occurrence"
 * formulation: an entry is charged only when no other entry of the same
 * function lies below it, tested with a per-(process, function) count of
 * entries on the stack; `return_to` finds its level with a per-(process,
 * function) count of level fronts instead of walking the stack.
 *
 * Memory: live stacks + the result table + the tree, never the number of
 * events.
 */
#ifndef CG_FPROF_PROFILE_H
#define CG_FPROF_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "fprof_term.h"
#include "hashmap.h"

#define FP_NONE UINT32_MAX

/* Predefined function ids. */
enum { FP_UNDEFINED = 0, FP_SUSPEND = 1, FP_GC = 2 };


typedef struct fp_func {
	const char *module, *function;   /* UTF-8; NULL for the pseudo functions */
	uint32_t mlen, flen;
	uint32_t arity;
	const char *name;                /* "M:F/A" with Erlang quoting, or the atom */
	uint32_t model_fid;              /* filled when the model is built */
} fp_func;

typedef struct fp_entry {
	uint32_t fid;
	uint32_t node;   /* context-tree node, FP_NONE until charged */
	int64_t ts;
	/* Tail-call chains (levels) longer than FP_GRAM entries index the
	 * FP_GRAM-gram of function ids starting at each entry (towards older
	 * entries): gh is its hash (0: none), gprev the nearest older entry of
	 * the level with the same gram (FP_NONE: none). */
	uint64_t gh;
	uint64_t ph;              /* polynomial hash of the level's functions up to here */
	uint32_t gprev;
	uint32_t count;           /* index of this (process, function)'s fp_count */
	uint32_t row, rcaller;    /* last row charged and its caller (a cache) */
} fp_entry;

#define FP_GRAM 16

/* (level start, gram hash) -> newest entry with that gram, one table per
 * process (small slots, and one long chain does not spread over the
 * other processes' keys). */
typedef struct fp_gram_slot {
	uint64_t gh;
	uint32_t start, entry;   /* entry + 1; 0 = empty slot */
} fp_gram_slot;

typedef struct fp_proc {
	char pid[48];          /* "<0.9.0>" */
	uint32_t id, serial;   /* for Erlang's pid order */
	const char *node;      /* node name (UTF-8) */
	int defined;           /* the stack exists (fprof: get(Pid) =/= undefined) */
	fp_entry *ent;         /* bottom first */
	uint32_t nent, cap;
	uint32_t *lvl;         /* start index of each level in ent, bottom level first */
	uint32_t nlvl, lcap;
	/* process record, for processes spawned during the trace */
	int has_record;
	uint32_t parent;       /* proc index */
	fprof_term *spawned_as;
	uint32_t init_log[2];
	int init_n, init_cnt;
	uint32_t root;         /* context-tree root node */
	fp_gram_slot *grams;   /* gram index of this process's levels */
	uint32_t ngrams, capgrams;
	int has_rows;
} fp_proc;

typedef struct fp_row {
	uint32_t proc, caller, func;
	uint64_t cnt;
	int64_t own, acc;
} fp_row;

typedef struct fp_node {
	uint32_t parent, fid, proc;
	uint32_t memo_fid, memo_child;   /* last child looked up (a cache) */
	uint64_t calls;
	int64_t self;
	int64_t wait;      /* ACC charged to `suspend` in this context */
} fp_node;

typedef struct fp_count {
	uint32_t proc, fid;
	uint32_t entries, fronts;
} fp_count;

typedef struct fp_state {
	fprof_arena arena;
	fp_func *funcs;    size_t nfuncs, capfuncs;  struct cg_hashmap func_ix;
	fp_proc *procs;    size_t nprocs, capprocs;  struct cg_hashmap proc_ix;
	fp_row *rows;      size_t nrows, caprows;    struct cg_hashmap row_ix;
	fp_node *nodes;    size_t nnodes, capnodes;  struct cg_hashmap node_ix;
	fp_count *counts;  size_t ncounts, capcounts; struct cg_hashmap count_ix;
	/* direct-mapped memos in front of row_ix and count_ix (index + 1;
	 * 0 = empty): most lookups repeat a recent key */
	struct { uint32_t proc, caller, func, row; } row_memo[1024];
	struct { uint32_t proc, fid, count; } count_memo[1024];
	int have_first;
	int64_t first_ts, last_ts;
	uint64_t handled;      /* messages handled (fprof's count) */
	int oom;
} fp_state;

int cg_fp_init(fp_state *st);
void cg_fp_release(fp_state *st);

/* Interning.  Names are UTF-8. Returns FP_NONE on out-of-memory. */
uint32_t cg_fp_func_intern(fp_state *st, const char *m, size_t mlen, const char *f, size_t flen,
			uint32_t arity);
uint32_t cg_fp_proc_intern(fp_state *st, const char *node, size_t nodelen, uint32_t id,
			uint32_t serial, uint32_t creation);

/* Events.  Each returns 0, CG_ENOMEM, or FP_EINCONSISTENT when the stack
 * does not fit the event (fprof's inconsistent_trace_data; nothing was
 * changed then).  cp / fid may be FP_UNDEFINED. */
#define FP_EINCONSISTENT 1
int cg_fp_call(fp_state *st, uint32_t proc, uint32_t fid, uint32_t cp, int64_t ts);
int cg_fp_return_to(fp_state *st, uint32_t proc, uint32_t fid, int64_t ts);
int cg_fp_spawn(fp_state *st, uint32_t child, uint32_t parent, uint32_t mfa, fprof_term *args_mfa,
	     int64_t ts);
int cg_fp_exit(fp_state *st, uint32_t proc, int64_t ts);
int cg_fp_out(fp_state *st, uint32_t proc, uint32_t fid, int64_t ts);
int cg_fp_in(fp_state *st, uint32_t proc, uint32_t fid, int64_t ts);
int cg_fp_gc_start(fp_state *st, uint32_t proc, int64_t ts);
int cg_fp_gc_end(fp_state *st, uint32_t proc, int64_t ts);
/* Records a successfully handled message's timestamp (first/last). */
void cg_fp_handled(fp_state *st, int64_t ts);
/* End of trace: closes every process's stack at `ts` (fprof's end_of_trace). */
int cg_fp_finish(fp_state *st, int64_t ts);

/* Deepest live stack, for the memory bound checks in tests. */
size_t cg_fp_max_depth(const fp_state *st);

/* fprof's trace_call_collapse decision, written as fprof does it (for
 * tests): y[0] is the newest entry's function, y[len-1] the oldest of the
 * level; returns k (drop y[0..k-1]) or 0 (keep). */
uint32_t cg_fp_collapse_reference(const uint32_t *y, uint32_t len);

#endif
