/*
 * call_sites.c — the direct call instruction behind a gmon.out arc (see
 * call_sites.h for why gmon.out's caller addresses are not enough).
 */
#include <stdlib.h>
#include <string.h>

#include <bfd.h>

#include "call_sites.h"
#include "symtab_bfd.h"
#include "callgraph/common.h"

int cg_text_load(cg_text *t, const char *path)
{
	memset(t, 0, sizeof *t);
	bfd *abfd = cg_bfd_open_regular(path);
	if (!abfd)
		return 0;
	int rc = 0;
	asection *text;
	if (!bfd_check_format(abfd, bfd_object) || bfd_get_arch(abfd) != bfd_arch_i386 ||
	    (text = bfd_get_section_by_name(abfd, ".text")) == NULL ||
	    !(bfd_section_flags(text) & SEC_HAS_CONTENTS))
		goto out;
	bfd_byte *bytes = NULL;
	if (!bfd_malloc_and_get_section(abfd, text, &bytes)) {
		rc = bfd_get_error() == bfd_error_no_memory ? CG_ENOMEM : 0;
		free(bytes);
		goto out;
	}
	t->bytes = bytes;
	t->vma = bfd_section_vma(text);
	t->size = bfd_section_size(text);
out:
	bfd_close(abfd);
	return rc;
}

void cg_text_release(cg_text *t)
{
	free(t->bytes);
	memset(t, 0, sizeof *t);
}

uint64_t cg_text_find_call(const cg_text *t, uint64_t lo, uint64_t hi, uint64_t target)
{
	enum { CALL_REL32 = 0xe8, CALL_LEN = 5 };
	if (!t->bytes || hi <= lo || lo < t->vma + CALL_LEN)
		return 0;
	for (uint64_t ret = lo; ret < hi; ret++) {
		uint64_t at = ret - CALL_LEN;
		if (at - t->vma + CALL_LEN > t->size)
			break;
		const unsigned char *b = t->bytes + (at - t->vma);
		if (b[0] != CALL_REL32)
			continue;
		uint32_t u = (uint32_t)b[1] | (uint32_t)b[2] << 8 | (uint32_t)b[3] << 16 |
			     (uint32_t)b[4] << 24;
		int32_t rel = (int32_t)u;
		if (ret + (uint64_t)(int64_t)rel == target)
			return at;
	}
	return 0;
}
