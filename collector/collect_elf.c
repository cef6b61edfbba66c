/*
 * collect_elf.c — finds a function's run-time address by name in the
 * objects already loaded, reading their ELF symbol tables (.symtab, then
 * .dynsym), so CGCOLLECT_NOPROFILE works for static and unexported C
 * functions without linking anything but libc.  Runs at start-up only.
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "collect_internal.h"

struct lookup {
	const char *name;
	uintptr_t found;
};

static uintptr_t CGC_TEXT search_table(const unsigned char *img, size_t size,
				       const Elf64_Shdr *sh, const Elf64_Shdr *strsh,
				       const char *name)
{
	if (sh->sh_offset > size || sh->sh_size > size - sh->sh_offset ||
	    strsh->sh_offset > size || strsh->sh_size > size - strsh->sh_offset ||
	    sh->sh_entsize != sizeof(Elf64_Sym))
		return 0;
	const Elf64_Sym *sym = (const Elf64_Sym *)(img + sh->sh_offset);
	size_t count = sh->sh_size / sizeof *sym;
	const char *str = (const char *)img + strsh->sh_offset;
	size_t len = strlen(name);
	for (size_t i = 0; i < count; i++) {
		int type = ELF64_ST_TYPE(sym[i].st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym[i].st_value == 0 ||
		    sym[i].st_name >= strsh->sh_size || strsh->sh_size - sym[i].st_name <= len)
			continue;
		if (memcmp(str + sym[i].st_name, name, len + 1) == 0)
			return (uintptr_t)sym[i].st_value;
	}
	return 0;
}

static uintptr_t CGC_TEXT search_file(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	struct stat st;
	uintptr_t r = 0;
	if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
		close(fd);
		return 0;
	}
	size_t size = (size_t)st.st_size;
	const unsigned char *img = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED)
		return 0;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size ||
	    (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > size - eh->e_shoff)
		goto out;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
	for (int pass = 0; pass < 2 && !r; pass++) {
		unsigned want = pass == 0 ? SHT_SYMTAB : SHT_DYNSYM;
		for (unsigned i = 0; i < eh->e_shnum && !r; i++)
			if (sh[i].sh_type == want && sh[i].sh_link < eh->e_shnum)
				r = search_table(img, size, &sh[i], &sh[sh[i].sh_link], name);
	}
out:
	munmap((void *)img, size);
	return r;
}

static int CGC_TEXT visit(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct lookup *l = data;
	const char *path = info->dlpi_name;
	if (!path || !*path)
		path = "/proc/self/exe";
	uintptr_t v = search_file(path, l->name);
	if (v) {
		l->found = info->dlpi_addr + v;
		return 1;
	}
	return 0;
}

uintptr_t CGC_TEXT cgc_elf_lookup(const char *name)
{
	struct lookup l = { name, 0 };
	dl_iterate_phdr(visit, &l);
	return l.found;
}
