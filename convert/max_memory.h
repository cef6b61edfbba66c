/*
 * max_memory.h — the --max-memory option shared by the tools (cgconvert,
 * cgdiff, cgprof): the reading budget of cg_set_memory_limit().
 */
#ifndef CG_TOOL_MAX_MEMORY_H
#define CG_TOOL_MAX_MEMORY_H

#include <stdint.h>

/* Large blocks (the model's arrays and tables) are mapped on their own
 * and go back to the system when freed: glibc otherwise raises its
 * mapping threshold after the first such free and keeps later ones in
 * the heap (two 200k-function profiles: 308 -> 285 MB peak in cgdiff). */
void max_memory_init(void);
/* The default budget: half of the physical memory. */
uint64_t max_memory_default(void);
/* "N" megabytes, or N with a suffix K, M, G (binary); "0" is no limit.
 * 0 and *bytes set, or -1 for a malformed value. */
int max_memory_parse(const char *arg, uint64_t *bytes);
/* " (--max-memory)" after an error the budget caused, else "". */
const char *max_memory_hint(void);

#endif
