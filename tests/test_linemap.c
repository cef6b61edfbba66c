/*
 * test_linemap.c — the line map against BFD, address by address:
 *   test_linemap EXE [EXE...]
 * For each executable, asks BFD (bfd_find_nearest_line with the symbol
 * table, as gprof does) and the line map the same questions in the same
 * order — every .text function symbol, then every byte of .text twice —
 * and checks that every answer (found or not, file, function, line) is
 * the same, and that the map's boundaries never hide a change: within a
 * stretch every address after the first must answer like the second.
 * Prints TAP, one test per executable and walk.  Without arguments it
 * checks the map of its own executable (for make check-unit and Valgrind).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bfd.h>
#include "tap.h"
#include "symtab_bfd.h"
#include "linemap.h"

typedef struct answer {
	int found;
	const char *file, *func;
	unsigned line;
} answer;

static answer ask_bfd(bfd *abfd, asection *text, asymbol **syms, uint64_t addr)
{
	answer a = { 0, NULL, NULL, 0 };

	if (bfd_find_nearest_line(abfd, text, syms, addr - bfd_section_vma(text), &a.file,
				  &a.func, &a.line))
		a.found = a.file != NULL && a.func != NULL && a.line != 0;
	return a;
}

static answer ask_map(cg_linemap *m, uint64_t addr)
{
	answer a;

	a.found = cg_linemap_lookup(m, addr, &a.file, &a.func, &a.line);
	return a;
}

static int same(const answer *l, const answer *r)
{
	if (l->found != r->found)
		return 0;
	if (!l->found)
		return 1;
	return l->line == r->line && strcmp(l->file, r->file) == 0 && strcmp(l->func, r->func) == 0;
}

static void report(uint64_t addr, const answer *b, const answer *m)
{
	printf("# %#llx: bfd %d %s:%u %s, map %d %s:%u %s\n", (unsigned long long)addr, b->found,
	       b->file ? b->file : "-", b->line, b->func ? b->func : "-", m->found,
	       m->file ? m->file : "-", m->line, m->func ? m->func : "-");
}

static int mismatches;

static void compare(bfd *abfd, asection *text, asymbol **syms, cg_linemap *m, uint64_t addr)
{
	answer b = ask_bfd(abfd, text, syms, addr), a = ask_map(m, addr);

	if (!same(&b, &a)) {
		tap_current_failed = 1;
		if (mismatches++ < 10)
			report(addr, &b, &a);
	}
}

/* One walk over .text: every byte to both, plus the map's promise that
 * the answer only changes at a boundary or one byte after it. */
static void walk(bfd *abfd, asection *text, asymbol **syms, cg_linemap *m)
{
	uint64_t vma = bfd_section_vma(text), end = vma + bfd_section_size(text);
	uint64_t stretch_start = vma, stretch_end = cg_linemap_next_boundary(m, vma);
	answer rest = { 0, NULL, NULL, 0 };

	mismatches = 0;
	for (; vma < end; vma++) {
		answer a;

		if (vma >= stretch_end) {
			stretch_start = vma;
			stretch_end = cg_linemap_next_boundary(m, vma);
		}
		compare(abfd, text, syms, m, vma);
		a = ask_map(m, vma);
		if (vma == stretch_start + 1)
			rest = a;
		else if (vma > stretch_start + 1 && !same(&a, &rest)) {
			tap_current_failed = 1;
			if (mismatches++ < 10)
				report(vma, &rest, &a);
		}
	}
}

static int run(const char *path)
{
	bfd *abfd;
	asection *text;
	asymbol **syms;
	cg_linemap *m = NULL;
	cg_error err = { 0 };
	long n, i;
	int rc;

	abfd = bfd_openr(path, NULL);
	if (abfd == NULL || !bfd_check_format(abfd, bfd_object)) {
		printf("Bail out! %s: cannot open\n", path);
		return 1;
	}
	text = bfd_get_section_by_name(abfd, ".text");
	syms = malloc((size_t)bfd_get_symtab_upper_bound(abfd));
	n = bfd_canonicalize_symtab(abfd, syms);
	rc = cg_linemap_open(&m, path, bfd_section_vma(text), &err);
	TEST(check_int(rc, ==, 1), "line map opens");
	if (rc != 1)
		return 1;
	TEST(check(cg_linemap_rows(m) > 0), "line map has rows");
	TEST({
		mismatches = 0;
		for (i = 0; i < n; i++)
			if (syms[i]->section == text && (syms[i]->flags & BSF_FUNCTION))
				compare(abfd, text, syms, m,
					syms[i]->value + bfd_section_vma(text));
	}, "function symbols: same answers as BFD");
	TEST(walk(abfd, text, syms, m), "first walk over .text: same answers as BFD");
	TEST(walk(abfd, text, syms, m), "second walk over .text: same answers as BFD");
	cg_linemap_free(m);
	free(syms);
	bfd_close(abfd);
	return 0;
}

/* self_test's own entry is in this file under its own name. */
static void find_self(bfd *abfd, asection *text, cg_linemap *m, uint64_t vma)
{
	long n = bfd_get_symtab_upper_bound(abfd), i, k;
	asymbol **syms = malloc(n > 0 ? (size_t)n : 1);
	const char *file = NULL, *func = NULL;
	unsigned line = 0;
	uint64_t addr = 0;

	k = bfd_canonicalize_symtab(abfd, syms);
	for (i = 0; i < k; i++)
		if (strcmp(syms[i]->name, "self_test") == 0 && syms[i]->section == text)
			addr = syms[i]->value + vma;
	check(addr != 0);
	check(cg_linemap_lookup(m, addr, &file, &func, &line));
	check(file != NULL && strstr(file, "tests/test_linemap.c") != NULL);
	check_str(func, "self_test");
	check_int(line, >, 0);
	/* (BFD's own answer is not asked for here: its DWARF reader leaks a
	 * block Valgrind reports; the EXE mode compares with BFD) */
	free(syms);
}

/* Without arguments: the map of this very program (built with -g). */
static int self_test(void)
{
	cg_linemap *m = NULL;
	cg_error err = { 0 };
	bfd *abfd = bfd_openr("/proc/self/exe", NULL);
	asection *text;

	if (abfd == NULL || !bfd_check_format(abfd, bfd_object)) {
		printf("Bail out! cannot open /proc/self/exe\n");
		return 1;
	}
	text = bfd_get_section_by_name(abfd, ".text");
	TEST(check_int(cg_linemap_open(&m, "/proc/self/exe", bfd_section_vma(text), &err), ==, 1),
	     "line map of this program opens");
	if (m == NULL)
		return 1;
	TEST(check(cg_linemap_rows(m) > 0), "it has rows");
	TEST(find_self(abfd, text, m, bfd_section_vma(text)),
	     "it finds self_test in tests/test_linemap.c");
	cg_linemap_free(m);
	bfd_close(abfd);
	return tap_done();
}

int main(int argc, char **argv)
{
	int i;

	cg_bfd_init_once();
	if (argc < 2)
		return self_test();
	for (i = 1; i < argc; i++) {
		printf("# %s\n", argv[i]);
		if (run(argv[i]))
			return 1;
	}
	return tap_done();
}
