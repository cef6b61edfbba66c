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

#include "array.h"
#include "search.h"
#include "symtab_bfd.h"
#include "linemap.h"

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

/* Where source positions come from: BFD, or in line mode the line map
 * decoded once (linemap.c answers as BFD would). */
typedef struct line_source {
	bfd *abfd;
	asection *text;
	asymbol **syms;
	cg_linemap *map;
} line_source;

/* gprof's get_src_info: the source position of addr, if BFD knows a file,
 * a function and a non-zero line.  `syms` is NULL in function mode (see
 * the top of this file); then the function name is not required. */
static int src_info(const line_source *ls, uint64_t addr, const char **file, const char **func,
		    unsigned *line)
{
	bfd *abfd = ls->abfd;
	asection *text = ls->text;
	asymbol **syms = ls->syms;

	if (ls->map)
		return cg_linemap_lookup(ls->map, addr, file, func, line);
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
 * back in (they win at shared addresses).
 *
 * gprof counts the line symbols in a first walk and makes them in a
 * second one.  BFD's answers are not always the same the second time (it
 * renames DWARF functions after the symbols it finds), and then gprof
 * stops with "somebody miscounted"; so do we, with the same numbers.
 *
 * With the line map a walk asks about the first byte of each stretch
 * between boundaries, and about the byte after it only when that first
 * question changed the map (the first question about a function, see
 * linemap.c): nothing else can differ inside a stretch.  A walk that
 * changed nothing would get the same answers again, so its symbols are
 * the second walk's and it is the only walk.  With BFD every byte is
 * asked, in two walks. */
typedef struct line_walk {
	cg_sym *syms;         /* the line symbols made, in address order */
	size_t n, cap;
	/* the strings the source gave for syms[n - 1] (line map only: its
	 * strings stay put, so the same pointer is the same string) */
	const char *raw_name, *raw_file;
} line_walk;

/* Does the answer (func, file, line) continue the last line symbol? */
static int continues(const line_walk *w, int stable, const char *func, const char *file,
		     unsigned line)
{
	const cg_sym *prev = w->n ? &w->syms[w->n - 1] : NULL;

	if (prev == NULL || prev->line != line)
		return 0;
	if (stable && func == w->raw_name && file == w->raw_file)
		return 1;
	return strcmp(prev->name, func) == 0 && strcmp(prev->file, file) == 0;
}

static int make_line_symbol(const cg_symtab *t, cg_profile *p, line_walk *w, int stable,
			    uint64_t vma, const char *func, const char *file, unsigned line)
{
	const cg_sym *prev;
	cg_sym *s;
	long f;

	if (cg_array_grow((void **)&w->syms, &w->cap, w->n + 1, sizeof *w->syms, 1024))
		return CG_ENOMEM;
	prev = w->n ? &w->syms[w->n - 1] : NULL;
	s = &w->syms[w->n];
	memset(s, 0, sizeof *s);
	s->addr = vma;
	s->name = stable && prev && func == w->raw_name ? prev->name : cg_profile_intern(p, func);
	s->file = stable && prev && file == w->raw_file ? prev->file : cg_profile_intern(p, file);
	if (s->name == NULL || s->file == NULL)
		return CG_ENOMEM;
	s->line = line;
	/* static-ness of the enclosing function (interned: equal strings
	 * are the same pointer) */
	if (prev && prev->file == s->file && prev->name == s->name) {
		s->is_static = prev->is_static;
	} else {
		f = cg_symtab_lookup(t, vma);
		s->is_static = f >= 0 && t->syms[f].is_static;
	}
	w->raw_name = func;
	w->raw_file = file;
	w->n++;
	return 0;
}

static int visit(const cg_symtab *t, cg_profile *p, const line_source *src, line_walk *w,
		 uint64_t vma)
{
	const char *file, *func;
	unsigned line;
	int stable = src->map != NULL;

	if (!src_info(src, vma, &file, &func, &line) || continues(w, stable, func, file, line))
		return 0;
	return make_line_symbol(t, p, w, stable, vma, func, file, line);
}

/* One walk over [vma, end): w's symbols are replaced by the walk's. */
static int walk_text(const cg_symtab *t, cg_profile *p, const line_source *src, uint64_t vma,
		     uint64_t end, line_walk *w)
{
	int rc = 0;

	w->n = 0;
	w->raw_name = w->raw_file = NULL;
	while (vma < end && rc == 0) {
		uint64_t next = vma + 1;

		if (src->map) {
			unsigned long before = cg_linemap_changes(src->map);

			rc = visit(t, p, src, w, vma);
			next = cg_linemap_next_boundary(src->map, vma);
			if (rc == 0 && cg_linemap_changes(src->map) != before && vma + 1 < next)
				rc = visit(t, p, src, w, vma + 1);
		} else {
			rc = visit(t, p, src, w, vma);
		}
		vma = next;
	}
	return rc;
}

/* The line symbols (address order, one per address) merged into the
 * function table (address order): what a stable sort of lines then
 * functions gives, without sorting. */
static int merge_line_symbols(cg_symtab *t, const line_walk *w, asection *text, const char *path,
			      cg_error *err)
{
	size_t nf = t->n, i = 0, j = 0, k = 0;
	cg_sym *all = malloc((w->n + nf + 1) * sizeof *all);

	if (all == NULL)
		return nomem(err, path);
	while (i < w->n && j < nf)
		all[k++] = cmp_candidates(&t->syms[j], &w->syms[i]) < 0 ? t->syms[j++] : w->syms[i++];
	while (i < w->n)
		all[k++] = w->syms[i++];
	while (j < nf)
		all[k++] = t->syms[j++];
	free(t->syms);
	t->syms = all;
	t->n = k;
	t->n = finalize(t->syms, t->n, bfd_section_vma(text) + bfd_section_size(text) - 1);
	return 0;
}

static int add_line_symbols(cg_symtab *t, cg_profile *p, const line_source *src, int walk,
			    const char *path, const cg_symtab_options *o, cg_error *err)
{
	asection *text = src->text;
	uint64_t vma = bfd_section_vma(text), end = walk ? vma + bfd_section_size(text) : vma;
	unsigned long changes = src->map ? cg_linemap_changes(src->map) : 0;
	line_walk w = { NULL, 0, 0, NULL, NULL };
	int rc = walk_text(t, p, src, vma, end, &w);

	if (rc == 0 && (src->map == NULL || cg_linemap_changes(src->map) != changes)) {
		size_t counted = w.n;

		rc = walk_text(t, p, src, vma, end, &w);
		if (rc == 0 && w.n != counted) {
			free(w.syms);
			return cg_error_set(err, CG_EFORMAT,
					    CG_PROG_PREFIX_FMT "somebody miscounted: ltab.len=%d instead of %ld",
					    CG_PROG_PREFIX(o->program_name), (int)(counted + t->n),
					    (long)(w.n + t->n));
		}
	}
	if (rc == 0)
		rc = merge_line_symbols(t, &w, text, path, err);
	else
		rc = nomem(err, path);
	free(w.syms);
	return rc;
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
	line_source src = { abfd, text, o->line_symbols ? syms : NULL, NULL };
	int rc;
	long i;

	t->syms = calloc(nsyms > 0 ? (size_t)nsyms : 1, sizeof *t->syms);
	if (t->syms == NULL)
		return nomem(err, path);
	/* line mode decodes the line tables once instead of asking BFD about
	 * every byte; without DWARF the map declines and BFD answers */
	if (lines && o->line_symbols && bfd_get_section_by_name(abfd, ".stab") == NULL) {
		rc = cg_linemap_open(&src.map, path, bfd_section_vma(text), err);
		if (rc < 0)
			return rc;
	}
	for (i = 0; i < nsyms; i++) {
		asymbol *sym = syms[i];
		int cls = symbol_class(abfd, sym, o);
		cg_sym *s;

		if (cls == 0)
			continue;
		s = &t->syms[t->n++];
		s->addr = sym->value + (sym->section ? bfd_section_vma(sym->section) : 0);
		s->name = cg_profile_intern(p, sym->name);
		if (s->name == NULL) {
			cg_linemap_free(src.map);
			return nomem(err, path);
		}
		s->is_static = cls == 't';
		s->is_func = (sym->flags & BSF_FUNCTION) != 0;
		if (lines) {
			const char *file, *func;
			unsigned line;

			if (src_info(&src, s->addr, &file, &func, &line)) {
				s->file = cg_profile_intern(p, file);
				if (s->file == NULL) {
					cg_linemap_free(src.map);
					return nomem(err, path);
				}
				s->line = line;
			}
		}
	}
	if (t->n == 0) {
		cg_linemap_free(src.map);
		return cg_error_set(err, CG_ENOTFOUND, CG_PROG_PREFIX_FMT "file `%s' has no symbols",
				    CG_PROG_PREFIX(o->program_name), path);
	}
	rc = sort_and_finalize(t, text, path, err);
	/* without debug information there are no line symbols, but the
	 * table is still finalized a second time (which drops symbols whose
	 * range became empty, like data_start), as gprof does */
	if (rc == 0 && o->line_symbols)
		rc = add_line_symbols(t, p, &src, lines, path, o, err);
	cg_linemap_free(src.map);
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
	if (rc == 0) {
		t->addrs = malloc((t->n ? t->n : 1) * sizeof *t->addrs);
		if (t->addrs == NULL) {
			rc = nomem(err, path);
			goto out;
		}
		for (size_t i = 0; i < t->n; i++)
			t->addrs[i] = t->syms[i].addr;
	}
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
	free(t->addrs);
	t->syms = NULL;
	t->addrs = NULL;
	t->n = 0;
}

long cg_symtab_lookup(const cg_symtab *t, uint64_t addr)
{
	size_t below;

	if (t->n == 0 || addr < t->syms[0].addr)
		return -1;
	/* greatest i with syms[i].addr <= addr: in the compact copy of the
	 * addresses once there is one */
	below = t->addrs ? cg_search_count_le(t->addrs, sizeof *t->addrs, t->n, addr, NULL)
			 : cg_search_count_le(&t->syms[0].addr, sizeof *t->syms, t->n, addr, NULL);
	return addr <= t->syms[below - 1].end_addr ? (long)(below - 1) : -1;
}
