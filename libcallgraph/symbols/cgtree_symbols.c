/*
 * cgtree_symbols.c — function symbols of one object file, for the cgtree
 * reader: the collector records functions as (object, offset) and we name
 * them offline, once per distinct function.
 *
 * The static symbol table (.symtab) is used when present, the dynamic one
 * otherwise, so static functions of unstripped programs get their names
 * (dladdr at run time would miss them).  Source file and line come from
 * DWARF through bfd_find_nearest_line.
 */
#include <stdlib.h>
#include <string.h>
#include <bfd.h>

#include "array.h"
#include "cgtree_symbols.h"
#include "hashmap.h"
#include "symtab_bfd.h"

#define DEMANGLE_FLAGS 3  /* DMGL_PARAMS | DMGL_ANSI, as gprof and nm -C use */

struct entry {
	uint64_t addr;
	asymbol *sym;
	char *demangled;
	int is_local;
};

struct cgt_symtab {
	bfd *abfd;
	asymbol **syms;
	struct entry *v;
	size_t n;
	/* Names DWARF gives cg_objsym_line, demangled once each: keyed by
	 * BFD's string (stable until close), the value indexes line_names. */
	struct cg_hashmap line_name_index;
	char **line_names;
	size_t nline_names, capline_names;
};

static int by_addr(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Among aliases, global before weak before local, then by name, so the
	 * chosen name does not depend on the symbol table's order. */
	int rx = x->is_local ? 2 : (x->sym->flags & BSF_WEAK) ? 1 : 0;
	int ry = y->is_local ? 2 : (y->sym->flags & BSF_WEAK) ? 1 : 0;
	if (rx != ry)
		return rx - ry;
	return strcmp(bfd_asymbol_name(x->sym), bfd_asymbol_name(y->sym));
}

static long load_symbols(bfd *abfd, asymbol ***out)
{
	long size = bfd_get_symtab_upper_bound(abfd);
	long n = 0;
	asymbol **syms = NULL;
	if (size > 0 && (syms = malloc((size_t)size)) != NULL)
		n = bfd_canonicalize_symtab(abfd, syms);
	if (n <= 0) {
		free(syms);
		syms = NULL;
		n = 0;
		size = bfd_get_dynamic_symtab_upper_bound(abfd);
		if (size > 0 && (syms = malloc((size_t)size)) != NULL)
			n = bfd_canonicalize_dynamic_symtab(abfd, syms);
	}
	if (n <= 0) {
		free(syms);
		return 0;
	}
	*out = syms;
	return n;
}

cgt_symtab *cg_objsym_open(const char *path)
{
	cg_bfd_init_once();
	cgt_symtab *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->abfd = cg_bfd_open_regular(path);
	if (!t->abfd || !bfd_check_format(t->abfd, bfd_object))
		goto fail;
	long n = load_symbols(t->abfd, &t->syms);
	if (n <= 0)
		goto fail;
	t->v = calloc((size_t)n, sizeof *t->v);
	if (!t->v)
		goto fail;
	for (long i = 0; i < n; i++) {
		asymbol *s = t->syms[i];
		if (!(s->flags & BSF_FUNCTION) || !s->section ||
		    !(bfd_section_flags(s->section) & SEC_CODE) || bfd_is_und_section(s->section))
			continue;
		struct entry *e = &t->v[t->n++];
		e->addr = bfd_asymbol_value(s);
		e->sym = s;
		e->is_local = (s->flags & BSF_LOCAL) != 0;
	}
	if (t->n == 0)
		goto fail;
	qsort(t->v, t->n, sizeof *t->v, by_addr);
	return t;
fail:
	cg_objsym_close(t);
	return NULL;
}

int cg_objsym_lookup(cgt_symtab *t, uint64_t addr, cgt_symbol *out)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {  /* first entry with address > addr */
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	size_t i = lo - 1;
	while (i > 0 && t->v[i - 1].addr == t->v[i].addr)
		i--;  /* the preferred alias sorts first */
	struct entry *e = &t->v[i];
	const char *raw = bfd_asymbol_name(e->sym);
	if (!e->demangled)
		e->demangled = bfd_demangle(t->abfd, raw, DEMANGLE_FLAGS);
	memset(out, 0, sizeof *out);
	out->name = e->demangled ? e->demangled : raw;
	out->is_local = e->is_local;
	out->start = e->addr;
	out->end = lo < t->n ? t->v[lo].addr : 0;
	asection *sec = e->sym->section;
	const char *file = NULL, *func = NULL;
	unsigned line = 0;
	if (sec && addr >= bfd_section_vma(sec) &&
	    bfd_find_nearest_line(t->abfd, sec, t->syms, e->addr - bfd_section_vma(sec),
				  &file, &func, &line)) {
		out->file = file && *file ? file : NULL;
		out->line = line;
	}
	return 0;
}

/* The code section holding addr, or NULL. */
static asection *code_section(bfd *abfd, uint64_t addr)
{
	for (asection *sec = abfd->sections; sec; sec = sec->next) {
		uint64_t vma = bfd_section_vma(sec);
		if ((bfd_section_flags(sec) & SEC_CODE) && addr >= vma &&
		    addr - vma < bfd_section_size(sec))
			return sec;
	}
	return NULL;
}

/* DWARF names a C++ function (an inlined copy above all) by its linkage
 * name, _ZN2ns3Acc3addEl, where the symbol table's names are demangled
 * (ns::Acc::add(long)): demangle it the same way, so that a caller can
 * compare the two.  A name that does not demangle, or no memory, gives
 * the name as DWARF has it. */
static const char *line_function_name(cgt_symtab *t, const char *raw)
{
	if (raw[0] != '_')
		return raw;  /* every mangled name BFD demangles starts with _ */
	uint64_t key = (uint64_t)(uintptr_t)raw;
	uint32_t i;
	if (cg_hashmap_get(&t->line_name_index, key, &i))
		return t->line_names[i] ? t->line_names[i] : raw;
	if (t->nline_names >= UINT32_MAX - 1)
		return raw;
	if (cg_array_grow((void **)&t->line_names, &t->capline_names, t->nline_names + 1,
			  sizeof *t->line_names, 16))
		return raw;
	char *dem = bfd_demangle(t->abfd, raw, DEMANGLE_FLAGS);
	if (cg_hashmap_put(&t->line_name_index, key, (uint32_t)t->nline_names)) {
		free(dem);
		return raw;
	}
	t->line_names[t->nline_names++] = dem;
	return dem ? dem : raw;
}

int cg_objsym_line(cgt_symtab *t, uint64_t addr, const char **file, unsigned *line,
		   const char **func)
{
	asection *sec = code_section(t->abfd, addr);
	const char *f = NULL, *fn = NULL;
	unsigned l = 0;
	if (!sec || !bfd_find_nearest_line(t->abfd, sec, t->syms, addr - bfd_section_vma(sec), &f,
					   &fn, &l) || l == 0)
		return -1;
	*file = f && *f ? f : NULL;
	*line = l;
	*func = fn && *fn ? line_function_name(t, fn) : NULL;
	return 0;
}

void cg_objsym_close(cgt_symtab *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].demangled);
	for (size_t i = 0; i < t->nline_names; i++)
		free(t->line_names[i]);
	free(t->line_names);
	cg_hashmap_release(&t->line_name_index);
	free(t->v);
	free(t->syms);
	if (t->abfd)
		bfd_close(t->abfd);
	free(t);
}
