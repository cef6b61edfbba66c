/*
 * collect_internal.h — shared state of libcgcollect (not installed).
 *
 * Threading: every thread owns its tree, arena and shadow stack and is the
 * only writer of them, except the tick counter of a node, which the
 * thread's own signal handler bumps.  Nodes are fully built before they are
 * published (release store into the parent's child list) and are never
 * freed or moved until the process ends, so the handler and a dump running
 * in another thread only ever see whole nodes.  The registry of threads is
 * guarded by g_lock.
 */
#ifndef CGCOLLECT_INTERNAL_H
#define CGCOLLECT_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "cgcollect.h"

/* Everything the collector runs lives in its own section, so a tick whose
 * PC lands there is charged to "overhead" (the distortion figure). */
#define CGC_TEXT __attribute__((no_instrument_function, section("cgc_text")))
#define CGC_COLD __attribute__((no_instrument_function, section("cgc_text"), noinline, cold))
#define CGC_HIDDEN __attribute__((visibility("hidden")))
#define CGC_LIKELY(x) __builtin_expect(!!(x), 1)
#define CGC_UNLIKELY(x) __builtin_expect(!!(x), 0)

enum cgc_node_kind {
	CGC_NODE_LINK   = 1u << 0,  /* folds recursion: target is an ancestor */
	CGC_NODE_HIDDEN = 1u << 1,  /* transparent function: target is the parent */
	CGC_NODE_API    = 1u << 2,  /* fn is a cgc_func *, not a code address */
	CGC_NODE_KEEP   = 1u << 3   /* dump: subtree has a nonzero counter */
};

/* The fields the enter hook touches come first, in one cache line (nodes
 * are allocated 64-byte aligned). */
struct cgc_node {
	uintptr_t fn;                 /* code address or (uintptr_t)cgc_func * */
	struct cgc_node *hot;         /* child used last, or &cgc_no_child: never NULL */
	struct cgc_node *target;      /* where calls land: self, ancestor, parent */
	uint64_t calls;
	uint64_t recursive;
	struct cgc_node *parent;
	struct cgc_node *first_child; /* newest first; published with release */
	struct cgc_node *next_sibling;
	struct cgc_node **table;      /* open-addressing child index, big fan-out */
	uint32_t nchildren;
	uint32_t table_cap;
	uint64_t redos;
	volatile uint64_t ticks;      /* bumped by the SIGPROF handler */
	uint64_t aux;                 /* dump scratch: calls arriving via links */
	uint32_t kind;                /* cgc_node_kind */
	uint32_t id;                  /* dump scratch: number in the file */
};

struct cgc_func {
	char *name;
	char *file;
	unsigned line;
	int noprofile;
	struct cgc_func *next;
};

/* One shadow-stack entry per instrumented activation.  The newest frame
 * holds the current context: an exit only pops, and the enter hook reads
 * its parent from the frame below instead of a per-thread "current"
 * variable, so consecutive hooks do not wait on each other's stores of it
 * (store-to-load forwarding is a chain of ~5 cycles per hook). */
struct cgc_frame {
	struct cgc_node *node;   /* context current while this frame is the newest */
	uintptr_t fn;
	uintptr_t sp;            /* machine stack pointer at entry (longjmp check) */
	uintptr_t site;          /* return address into the caller */
};

enum cgc_status { CGC_OK = 0, CGC_OOM = 1, CGC_OVERFLOW = 2 };

struct cgc_thread {
	struct cgc_thread *next;       /* registry, newest first */
	struct cgc_node root;          /* fn 0; its target is itself */
	char *arena, *arena_end;
	size_t arena_used;             /* bytes handed out, for CGCOLLECT_MEMORY */
	struct cgc_frame *stack;       /* stack[0] is the sentinel */
	size_t stack_frames;
	uint64_t samples, overhead, lost, resyncs;
	int status;                    /* cgc_status */
	int gone;                      /* belonged to the parent before fork */
	int has_timer;
	timer_t timer;
	void *altstack;                /* ours, for fatal signals; NULL if the thread had one */
	pid_t tid;
	unsigned index;                /* creation order, 0 = first thread */
	/* collect_lines.c: ticks per (context, instruction address) */
	struct cgc_pc_slot *pcs;       /* pcs_cap slots, NULL when not sampling lines */
	size_t pcs_cap;
	uint64_t unplaced;             /* ticks counted on a node without an address */
};

/* The hot state: one initial-exec TLS block per thread.  Not started or
 * stopped: sp and end are both &cgc_idle[1], whose frame below holds no
 * node and a machine stack pointer of 0, so the enter hook's longjmp test
 * sends it to the slow path without a test of its own. */
struct cgc_tls {
	struct cgc_frame *sp;      /* next free frame; sp[-1].node is current */
	struct cgc_frame *end;     /* one past the last usable frame */
	struct cgc_thread *th;
};

enum cgc_mode { CGC_MODE_CPU, CGC_MODE_WALL, CGC_MODE_CALLS };

#define CGC_PUBLIC __attribute__((visibility("default")))

extern _Thread_local struct cgc_tls cgc_tls CGC_HIDDEN __attribute__((tls_model("initial-exec")));
/* The bottom frame of every shadow stack (copied to stack[0]): its stack
 * pointer is above every real one, so it is never popped. */
extern struct cgc_frame cgc_sentinel[2] CGC_HIDDEN;
extern struct cgc_frame cgc_idle[2] CGC_HIDDEN;

/* Every shadow stack ends on a multiple of CGC_STACK_SPAN and holds at most
 * that many bytes, so it is full exactly when the next free frame's
 * address is such a multiple: the enter hook tests two bits of a register
 * it has, instead of loading the end. */
#define CGC_STACK_SPAN ((uintptr_t)1 << 25)
static inline int CGC_TEXT cgc_stack_full(const struct cgc_frame *sp)
{
	return ((uintptr_t)sp & (CGC_STACK_SPAN - 1)) == 0;
}
/* The child cache of a node that has none yet: its fn (0) matches no call,
 * so the hot path needs no NULL test. */
extern struct cgc_node cgc_no_child CGC_HIDDEN;

/* The current context of this thread: NULL when not started or stopped. */
static inline struct cgc_node *CGC_TEXT cgc_current_node(void)
{
	return cgc_tls.sp[-1].node;
}

/* Moves this thread's current context (the API's ports); only while it is
 * followed, so the shared idle frame is never written. */
static inline void CGC_TEXT cgc_set_current_node(struct cgc_node *n)
{
	if (cgc_tls.sp[-1].node)
		cgc_tls.sp[-1].node = n;
}
extern struct cgc_thread *g_threads CGC_HIDDEN;
extern int g_initialised CGC_HIDDEN;
extern pthread_mutex_t g_lock CGC_HIDDEN;
extern int g_mode CGC_HIDDEN;
extern unsigned g_hz CGC_HIDDEN;
extern volatile int g_enabled CGC_HIDDEN;
extern int g_forked CGC_HIDDEN;
extern size_t g_memory_limit CGC_HIDDEN;  /* per-thread tree bytes; 0 = none */
extern char g_output[4096] CGC_HIDDEN;
extern int g_output_fixed CGC_HIDDEN;
extern char *g_noprofile_names CGC_HIDDEN;  /* comma-separated, as given */
extern struct cgc_func *g_funcs CGC_HIDDEN;

/* collect.c: the tree */
void *cgc_map_zeroed(size_t size) CGC_HIDDEN;
/* A zeroed shadow stack of `frames` frames (at most CGC_STACK_SPAN bytes)
 * ending on a CGC_STACK_SPAN boundary; NULL when out of memory. */
struct cgc_frame *cgc_map_stack(size_t frames) CGC_HIDDEN;
/* Moves from `cur` into the context of fn (a code address, or a cgc_func *
 * when api); returns the node now current, NULL when out of memory. */
struct cgc_node *cgc_descend(struct cgc_node *cur, uintptr_t fn, int api) CGC_HIDDEN;
void cgc_zero_tree(struct cgc_node *root) CGC_HIDDEN;
int cgc_add_noprofile(uintptr_t addr) CGC_HIDDEN;

/* collect_thread.c: threads */
struct cgc_thread *cgc_thread_init(void) CGC_HIDDEN;
void cgc_stop_thread(struct cgc_thread *th, int status) CGC_HIDDEN;
/* A SIGPROF that sigtimedwait and the like dequeued for the program (it
 * waits for SIGPROF itself): when it is one of our ticks, charges it (with
 * its overrun) at site as the handler would and returns 1, so the caller
 * waits on; 0 when it is the program's.  Call with SIGPROF blocked. */
int cgc_tick_taken(const siginfo_t *si, uintptr_t site) CGC_HIDDEN;

/* collect_lines.c: where in a context the ticks landed (a side table, so
 * the node struct the hooks walk stays as it is). */
struct cgc_pc_slot {
	struct cgc_node *node;         /* NULL: free; published last */
	uintptr_t pc;                  /* interrupted instruction, run-time address */
	volatile uint64_t ticks;
};
struct cgc_lines_view {              /* a dump's sorted copy, by node then pc */
	struct cgc_pc_slot *v;
	size_t n, bytes;
};
extern unsigned g_lines_cap CGC_HIDDEN;
void cgc_lines_init(struct cgc_thread *th) CGC_HIDDEN;
/* From the SIGPROF handler: never allocates; a full table counts the
 * ticks as unplaced. */
void cgc_lines_tick(struct cgc_thread *th, struct cgc_node *n, uintptr_t pc,
		    uint64_t ticks) CGC_HIDDEN;
void cgc_lines_zero(struct cgc_thread *th) CGC_HIDDEN;
int cgc_lines_snapshot(struct cgc_thread *th, struct cgc_lines_view *view) CGC_HIDDEN;
/* The first entry of node n in the view and (*count) how many. */
size_t cgc_lines_find(const struct cgc_lines_view *view, const struct cgc_node *n,
		      size_t *count) CGC_HIDDEN;
void cgc_lines_release(struct cgc_lines_view *view) CGC_HIDDEN;

/* collect_file.c: creating the output safely (async-signal-safe) */
#define PATH_MAX_CGC 4096
enum cgc_file_how { CGC_FILE_TMPFILE, CGC_FILE_NAMED, CGC_FILE_IN_PLACE };
struct cgc_outfile {
	int fd;
	int dirfd;                 /* the destination's directory (O_PATH) */
	int how;                   /* cgc_file_how */
	int existed;               /* the destination was a regular file */
	mode_t old_mode;
	uid_t old_uid;
	gid_t old_gid;
	const char *base;          /* last component of path */
	char path[PATH_MAX_CGC];   /* destination, symlinks resolved */
	char tmpname[300];         /* random name in the directory */
};
extern int g_no_tmpfile CGC_HIDDEN;
/* Opens a file that will become `path`; -1 with errno set. */
int cgc_file_open(struct cgc_outfile *of, const char *path) CGC_HIDDEN;
/* Puts it in place (or removes every trace when failed); -1 with errno. */
int cgc_file_finish(struct cgc_outfile *of, int failed, int saved_errno) CGC_HIDDEN;
void cgc_file_cleanup_on_signal(void) CGC_HIDDEN;

/* collect_dump.c: writing the file.  How the run ended goes into the
 * file's trailer (`ended`). */
enum cgc_end_kind { CGC_END_DUMP, CGC_END_SNAPSHOT, CGC_END_EXIT, CGC_END__EXIT,
		    CGC_END_SIGNAL, CGC_END_EXEC };
struct cgc_ending {
	int kind;            /* cgc_end_kind */
	int value;           /* exit status, signal number, snapshot number */
	const char *detail;  /* exec: the program */
};
/* Writes the profile to path (NULL: the configured output).  in_signal:
 * called from a signal handler (no locks waited for indefinitely, no
 * refresh of the object list).  0, or -1 with errno set. */
int cgc_write_profile(const char *path, const struct cgc_ending *end, int in_signal) CGC_HIDDEN;
/* This thread is in the middle of writing a profile (a signal hit it). */
int cgc_dump_busy_here(void) CGC_HIDDEN;
void cgc_objects_refresh(void) CGC_HIDDEN;
const char *cgc_signame(int sig, char *buf, size_t size) CGC_HIDDEN;
extern char g_report[4096] CGC_HIDDEN;  /* CGCOLLECT_REPORT: cgrun's status file */

/* collect_signal.c: endings */
int cgc_sys_sigaction(int sig, const struct sigaction *act, struct sigaction *old) CGC_HIDDEN;
extern int (*cgc_real_sigaction)(int, const struct sigaction *, struct sigaction *) CGC_HIDDEN;
/* tick: the SIGPROF handler when sampling (SIGPROF is then chained like
 * the termination signals), NULL in calls mode. */
void cgc_signals_install(void (*tick)(int, siginfo_t *, void *)) CGC_HIDDEN;
/* The handler of the signals we chain: runs the program's disposition
 * (after the dump, for a fatal or terminating one); the tick handler
 * passes it the SIGPROFs that are not our ticks. */
void cgc_signal_forward(int sig, siginfo_t *si, void *uc) CGC_HIDDEN;
/* SIGPROF goes to our handler, the program's is chained: the sleep
 * wrappers may hold it pending. */
extern volatile int cgc_sigprof_chained CGC_HIDDEN;
/* sigaction as the program sees it (the preload's wrapper). */
int cgc_program_sigaction(int sig, const struct sigaction *act, struct sigaction *old) CGC_HIDDEN;
void cgc_altstack_init(struct cgc_thread *th) CGC_HIDDEN;
void cgc_altstack_free(struct cgc_thread *th) CGC_HIDDEN;
/* A final profile for an ending (exit, _exit, exec); skips forked children
 * that recorded nothing.  0 when a file was written. */
int cgc_final_dump(const struct cgc_ending *end) CGC_HIDDEN;
/* The configured output: %p expanded, .PID for a forked child, or what
 * the previous image asked for (CGCOLLECT_EXEC_FROM). */
void cgc_output_path(char *dst, size_t size) CGC_HIDDEN;
/* The snapshot thread (CGCOLLECT_INTERVAL). */
void cgc_snapshots_start(void) CGC_HIDDEN;
/* collect_elf.c: address of the function `name` in any loaded object, 0 if
 * none defines it. */
uintptr_t cgc_elf_lookup(const char *name) CGC_HIDDEN;

#endif
