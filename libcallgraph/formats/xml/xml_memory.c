/*
 * xml_memory.c — libxml2's allocations in the memory budget
 * (cg_count_xml_memory, callgraph/common.h).
 *
 * libxml2 lets a program replace its allocator (xmlMemSetup).  The
 * replacement here is plain malloc with the block's usable size charged
 * to the budget and given back on free; no header is added to the
 * blocks, so a block libxml2 allocated before the switch can still be
 * freed after it.  A charge is never refused: libxml2 2.9 does not
 * recover from every failed allocation, so the budget records that the
 * limit was passed in this thread and the XML reader running in it stops
 * at its next node (cg_budget_over).  libxml2 bounds what one node can take (10 MB of
 * text or attribute without XML_PARSE_HUGE), which bounds the overshoot.
 *
 * The switch is process-wide and affects every libxml2 user in the
 * process, so the library never makes it on its own: the tools do, first
 * thing in main (convert/max_memory.c).
 */
#include <malloc.h>
#include <string.h>

#include <libxml/xmlmemory.h>

#include "budget.h"
#include "callgraph.h"

static void *counted_malloc(size_t n)
{
	void *p = malloc(n);
	if (p)
		cg_budget_charge(malloc_usable_size(p));
	return p;
}

static void *counted_realloc(void *p, size_t n)
{
	size_t before = p ? malloc_usable_size(p) : 0;
	/* realloc(p, 0) may free p and return NULL: keep one byte instead */
	void *q = realloc(p, n ? n : 1);
	if (!q)
		return NULL;
	cg_budget_give(before);
	cg_budget_charge(malloc_usable_size(q));
	return q;
}

static void counted_free(void *p)
{
	if (!p)
		return;
	cg_budget_give(malloc_usable_size(p));
	free(p);
}

static char *counted_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = counted_malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

int cg_count_xml_memory(void)
{
	return xmlMemSetup(counted_free, counted_malloc, counted_realloc, counted_strdup) == 0
		? 0 : CG_ERROR;
}
