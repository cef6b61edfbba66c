/*
 * symtab_bfd.h — gprof's function symbol table, read from an executable
 * with libbfd (internal to libcallgraph).
 *
 * The table is exactly gprof 2.40's: symbols chosen by nm class and
 * gprof's name filters, sorted by address, duplicates at one address
 * resolved, each owning the addresses up to the next symbol (spec 3.1-3.4).
 */
#ifndef CG_SYMTAB_BFD_H
#define CG_SYMTAB_BFD_H

#include <stddef.h>
#include <stdint.h>
#include "callgraph/model.h"

typedef struct cg_sym {
	uint64_t addr;
	uint64_t end_addr;    /* inclusive; may be < addr (empty range) */
	const char *name;     /* interned in the profile */
	const char *file;     /* interned; NULL without debug info */
	uint32_t line;
	unsigned char is_static;
	unsigned char is_func;
} cg_sym;

typedef struct cg_symtab {
	cg_sym *syms;         /* address order, duplicates removed */
	size_t n;
	/* syms[i].addr alone, for cg_symtab_lookup: with line symbols the
	 * table outgrows the caches, and a search through 8-byte entries
	 * misses far less than one through whole symbols.  NULL while
	 * cg_symtab_load is still building syms: its line walk looks up
	 * functions through syms then) */
	uint64_t *addrs;
	uint64_t text_vma, text_size;
	int addr_bytes;       /* 4 or 8: size of an address in gmon files */
	int big_endian;
	int sign_extend;      /* 32-bit addresses are sign-extended */
} cg_symtab;

typedef struct cg_symtab_options {
	int no_static;              /* -a */
	int ignore_non_functions;   /* -D */
	int line_symbols;           /* -l: add one symbol per source line */
	const char *external_table; /* -S FILE: nm-style listing instead */
	const char *program_name;   /* for gprof-style messages, may be NULL */
} cg_symtab_options;

/* Reads `path`'s symbols; strings are interned in `profile`. */
int cg_symtab_load(cg_symtab *out, cg_profile *profile, const char *path,
		   const cg_symtab_options *opts, cg_error *err);
void cg_symtab_release(cg_symtab *t);
/* Initialises libbfd once per process (thread-safe). */
void cg_bfd_init_once(void);
/* bfd_openr for object files that are regular files only: a FIFO or a
 * device named as an executable would block or never end.  NULL with
 * errno set (EINVAL for "not a regular file") on failure.  The file is
 * opened once and checked through its descriptor, so it cannot be swapped
 * between the check and the read. */
struct bfd *cg_bfd_open_regular(const char *path);
/* gprof's sym_lookup: index of the symbol owning addr, or -1. */
long cg_symtab_lookup(const cg_symtab *t, uint64_t addr);

/* "PROG: " or "" for messages in gprof's format. */
#define CG_PROG_PREFIX_FMT "%s%s"
#define CG_PROG_PREFIX(name) ((name) ? (name) : ""), ((name) ? ": " : "")

#endif
