/*
 * cgtree_symbols.h — resolving (object, address) pairs recorded by the
 * collector to function names, source files and lines with BFD.  Internal
 * to the cgtree reader (independent of the gmon symbol table code).
 */
#ifndef CG_CGTREE_SYMBOLS_H
#define CG_CGTREE_SYMBOLS_H

#include <stdint.h>

typedef struct cgt_symtab cgt_symtab;

typedef struct cgt_symbol {
	const char *name;   /* borrowed from the table; demangled when C++ */
	const char *file;   /* source file from DWARF, NULL unknown */
	unsigned line;      /* 0 unknown */
	int is_local;       /* file-local (static) symbol */
	uint64_t start;     /* symbol address in the object */
	uint64_t end;       /* next symbol's address, 0 unknown */
} cgt_symbol;

/* Opens `path` and loads its function symbols; NULL when the object cannot
 * be read (missing, not ELF, no symbols). */
cgt_symtab *cg_objsym_open(const char *path);
/* The function containing `addr` (an address in the object file's address
 * space); 0 found, -1 none.  Strings live until cg_objsym_close. */
int cg_objsym_lookup(cgt_symtab *t, uint64_t addr, cgt_symbol *out);
/* The source line of the instruction at `addr` (an address in the object
 * file) from DWARF's line table: 0 with *file (NULL when unknown), *line
 * and *func (the innermost function there, an inlined one included,
 * demangled as cg_objsym_lookup's names are; NULL when unknown), -1 when
 * no line is known.  Strings are borrowed until
 * cg_objsym_close. */
int cg_objsym_line(cgt_symtab *t, uint64_t addr, const char **file, unsigned *line,
		   const char **func);
void cg_objsym_close(cgt_symtab *t);

#endif
