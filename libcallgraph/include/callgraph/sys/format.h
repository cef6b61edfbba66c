/*
 * callgraph/sys/format.h — what it takes to add a profile format: the ops
 * table every reader and writer implements, and the input source they read.
 *
 * The formats built into libcallgraph (gmon, callgrind, xml, cgtree, fprof
 * traces and analyses, gprof text, folded, dot, ...) are registered through
 * exactly this table; a program adds its own with cg_format_register() and
 * then reads and writes it with the stock cg_read_file()/cg_write_file(),
 * detection included.
 *
 * Invariants:
 *  - A registered ops table (and every string it points to) must stay
 *    valid and unchanged for the rest of the process; there is no
 *    unregistering.
 *  - Names are unique; registering a taken name is CG_EUSAGE.
 *  - read() gets a fresh source positioned at its first byte and returns a
 *    new profile in *out (NULL on failure); write() writes to an open
 *    stream and never closes it.  Both report failures through err, with
 *    the input's or output's name in the message.
 *
 * Thread safety: cg_format_register() may be called from any thread at any
 * time (it takes a lock); lookups may run concurrently with it.  A source
 * is used by one thread at a time.
 */
#ifndef CALLGRAPH_SYS_FORMAT_H
#define CALLGRAPH_SYS_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "callgraph/common.h"
#include "callgraph/model.h"
#include "callgraph/formats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- sources: one input, whatever it is --------------------------------
 * A source is a named byte stream: a regular file, a pipe, standard input
 * or a memory buffer.  Its first bytes are buffered when it is opened, so
 * detection costs nothing and works on pipes; after that a reader takes the
 * content in the one way that suits it. */

/* Opens `path` ("-" is standard input).  CG_EIO (naming the file) when it
 * cannot be opened; a directory is CG_EIO too. */
CG_EXTERN int cg_source_open(cg_source **out, const char *path, cg_error *err);
/* A source over memory the caller keeps alive until cg_source_close();
 * `name` is used in messages. */
CG_EXTERN int cg_source_new_buffer(cg_source **out, const char *name, const void *data,
				   size_t len, cg_error *err);
CG_EXTERN void cg_source_close(cg_source *src);

/* The name to put in messages ("-" reads as "<stdin>"). */
CG_EXTERN const char *cg_source_name(const cg_source *src);
/* The path of a regular file that may be reopened or mapped, or NULL
 * (pipes, terminals, standard input, buffers). */
CG_EXTERN const char *cg_source_path(const cg_source *src);
/* Size in bytes when known (regular files, buffers), else UINT64_MAX. */
CG_EXTERN uint64_t cg_source_size(const cg_source *src);
/* The first bytes (up to CG_SOURCE_HEAD_MAX; fewer only at end of input).
 * Borrowed; valid until the source is closed. */
#define CG_SOURCE_HEAD_MAX 65536
CG_EXTERN const unsigned char *cg_source_head(const cg_source *src, size_t *len);

/* The whole content as a stream from the first byte (for line readers).
 * Borrowed: closed by cg_source_close().  Call at most once, and do not
 * mix with cg_source_slurp(). */
CG_EXTERN int cg_source_stream(cg_source *src, FILE **out, cg_error *err);
/* The whole content in memory (mapped for regular files).  Refused with
 * CG_ENOMEM past `max_bytes` (0: no limit of our own).  Borrowed: valid
 * until cg_source_close(). */
CG_EXTERN int cg_source_slurp(cg_source *src, const void **data, size_t *len,
			      uint64_t max_bytes, cg_error *err);
/* The same for a text format: a NUL byte is refused (CG_EFORMAT, with its
 * byte offset) as soon as it is read, so binary data or an endless device
 * fails at once instead of being buffered. */
CG_EXTERN int cg_source_slurp_text(cg_source *src, const void **data, size_t *len,
				   uint64_t max_bytes, cg_error *err);

/* ---- the ops table ------------------------------------------------------- */

enum cg_format_flags {
	/* read_many() wants every input at once (gmon: the files are summed
	 * the way gprof sums them, not merged profile by profile). */
	CG_FORMAT_READS_TOGETHER = 1u << 0,
	/* The reader needs cg_read_options.executable (gmon). */
	CG_FORMAT_NEEDS_EXECUTABLE = 1u << 1
};

typedef struct cg_format_ops {
	unsigned version;          /* CG_FORMAT_OPS_VERSION */
	const char *name;          /* what -f/-t take: lower case, no spaces */
	const char *description;   /* one line for --help and --list-formats */
	/* What the format carries of the model and what a conversion into it
	 * loses, one line each (shown by cgconvert --list-formats). */
	const char *keeps;
	const char *loses;
	unsigned flags;            /* cg_format_flags */
	/* How sure the format is that an input starting with `head` is its
	 * own: 0 not at all ... 100 certain (a magic number).  The highest
	 * answer wins; ties go to the format registered first.  `len` may be
	 * short (small files).  NULL: the format is never detected. */
	int (*detect)(const unsigned char *head, size_t len);
	/* Reads one input.  NULL: the format cannot be read. */
	int (*read)(const struct cg_format_ops *self, cg_profile **out, cg_source *src,
		    const cg_read_options *opts, cg_error *err);
	/* With CG_FORMAT_READS_TOGETHER: reads `count` inputs into one profile. */
	int (*read_many)(const struct cg_format_ops *self, cg_profile **out,
			 cg_source *const *srcs, size_t count, const cg_read_options *opts,
			 cg_error *err);
	/* Writes the profile.  NULL: the format cannot be written. */
	int (*write)(const struct cg_format_ops *self, const cg_profile *profile, FILE *out,
		     const cg_write_options *opts, cg_error *err);
	void *data;                /* the format's own, e.g. which sections to print */
} cg_format_ops;

#define CG_FORMAT_OPS_VERSION 1

/* Adds a format.  CG_EUSAGE for a wrong version, a missing name, a taken
 * name, or an ops table that can neither read nor write. */
CG_EXTERN int cg_format_register(const cg_format_ops *ops, cg_error *err);

/* The index of the event cg_write_options.event names (event 0 when opts
 * or the name is NULL), or CG_ENOTFOUND with a message. */
CG_EXTERN int cg_format_event_index(const cg_profile *profile, const cg_write_options *opts,
				    cg_error *err);

/* Reports a diagnostic through the options' callback (no-op when there is
 * none): what readers use for warnings and progress. */
CG_EXTERN void cg_diag_emit(const cg_read_options *opts, const cg_diagnostic *d);
/* The same for the common case: a one-line warning about `file`. */
CG_EXTERN void cg_diag_warn(const cg_read_options *opts, const char *file, uint64_t line,
			    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#ifdef __cplusplus
}
#endif
#endif
