/*
 * linemap.h — an executable's DWARF line tables decoded once (libdw),
 * answering "which file, line and function is this address?" the way
 * gprof 2.40 gets the answer from BFD (internal to libcallgraph).
 *
 * BFD's answers depend on what was asked before (the first question about
 * a DWARF function may rename it after the ELF symbol at its address, see
 * linemap.c), so the map is stateful: ask in the order gprof asks.
 */
#ifndef CG_LINEMAP_H
#define CG_LINEMAP_H

#include <stdint.h>
#include "callgraph/model.h"

typedef struct cg_linemap cg_linemap;

/* Opens `path` and decodes every compilation unit's line program and
 * function ranges.  Returns 1 and sets *out on success; 0 when the file
 * has no DWARF this map can answer for (the caller then asks BFD); a
 * negative error when memory runs out.  `text_vma` is .text's address:
 * BFD's symbol fallback only looks at .text symbols. */
int cg_linemap_open(cg_linemap **out, const char *path, uint64_t text_vma, cg_error *err);
void cg_linemap_free(cg_linemap *m);

/* gprof's get_src_info through bfd_find_nearest_line with the symbol
 * table: 1 with file, function and a non-zero line; 0 otherwise.  The
 * strings live as long as the map. */
int cg_linemap_lookup(cg_linemap *m, uint64_t addr, const char **file, const char **func,
		      unsigned *line);

/* The next address after `addr` where any answer may change (a line row,
 * a function, unit or symbol boundary); UINT64_MAX when none. Between two
 * boundaries every address after the first gets the same answer.
 * Lookups and boundaries asked in address order cost a step or two each
 * (the map remembers where the last search ended); any order works. */
uint64_t cg_linemap_next_boundary(cg_linemap *m, uint64_t addr);

/* How many answers so far were a function's first question (the ones
 * that change later answers).  A walk over .text during which this did
 * not move would get exactly the same answers if asked again, and within
 * a stretch the byte after its first asks nothing new. */
unsigned long cg_linemap_changes(const cg_linemap *m);

/* Number of decoded line rows (for tests and diagnostics). */
size_t cg_linemap_rows(const cg_linemap *m);

#endif
