/*
 * max_memory.c — the tools' --max-memory option (see max_memory.h).
 */
#include <ctype.h>
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <unistd.h>

#include "callgraph.h"
#include "max_memory.h"

void max_memory_init(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);   /* glibc's default, kept fixed */
#endif
	/* libxml2's buffers count too; this must come before any libxml2
	 * use, and a tool owns its process's libxml2 */
	cg_count_xml_memory();
}

uint64_t max_memory_default(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
	if (pages <= 0 || size <= 0)
		return 0;   /* unknown: no limit of our own */
	return (uint64_t)pages * (uint64_t)size / 2;
}

int max_memory_parse(const char *arg, uint64_t *bytes)
{
	if (!isdigit((unsigned char)arg[0]))
		return -1;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);
	if (errno)
		return -1;
	unsigned shift = 20;
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	default: break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v > (UINT64_MAX >> shift))
		return -1;
	*bytes = (uint64_t)v << shift;
	return 0;
}

const char *max_memory_hint(void)
{
	return cg_memory_limit_hit() ? " (--max-memory)" : "";
}
