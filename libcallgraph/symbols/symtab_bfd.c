/*
 * symtab_bfd.c — gprof's function symbol table from an executable (libbfd).
 *
 * Which symbols, in which order, which one wins at a shared address and
 * which source line each gets must be exactly GNU gprof 2.40's choice,
 * because the report is byte-compared with gprof's.  See
 * docs/gprof-compat.md, section 3.
 *
 * Speed: gprof asks BFD for each symbol's source line with the full symbol
 * table attached, which makes BFD scan all symbols per query (quadratic;
 * about 90 % of gprof's time at 20k functions).  We ask without the
 * symbol table, which only drops BFD's symbol-table fallback for the
 * function name — a name gprof only tests for presence and which it always
 * finds when a line was found — and we skip the lookups entirely when the
 * executable has no debug information.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <bfd.h>

#include "symtab_bfd.h"

static pthread_once_t bfd_once = PTHREAD_ONCE_INIT;

static void bfd_setup(void)
{
	bfd_init();
}

/* BFD's global state is set up exactly once, whichever thread gets here
 * first, for every reader in symbols/. */
void cg_bfd_init_once(void)
{
	pthread_once(&bfd_once, bfd_setup);
}

struct bfd *cg_bfd_open_regular(const char *path)
{
	cg_bfd_init_once();
	/* O_NONBLOCK: opening a FIFO without a writer must not hang here. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	bfd *abfd = bfd_fdopenr(path, NULL, fd);   /* owns fd from here, even on failure */
	if (!abfd)
		errno = bfd_get_error() == bfd_error_system_call ? errno : ENOENT;
	return abfd;
}

/* The name filter gprof applies to static (class 't') symbols.  It walks
 * the name with one pointer; after a ".NNN" suffix that ends the name the
 * walk steps over the terminating NUL and continues into whatever string
 * follows in BFD's string table (a quirk of gprof 2.40 that can reject a
 * symbol because of its neighbour's name).  BFD's ELF string tables end
 * with an extra NUL, so the walk always stops inside the table. */
static int static_name_acceptable(const char *name)
{
	const char *s;

	if (name == NULL || name[0] == '\0')
		return 0;
	for (s = name; *s; ++s) {
		if (*s == '$')
			return 0;
		while (*s == '.') {
			int digit_seen = 0;
			size_t rest = strlen(s);

			if (rest > 7 && strncmp(s, ".clone.", 7) == 0)
				s += 6;
			else if (rest > 11 && strncmp(s, ".constprop.", 11) == 0)
				s += 10;
			for (++s; *s; ++s) {
				if (digit_seen && *s == '.')
					break;
				if (*s >= '0' && *s <= '9')
					digit_seen = 1;
				else
					return 0;
			}
		}
	}
	if (strncmp(name, "__gnu_compiled", 14) == 0 || strncmp(name, "___gnu_compiled", 15) == 0)
		return 0;
	return 1;
}

/* Returns 'T' (global), 't' (static) or 0 (not a gprof symbol). */
static int symbol_class(bfd *abfd, asymbol *sym, const cg_symtab_options *o)
{
	symbol_info info;

	if (sym->section == NULL || (sym->flags & BSF_DEBUGGING) != 0)
		return 0;
	if (o->no_static && (sym->flags & BSF_LOCAL) != 0)
		return 0;
	bfd_get_symbol_info(abfd, sym, &info);
	if (info.type == 'T' || info.type == 'W')
		return 'T';
	if (info.type != 't')
		return 0;
	if (o->ignore_non_functions && (sym->flags & BSF_FUNCTION) == 0)
		return 0;
	if (!static_name_acceptable(sym->name))
		return 0;
	return 't';
}

/* gprof's finalize order: address, then functions first, then globals
 * first; ties keep symbol-table order (the sort is stable). */
static int cmp_candidates(const cg_sym *l, const cg_sym *r)
{
	if (l->addr != r->addr)
		return l->addr < r->addr ? -1 : 1;
	if (l->is_func != r->is_func)
		return l->is_func ? -1 : 1;
	if (l->is_static != r->is_static)
		return l->is_static ? 1 : -1;
	return 0;
}

static void merge_sort(cg_sym *a, cg_sym *tmp, size_t n)
{
	size_t n1 = n / 2, i = 0, j = n1, k = 0;

	if (n <= 1)
		return;
	merge_sort(a, tmp, n1);
	merge_sort(a + n1, tmp, n - n1);
	while (i < n1 && j < n)
		tmp[k++] = cmp_candidates(&a[i], &a[j]) <= 0 ? a[i++] : a[j++];
	while (i < n1)
		tmp[k++] = a[i++];
	/* the rest of the right run is already in place */
	memcpy(a, tmp, k * sizeof *a);
}

/* Does the newcomer replace the kept symbol at the same address? */
static int replaces(const cg_sym *nw, const cg_sym *kept)
{
	if (!nw->is_static && kept->is_static)
		return 1;
	if (nw->is_static != kept->is_static)
		return 0;
	if (nw->is_func && !kept->is_func)
		return 1;
	if (nw->is_func != kept->is_func)
		return 0;
	if (nw->name[0] != '_' && kept->name[0] == '_')
		return 1;
	return nw->name[0] == '_' && kept->name[0] == '_' && nw->name[1] != '_' &&
	       kept->name[1] == '_';
}

/* Sorted symbols -> gprof's table: one symbol per address, each owning
 * the addresses up to the next one.  End addresses already set (function
 * symbols when line symbols are added) are kept, and a symbol whose range
 * is then empty is dropped, as gprof does. */
static size_t finalize(cg_sym *s, size_t n, uint64_t text_end_incl)
{
	size_t i, kept = 0;

	for (i = 0; i < n; i++) {
		if (kept > 0 && s[kept - 1].addr == s[i].addr) {
			if (replaces(&s[i], &s[kept - 1]))
				s[kept - 1] = s[i];
			continue;
		}
		if (kept > 0 && s[kept - 1].end_addr == 0)
			s[kept - 1].end_addr = s[i].addr - 1;
		if (s[i].end_addr == 0 || s[i].addr <= s[i].end_addr)
			s[kept++] = s[i];
	}
	if (kept > 0 && s[kept - 1].end_addr == 0)
		s[kept - 1].end_addr = text_end_incl;
	return kept;
}

static int has_debug_lines(bfd *abfd)
{
	static const char *const names[] = { ".debug_line", ".zdebug_line", ".debug_info",
					     ".zdebug_info", ".stab" };
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (bfd_get_section_by_name(abfd, names[i]) != NULL)
			return 1;
	return 0;
}

static int nomem(cg_error *err, const char *path)
{
	return cg_error_set(err, CG_ENOMEM, "%s: out of memory reading symbols", path);
}

/* gprof's get_src_info: the source position of addr, if BFD knows a file,
 * a function and a non-zero line.  `syms` is NULL in function mode (see
 * the top of this file); then the function name is not required. */
static int src_info(bfd *abfd, asection *text, asymbol **syms, uint64_t addr,
		    const char **file, const char **func, unsigned *line)
{
	*file = *func = NULL;
	*line = 0;
	if (!bfd_find_nearest_line(abfd, text, syms, addr - bfd_section_vma(text), file, func, line))
		return 0;
	return *file != NULL && *line != 0 && (syms == NULL || *func != NULL);
}

static int sort_and_finalize(cg_symtab *t, asection *text, const char *path, cg_error *err)
{
	cg_sym *tmp = malloc((t->n ? t->n : 1) * sizeof *tmp);

	if (tmp == NULL)
		return nomem(err, path);
	merge_sort(t->syms, tmp, t->n);
	free(tmp);
	t->n = finalize(t->syms, t->n, bfd_section_vma(text) + bfd_section_size(text) - 1);
	return 0;
}

/* gprof's -l: walk every byte of .text and start a line symbol wherever
 * (line, function, file) changes; then the function symbols are merged
 * back in (they win at shared addresses). */
/* gprof counts the line symbols in a first walk and makes them in a
 * second one.  BFD's answers are not always the same the second time (it
 * renames DWARF functions after the symbols it finds), and then gprof
 * stops with "somebody miscounted"; so do we, with the same numbers. */
static size_t count_line_symbols(bfd *abfd, asection *text, asymbol **syms, uint64_t vma,
				 uint64_t end)
{
	char *prev_name = NULL, *prev_file = NULL;
	unsigned prev_line = 0;
	size_t n = 0;

	for (; vma < end; vma++) {
		const char *file, *func;
		unsigned line;

		if (!src_info(abfd, text, syms, vma, &file, &func, &line))
			continue;
		if (prev_name && prev_line == line && strcmp(prev_name, func) == 0 &&
		    strcmp(prev_file, file) == 0)
			continue;
		n++;
		prev_line = line;
		free(prev_name);
		free(prev_file);
		prev_name = strdup(func);
		prev_file = strdup(file);
		if (prev_name == NULL || prev_file == NULL)
			break;
	}
	free(prev_name);
	free(prev_file);
	return n;
}

static int add_line_symbols(cg_symtab *t, cg_profile *p, bfd *abfd, asection *text,
			    asymbol **syms, int walk, const char *path,
			    const cg_symtab_options *o, cg_error *err)
{
	uint64_t vma = bfd_section_vma(text), end = walk ? vma + bfd_section_size(text) : vma;
	size_t nf = t->n, n = 0, cap = 16;
	size_t counted = count_line_symbols(abfd, text, syms, vma, end);
	cg_sym *ls = malloc(cap * sizeof *ls), *all;

	if (ls == NULL)
		return nomem(err, path);
	for (; vma < end; vma++) {
		const char *file, *func;
		unsigned line;
		/* the last line symbol made (an index: ls moves when it grows) */
		const cg_sym *prev = n ? &ls[n - 1] : NULL;
		cg_sym *s;
		long f;

		if (!src_info(abfd, text, syms, vma, &file, &func, &line))
			continue;
		if (prev && prev->line == line && strcmp(prev->name, func) == 0 &&
		    strcmp(prev->file, file) == 0)
			continue;
		if (n == cap) {
			cg_sym *bigger = realloc(ls, cap * 2 * sizeof *ls);

			if (bigger == NULL) {
				free(ls);
				return nomem(err, path);
			}
			ls = bigger;
			cap *= 2;
		}
		prev = n ? &ls[n - 1] : NULL;
		s = &ls[n];
		memset(s, 0, sizeof *s);
		s->addr = vma;
		s->name = cg_profile_intern(p, func);
		s->file = cg_profile_intern(p, file);
		if (s->name == NULL || s->file == NULL) {
			free(ls);
			return nomem(err, path);
		}
		s->line = line;
		/* static-ness of the enclosing function */
		if (prev && prev->file == s->file && strcmp(prev->name, s->name) == 0) {
			s->is_static = prev->is_static;
		} else {
			f = cg_symtab_lookup(t, vma);
			s->is_static = f >= 0 && t->syms[f].is_static;
		}
		n++;
	}
	if (n != counted) {
		free(ls);
		return cg_error_set(err, CG_EFORMAT,
				    CG_PROG_PREFIX_FMT "somebody miscounted: ltab.len=%d instead of %ld",
				    CG_PROG_PREFIX(o->program_name), (int)(counted + nf),
				    (long)(n + nf));
	}
	all = realloc(ls, (n + nf + 1) * sizeof *all);
	if (all == NULL) {
		free(ls);
		return nomem(err, path);
	}
	memcpy(all + n, t->syms, nf * sizeof *all);
	free(t->syms);
	t->syms = all;
	t->n = n + nf;
	return sort_and_finalize(t, text, path, err);
}

/* gprof's -S: symbols from an nm-style listing ("ADDR TYPE NAME" lines;
 * only types t and T count, all taken as functions, no source lines),
 * read line by line with gprof's 1023-byte line buffer. */
static int collect_external(cg_symtab *t, cg_profile *p, asection *text, const char *path,
			    const cg_symtab_options *o, cg_error *err)
{
	char buf[1024], address[1024], name[1024], type;
	FILE *f = fopen(o->external_table, "r");
	size_t cap = 0;

	if (f == NULL)
		return cg_error_set(err, CG_EIO, CG_PROG_PREFIX_FMT "could not open %s.",
				    CG_PROG_PREFIX(o->program_name), o->external_table);
	while (fgets(buf, sizeof buf - 1, f)) {
		cg_sym *s;

		if (sscanf(buf, "%1023s %c %1023s", address, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (t->n == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			cg_sym *bigger = realloc(t->syms, ncap * sizeof *bigger);

			if (bigger == NULL) {
				fclose(f);
				return nomem(err, path);
			}
			t->syms = bigger;
			cap = ncap;
		}
		s = &t->syms[t->n];
		memset(s, 0, sizeof *s);
		s->addr = strtoull(address, NULL, 16);
		s->name = cg_profile_intern(p, name);
		if (s->name == NULL) {
			fclose(f);
			return nomem(err, path);
		}
		s->is_func = 1;
		s->is_static = type == 't';
		t->n++;
	}
	fclose(f);
	if (t->n == 0)
		return cg_error_set(err, CG_ENOTFOUND, CG_PROG_PREFIX_FMT "file `%s' has no symbols",
				    CG_PROG_PREFIX(o->program_name), o->external_table);
	return sort_and_finalize(t, text, path, err);
}

static int collect(cg_symtab *t, cg_profile *p, bfd *abfd, asection *text, asymbol **syms,
		   long nsyms, const char *path, const cg_symtab_options *o, cg_error *err)
{
	int lines = has_debug_lines(abfd);
	/* line mode asks BFD exactly as gprof does (with the symbol table),
	 * because the function names it gets back name the line symbols */
	asymbol **lookup_syms = o->line_symbols ? syms : NULL;
	int rc;
	long i;

	t->syms = calloc(nsyms > 0 ? (size_t)nsyms : 1, sizeof *t->syms);
	if (t->syms == NULL)
		return nomem(err, path);
	for (i = 0; i < nsyms; i++) {
		asymbol *sym = syms[i];
		int cls = symbol_class(abfd, sym, o);
		cg_sym *s;

		if (cls == 0)
			continue;
		s = &t->syms[t->n++];
		s->addr = sym->value + (sym->section ? bfd_section_vma(sym->section) : 0);
		s->name = cg_profile_intern(p, sym->name);
		if (s->name == NULL)
			return nomem(err, path);
		s->is_static = cls == 't';
		s->is_func = (sym->flags & BSF_FUNCTION) != 0;
		if (lines) {
			const char *file, *func;
			unsigned line;

			if (src_info(abfd, text, lookup_syms, s->addr, &file, &func, &line)) {
				s->file = cg_profile_intern(p, file);
				if (s->file == NULL)
					return nomem(err, path);
				s->line = line;
			}
		}
	}
	if (t->n == 0)
		return cg_error_set(err, CG_ENOTFOUND, CG_PROG_PREFIX_FMT "file `%s' has no symbols",
				    CG_PROG_PREFIX(o->program_name), path);
	rc = sort_and_finalize(t, text, path, err);
	/* without debug information there are no line symbols, but the
	 * table is still finalized a second time (which drops symbols whose
	 * range became empty, like data_start), as gprof does */
	if (rc == 0 && o->line_symbols)
		rc = add_line_symbols(t, p, abfd, text, syms, lines, path, o, err);
	return rc;
}

int cg_symtab_load(cg_symtab *t, cg_profile *p, const char *path, const cg_symtab_options *o,
		   cg_error *err)
{
	asymbol **syms = NULL;
	asection *text;
	long bound, nsyms;
	bfd *abfd;
	int rc;

	memset(t, 0, sizeof *t);
	cg_bfd_init_once();
	abfd = cg_bfd_open_regular(path);
	if (abfd == NULL) {
		if (errno == EINVAL)   /* a device or FIFO: what gprof says of /dev/zero */
			return cg_error_set(err, CG_EFORMAT,
					    CG_PROG_PREFIX_FMT "%s: not in executable format",
					    CG_PROG_PREFIX(o->program_name), path);
		return cg_error_set(err, CG_EIO, "%s: %s", path, strerror(errno));
	}
	abfd->flags |= BFD_DECOMPRESS;
	if (!bfd_check_format(abfd, bfd_object)) {
		rc = cg_error_set(err, CG_EFORMAT, CG_PROG_PREFIX_FMT "%s: not in executable format",
				  CG_PROG_PREFIX(o->program_name), path);
		goto out;
	}
	text = bfd_get_section_by_name(abfd, ".text");
	if (text == NULL)
		text = bfd_get_section_by_name(abfd, "$CODE$");
	if (text == NULL) {
		rc = cg_error_set(err, CG_ENOTFOUND, CG_PROG_PREFIX_FMT "can't find .text section in %s",
				  CG_PROG_PREFIX(o->program_name), path);
		goto out;
	}
	t->text_vma = bfd_section_vma(text);
	t->text_size = bfd_section_size(text);
	t->addr_bytes = bfd_get_arch_size(abfd) == 32 ? 4 : 8;
	if (bfd_get_arch_size(abfd) == -1)
		t->addr_bytes = bfd_arch_bits_per_address(abfd) == 32 ? 4 : 8;
	t->big_endian = bfd_big_endian(abfd);
	t->sign_extend = bfd_get_sign_extend_vma(abfd) == 1;

	bound = bfd_get_symtab_upper_bound(abfd);
	if (bound < 0) {
		rc = cg_error_set(err, CG_EFORMAT, CG_PROG_PREFIX_FMT "%s: %s",
				  CG_PROG_PREFIX(o->program_name), path, bfd_errmsg(bfd_get_error()));
		goto out;
	}
	syms = malloc(bound > 0 ? (size_t)bound : sizeof *syms);
	if (syms == NULL) {
		rc = nomem(err, path);
		goto out;
	}
	nsyms = bfd_canonicalize_symtab(abfd, syms);
	if (nsyms < 0) {
		rc = cg_error_set(err, CG_EFORMAT, CG_PROG_PREFIX_FMT "%s: %s",
				  CG_PROG_PREFIX(o->program_name), path, bfd_errmsg(bfd_get_error()));
		goto out;
	}
	if (o->external_table)
		rc = collect_external(t, p, text, path, o, err);
	else
		rc = collect(t, p, abfd, text, syms, nsyms, path, o, err);
out:
	free(syms);
	bfd_close(abfd);
	if (rc < 0)
		cg_symtab_release(t);
	return rc;
}

void cg_symtab_release(cg_symtab *t)
{
	free(t->syms);
	t->syms = NULL;
	t->n = 0;
}

long cg_symtab_lookup(const cg_symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	if (t->n == 0 || addr < t->syms[0].addr)
		return -1;
	/* greatest i with syms[i].addr <= addr */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return addr <= t->syms[lo].end_addr ? (long)lo : -1;
}
