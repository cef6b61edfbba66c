/*
 * callgraph/gmon.h — reading gmon.out files (gcc -pg) with the executable's
 * symbol table, the way GNU gprof 2.40 reads them.
 *
 * What the reader leaves in the profile (part 0):
 *  - Functions: gprof's symbol table in gprof's final order, i.e. sorted by
 *    address after duplicate removal.  Function i has addr (CG_FN_HAS_ADDR),
 *    end = one past gprof's inclusive end address (for a symbol outside
 *    .text, e.g. data_start, end may be <= addr: its range is empty),
 *    CG_FN_STATIC for file-local text symbols (nm class 't'),
 *    CG_FN_IS_FUNC for ELF STT_FUNC symbols, object = the executable path,
 *    file/line from DWARF (BFD's path composition: "dir/file.c"), NULL/0
 *    without debug info.  Names are the raw (mangled) symbol names: gprof
 *    sorts and matches on those; demangle only when printing
 *    (cg_demangle below).
 *  - Event 0 "samples", unit_seconds = 1/hz (0 when no histogram was read).
 *  - Self cost of event 0 = the histogram time rounded to an integer, and
 *    cg_profile_self_exact = the exact double gprof accumulates (ticks), for
 *    every function, when a histogram was read.
 *  - Arcs in the order gprof tallies the records (file order, files in
 *    command-line order); both ends mapped to symbols as gprof maps them;
 *    records whose ends map to no symbol are dropped.  Self-arcs are kept.
 *    Symbol specifications (-k, -q A/B ...) are NOT applied here.
 *  - With opts->positions (the format registry's default): self costs per
 *    (address, line, inlined file) and arcs per call site, see the
 *    option below and docs/formats.md; they add up to the sums above.
 *  - Metadata:
 *      "executable"            the executable path as given
 *      "hz"                    samples per second ("0" without histogram)
 *  - The gmon facts (cg_profile_gmon_info, callgraph/model.h): record
 *    kinds read, dimension, gprof's hist_scale, total_samples (every bin
 *    count: gprof's total_time before flat-table exclusions) and
 *    total_time (in ticks after opts->flat_filter, exact: gprof's
 *    interleaved order of operations), file version.
 *
 * Thread safety: a cg_gmon_reader belongs to one thread; different
 * readers may run in parallel (libbfd is initialised once per process).
 */
#ifndef CALLGRAPH_GMON_H
#define CALLGRAPH_GMON_H

#include <stdio.h>
#include "callgraph/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version 2 adds `positions` at the end; version 1 options are still
 * accepted (no positions). */
#define CG_GMON_OPTIONS_VERSION 2

typedef struct cg_gmon_options {
	unsigned version;          /* CG_GMON_OPTIONS_VERSION */
	int no_static;             /* -a: drop file-local (static) text symbols */
	int ignore_non_functions;  /* -D: drop static symbols that are not STT_FUNC */
	/* -O: 'a' auto (default), 'm' GNU "gmon" only, 'b' BSD, '4' 4.4BSD. */
	char file_format;
	/* -i: after each file, print gprof's "File `X' (version N) contains:"
	 * summary here; NULL prints nothing. */
	FILE *file_info;
	/* Non-fatal warnings (basic-block counts ignored, BSD ticks) go here;
	 * NULL drops them. */
	FILE *warnings;
	/* Name gprof puts in front of most of its messages ("gprof: ...").
	 * When set, error messages are exactly gprof's lines with this name;
	 * when NULL, the same lines without the program name. */
	const char *program_name;
	/* gprof credits histogram samples only to symbols that pass the flat
	 * tables (-p/-P and the default-excluded mcount names); samples of
	 * the others are taken out of total_time.  Return nonzero when f
	 * passes.  NULL: every function passes.  Called after all symbols
	 * are in the profile (from cg_gmon_reader_finish). */
	int (*flat_filter)(void *ctx, const cg_profile *profile, cg_fid f);
	void *flat_filter_ctx;
	/* -l: gprof's line granularity.  With debug information the table
	 * also gets one symbol per source line (name = the function, file,
	 * line, no CG_FN_IS_FUNC); samples and call sites land on lines. */
	int line_granularity;
	/* -S FILE: take the symbols from an nm-style listing ("ADDR TYPE
	 * NAME" lines, types t and T) instead of the executable's symbol
	 * table; the executable still gives word size, byte order and .text.
	 * NULL: the executable's symbols. */
	const char *external_symbol_table;
	/* Version 2: nonzero also splits each function's self cost by
	 * source line and address (positions, callgraph/model.h) and each
	 * arc by call site, from the executable's DWARF line table: the
	 * histogram is shared between gprof's line symbols exactly as
	 * `gprof -l` shares it (each position's exact share is kept beside
	 * its rounded sample count), a call site is the line of the return
	 * address minus one (the call instruction).  Functions without line
	 * information, -l, -S and executables without debug information
	 * get none.  The format registry's gmon reader sets it unless
	 * cg_read_options.drop_positions. */
	int positions;
} cg_gmon_options;

#define CG_GMON_OPTIONS_INIT { .version = CG_GMON_OPTIONS_VERSION, .file_format = 'a' }

/* ---- staged reading (what cgprof uses) ----------------------------------
 * gprof reads the symbol table, then resolves symbol specifications
 * against it, then reads the profile files.  The stages below allow the
 * same order: cg_gmon_reader_new fills the profile's functions, the
 * caller may inspect them (e.g. to build -p/-P tables for flat_filter),
 * then each file is read and cg_gmon_reader_finish assigns the histogram
 * and stores arcs and metadata.
 *
 * Errors: CG_EIO (cannot open/read: message "PATH: strerror"), CG_EFORMAT
 * (not an executable / not a gmon file / truncated / corrupt), CG_EMISMATCH
 * (records that do not fit together), CG_ENOTFOUND (no symbols, no .text).
 * The message is gprof's own text for the same situation (see
 * opts->program_name).  After an error the reader must only be freed. */
typedef struct cg_gmon_reader cg_gmon_reader;

/* Reads the executable's symbol table into `profile`, which must have no
 * functions yet.  The profile must outlive the reader. */
CG_EXTERN int cg_gmon_reader_new(cg_gmon_reader **out, cg_profile *profile,
				 const char *executable, const cg_gmon_options *opts,
				 cg_error *err);
/* Sets opts->flat_filter/flat_filter_ctx after the symbols are known
 * (e.g. cg_gprof_flat_filter with tables built on the profile's
 * functions); used by cg_gmon_reader_finish. */
CG_EXTERN void cg_gmon_reader_set_flat_filter(cg_gmon_reader *r,
					      int (*filter)(void *ctx, const cg_profile *profile,
							    cg_fid f),
					      void *ctx);
/* Reads one profile file ("-" is stdin); several files are summed. */
CG_EXTERN int cg_gmon_reader_read(cg_gmon_reader *r, const char *path, cg_error *err);
/* Same on a memory buffer; `name` is used in messages. */
CG_EXTERN int cg_gmon_reader_read_buffer(cg_gmon_reader *r, const char *name,
					 const void *data, size_t size, cg_error *err);
/* After a failed cg_gmon_reader_read*: the exact text gprof 2.40 writes
 * to stderr in that situation (err->message is the same on one line).  It
 * may span lines and ends with a newline unless gprof's does not.  NULL
 * when there was no error. */
CG_EXTERN const char *cg_gmon_reader_gprof_message(const cg_gmon_reader *r);
/* gprof's -s: writes everything read so far to `path` (gprof writes
 * "gmon.sum") in the GNU format (opts->file_format 'a' or 'm') or the BSD
 * one ('b', '4'): the histogram records with their summed bins, then the
 * arcs, as caller symbol address, callee symbol address and count, per
 * caller in address order, most recent arc first.  The file appears only
 * when complete.  Use before or after cg_gmon_reader_finish. */
CG_EXTERN int cg_gmon_reader_write_sum(cg_gmon_reader *r, const char *path, cg_error *err);
/* Assigns histogram samples, adds arcs and metadata to the profile. */
CG_EXTERN int cg_gmon_reader_finish(cg_gmon_reader *r, cg_error *err);
CG_EXTERN void cg_gmon_reader_free(cg_gmon_reader *r);

/* All of the above in one call: executable + n profile files. */
CG_EXTERN int cg_read_gmon(cg_profile *profile, const char *executable,
			   const char *const *gmon_files, size_t n,
			   const cg_gmon_options *opts, cg_error *err);

/* ---- names -------------------------------------------------------------- */

/* Demangles a symbol name as gprof prints it (BFD's demangler with
 * DMGL_ANSI|DMGL_PARAMS, same as `c++filt -i`).  Returns a malloc'd
 * string the caller frees, or NULL when `name` is not a mangled name
 * (print it unchanged). */
CG_EXTERN char *cg_demangle(const char *name);
/* The same in a named style (gprof's --demangle=STYLE: "auto", "gnu-v3",
 * "java", "gnat", "dlang", "rust"); NULL is automatic.  NULL also when the
 * style is unknown.  Thread-safe: the style is per call. */
CG_EXTERN char *cg_demangle_style(const char *name, const char *style);
/* 1 when `style` names a demangling style, else 0. */
CG_EXTERN int cg_demangle_style_known(const char *style);

#ifdef __cplusplus
}
#endif
#endif
