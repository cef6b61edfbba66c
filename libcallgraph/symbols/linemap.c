/*
 * linemap.c — DWARF line tables decoded once with libdw, answering like
 * gprof 2.40's BFD (see linemap.h and docs/gprof-compat.md, 3.5).
 *
 * gprof -l asks BFD about every byte of .text, twice.  Each answer is
 * (file, line) from the line table row covering the address, and a
 * function name.  To be byte-identical with gprof we reproduce BFD's
 * answer, not its method:
 *
 * - compilation unit: the first unit (in .debug_info order) whose ranges
 *   hold the address and that knows a line row or a function there;
 * - line: BFD keeps, of consecutive rows at one address in a sequence,
 *   only the last; sorts sequences by start (longer first), drops nested
 *   ones and trims overlapping ones; the row covering the address is the
 *   last one at or below it, and a sequence's final row covers nothing;
 *   file names are joined with the unit's directory as BFD joins them;
 * - function: the subprogram, entry point or inlined subroutine with the
 *   smallest range holding the address (on a tie the later DIE);
 * - name: a function with a linkage name, or with a plain name in a
 *   language BFD knows is not mangled, answers with that name.  Any other
 *   is answered, the first time it is asked about, with the nearest ELF
 *   symbol at or below the address (and renamed after that symbol when
 *   the symbol sits at the function's first address); from then on it
 *   answers with its own (possibly renamed) name.  That first question is
 *   why BFD's answers about inlined code differ between gprof's two walks.
 *   Without a function the nearest ELF symbol names the address.
 *
 * Between two "boundaries" (row addresses, range ends, symbol addresses)
 * nothing but that first-question state can change, so a walk asks about
 * the first address of each stretch and one more, not every byte.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include "array.h"
#include "linemap.h"
#include "search.h"

typedef struct lm_row {
	uint64_t addr;
	const char *file;
	unsigned line;
	unsigned char end;
} lm_row;

typedef struct lm_seq {
	uint64_t low, high;   /* answers for [low, high) */
	size_t first, n;      /* rows [first, first + n) of the unit; the last ends it */
} lm_seq;

typedef struct lm_func {
	const char *name;
	uint64_t first_low;   /* low end of the first range BFD recorded */
	unsigned char is_linkage;
} lm_func;

/* One address range of a function or unit, in a table sorted by low end
 * whose `reach` is the highest end so far (so a binary search finds the
 * first range that can hold an address). */
typedef struct lm_range {
	uint64_t low, high, reach;
	uint32_t owner;
} lm_range;

typedef struct lm_unit {
	lm_row *rows;
	size_t nrows;
	lm_seq *seqs;
	size_t nseqs;
	lm_range *franges;
	size_t nfranges;
	/* where the last lookup in this unit ended (see "Hints" below) */
	size_t hint_seq, hint_row, hint_frange;
	unsigned char rows_sorted;   /* every sequence's rows in address order */
} lm_unit;

typedef struct lm_sym {
	uint64_t key;         /* address - .text address (BFD's section offset) */
	uint64_t size;
	const char *name;
	size_t order;
} lm_sym;

struct cg_linemap {
	int fd;
	Elf *elf;
	Dwarf *dwarf;
	uint64_t text_vma;
	lm_unit *units;
	size_t nunits;
	lm_func *funcs;
	size_t nfuncs, capfuncs;
	lm_range *uranges;    /* unit ranges; owner = unit index */
	size_t nuranges;
	lm_sym *syms;         /* one per address: BFD's pick among equals */
	size_t nsyms;
	uint64_t *bounds;
	size_t nbounds;
	char **owned;         /* joined file names */
	size_t nowned, capowned;
	size_t hint_urange, hint_sym, hint_bound;
	unsigned long changes;   /* first questions answered so far */
};

/* Languages whose DW_AT_name BFD 2.40 takes as the linkage name (names
 * that are not mangled). */
static int plain_names(Dwarf_Word lang)
{
	switch (lang) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_Ada83:
	case DW_LANG_Cobol74:
	case DW_LANG_Cobol85:
	case DW_LANG_Fortran77:
	case DW_LANG_Pascal83:
	case DW_LANG_C99:
	case DW_LANG_Ada95:
	case DW_LANG_PLI:
	case DW_LANG_UPC:
	case DW_LANG_C11:
		return 1;
	default:
		return 0;
	}
}

static int cmp_range(const void *a, const void *b)
{
	const lm_range *l = a, *r = b;

	if (l->low != r->low)
		return l->low < r->low ? -1 : 1;
	if (l->high != r->high)
		return l->high < r->high ? -1 : 1;
	return l->owner < r->owner ? -1 : l->owner > r->owner;
}

static void sort_ranges(lm_range *r, size_t n)
{
	uint64_t reach = 0;
	size_t i;

	if (n == 0)
		return;
	qsort(r, n, sizeof *r, cmp_range);
	for (i = 0; i < n; i++) {
		if (r[i].high > reach)
			reach = r[i].high;
		r[i].reach = reach;
	}
}

/* Hints.  A walk over .text asks in address order, so each search's
 * answer is the index the previous search ended at or the one after it:
 * every search first checks those two and only then bisects the table.
 * Questions in any other order get the same answers, only slower. */
#define HINT_TRIES 2

/* index of the first range whose reach passes addr (n if none) */
static size_t first_reaching(const lm_range *r, size_t n, uint64_t addr, size_t *hint)
{
	return cg_search_count_le(n ? &r[0].reach : NULL, sizeof *r, n, addr, hint);
}

static int add_range(lm_range **arr, size_t *n, size_t *cap, uint64_t low, uint64_t high,
		     uint32_t owner)
{
	if (cg_array_grow((void **)arr, cap, *n + 1, sizeof **arr, 64))
		return -1;
	(*arr)[*n].low = low;
	(*arr)[*n].high = high;
	(*arr)[*n].owner = owner;
	(*n)++;
	return 0;
}

static const char *attr_string(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute attr;

	if (dwarf_attr_integrate(die, name, &attr) == NULL)
		return NULL;
	return dwarf_formstring(&attr);
}

typedef struct unit_build {
	lm_range *fr;
	size_t nfr, capfr;
	int plain;
} unit_build;

/* Records one function DIE (with its ranges) as BFD's funcinfo. */
static int add_function(cg_linemap *m, unit_build *ub, Dwarf_Die *die)
{
	Dwarf_Addr base, low, high;
	ptrdiff_t off = 0;
	uint32_t idx = (uint32_t)m->nfuncs;
	int any = 0;
	lm_func *f;

	while ((off = dwarf_ranges(die, off, &base, &low, &high)) > 0) {
		if (low >= high)
			continue;
		if (!any) {
			if (cg_array_grow((void **)&m->funcs, &m->capfuncs, m->nfuncs + 1, sizeof *m->funcs, 64))
				return -1;
			f = &m->funcs[m->nfuncs++];
			f->first_low = low;
			f->name = attr_string(die, DW_AT_linkage_name);
			if (f->name == NULL)
				f->name = attr_string(die, DW_AT_MIPS_linkage_name);
			f->is_linkage = f->name != NULL;
			if (f->name == NULL) {
				f->name = attr_string(die, DW_AT_name);
				f->is_linkage = f->name != NULL && ub->plain;
			}
			any = 1;
		}
		if (add_range(&ub->fr, &ub->nfr, &ub->capfr, low, high, idx) < 0)
			return -1;
	}
	return 0;
}

static int scan_dies(cg_linemap *m, unit_build *ub, Dwarf_Die *parent, int depth)
{
	Dwarf_Die child;

	if (depth > 256 || dwarf_child(parent, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_subprogram || tag == DW_TAG_entry_point ||
		    tag == DW_TAG_inlined_subroutine)
			if (add_function(m, ub, &child) < 0)
				return -1;
		if (dwarf_haschildren(&child) > 0 && scan_dies(m, ub, &child, depth + 1) < 0)
			return -1;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* BFD's name for a row's file: relative names are joined with the unit's
 * compilation directory. */
static const char *row_file(cg_linemap *m, const char *src, const char *comp_dir,
			    const char **last_src, const char **last_name)
{
	char *joined;
	size_t a, b;

	if (src == NULL)
		return NULL;
	if (src == *last_src)
		return *last_name;
	*last_src = src;
	*last_name = src;
	if (src[0] == '/' || comp_dir == NULL)
		return src;
	a = strlen(comp_dir);
	b = strlen(src);
	joined = malloc(a + b + 2);
	if (joined == NULL || cg_array_grow((void **)&m->owned, &m->capowned, m->nowned + 1, sizeof *m->owned, 64)) {
		free(joined);
		return NULL;
	}
	memcpy(joined, comp_dir, a);
	joined[a] = '/';
	memcpy(joined + a + 1, src, b + 1);
	m->owned[m->nowned++] = joined;
	*last_name = joined;
	return joined;
}

/* Do the rows of every sequence rise (the answering rows strictly, the
 * closing one not below them)?  Only then can a row search start from the
 * hint (a corrupt line program may go backwards; then it bisects). */
static int rows_in_order(const lm_unit *u)
{
	size_t i, j;

	for (i = 0; i < u->nseqs; i++) {
		const lm_seq *s = &u->seqs[i];

		for (j = s->first + 1; j < s->first + s->n; j++) {
			uint64_t prev = u->rows[j - 1].addr, cur = u->rows[j].addr;

			if (j + 1 < s->first + s->n ? cur <= prev : cur < prev)
				return 0;
		}
	}
	return 1;
}

static int cmp_seq(const void *a, const void *b)
{
	const lm_seq *l = a, *r = b;

	if (l->low != r->low)
		return l->low < r->low ? -1 : 1;
	if (l->high != r->high)
		return l->high > r->high ? -1 : 1;
	return l->first < r->first ? -1 : l->first > r->first;
}

/* Rows -> BFD's sequences: consecutive rows at one address keep the last;
 * nested sequences are dropped and overlapping ones trimmed. */
static int decode_lines(cg_linemap *m, lm_unit *u, Dwarf_Die *cudie, const char *comp_dir,
			int version)
{
	Dwarf_Lines *lines;
	Dwarf_Files *files = NULL;
	size_t n, nfiles = 0, i, capseqs = 0, k;
	const char *last_src = NULL, *last_name = NULL, *entry0 = NULL;
	int open = 0, file_set = 0;

	if (dwarf_getsrclines(cudie, &lines, &n) != 0)
		return 0;
	/* BFD 2.40 starts each DWARF 5 sequence on file entry 0 (the unit's
	 * own file), not on entry 1 as the line program's file register
	 * says: rows before the first file change name entry 0 */
	if (version >= 5 && dwarf_getsrcfiles(cudie, &files, &nfiles) == 0 && nfiles > 0)
		entry0 = dwarf_filesrc(files, 0, NULL, NULL);
	u->rows = malloc((n ? n : 1) * sizeof *u->rows);
	if (u->rows == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		Dwarf_Line *line = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		bool end = false;
		int lineno = 0;
		size_t file_idx = 1;
		const char *src;
		Dwarf_Files *line_files;
		lm_row *r;

		if (line == NULL || dwarf_lineaddr(line, &addr) != 0)
			continue;
		dwarf_lineendsequence(line, &end);
		dwarf_lineno(line, &lineno);
		if (open && u->rows[u->nrows - 1].addr == addr && u->rows[u->nrows - 1].end == end) {
			r = &u->rows[u->nrows - 1];
		} else {
			if (!open) {
				if (cg_array_grow((void **)&u->seqs, &capseqs, u->nseqs + 1, sizeof *u->seqs, 64))
					return -1;
				u->seqs[u->nseqs].first = u->nrows;
				u->seqs[u->nseqs].n = 0;
				u->nseqs++;
				open = 1;
			}
			r = &u->rows[u->nrows++];
			u->seqs[u->nseqs - 1].n++;
		}
		r->addr = addr;
		r->end = end;
		r->line = lineno > 0 ? (unsigned)lineno : 0;
		if (dwarf_line_file(line, &line_files, &file_idx) != 0)
			file_idx = 1;
		if (file_idx != 1)
			file_set = 1;
		src = entry0 != NULL && !file_set ? entry0 : dwarf_linesrc(line, NULL, NULL);
		r->file = row_file(m, src, comp_dir, &last_src, &last_name);
		if (end) {
			open = 0;
			file_set = 0;
		}
	}
	for (i = 0; i < u->nseqs; i++) {
		lm_seq *s = &u->seqs[i];

		s->low = u->rows[s->first].addr;
		s->high = u->rows[s->first + s->n - 1].addr;
	}
	if (u->nseqs == 0)
		return 0;
	u->rows_sorted = rows_in_order(u);
	qsort(u->seqs, u->nseqs, sizeof *u->seqs, cmp_seq);
	k = 1;
	for (i = 1; i < u->nseqs; i++) {
		uint64_t last_high = u->seqs[k - 1].high;

		if (u->seqs[i].low < last_high) {
			if (u->seqs[i].high <= last_high)
				continue;
			u->seqs[i].low = last_high;
		}
		u->seqs[k++] = u->seqs[i];
	}
	u->nseqs = k;
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const lm_sym *l = a, *r = b;

	if (l->key != r->key)
		return l->key < r->key ? -1 : 1;
	if (l->size != r->size)
		return l->size > r->size ? -1 : 1;
	return l->order < r->order ? -1 : l->order > r->order;
}

/* The symbols BFD's function fallback considers: .text symbols that are
 * not sections, files, objects or TLS; sizeless hidden local untyped
 * labels excluded. */
static int load_symbols(cg_linemap *m)
{
	Elf_Scn *scn = NULL, *text = NULL;
	size_t shstrndx, cap = 0, i, k;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(m->elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(m->elf, scn)) != NULL) {
		const char *name;

		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		name = elf_strptr(m->elf, shstrndx, sh.sh_name);
		if (name && strcmp(name, ".text") == 0 && text == NULL)
			text = scn;
	}
	if (text == NULL)
		return 0;
	scn = NULL;
	while ((scn = elf_nextscn(m->elf, scn)) != NULL) {
		Elf_Data *data;
		size_t count;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0)
			continue;
		data = elf_getdata(scn, NULL);
		if (data == NULL)
			continue;
		count = sh.sh_size / sh.sh_entsize;
		for (i = 1; i < count; i++) {
			GElf_Sym sym;
			int type;
			const char *name;

			if (gelf_getsym(data, (int)i, &sym) == NULL)
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			if (sym.st_shndx != elf_ndxscn(text) || type == STT_SECTION ||
			    type == STT_FILE || type == STT_OBJECT || type == STT_TLS)
				continue;
			if (sym.st_size == 0 && GELF_ST_BIND(sym.st_info) == STB_LOCAL &&
			    type == STT_NOTYPE && GELF_ST_VISIBILITY(sym.st_other) == STV_HIDDEN)
				continue;
			name = elf_strptr(m->elf, sh.sh_link, sym.st_name);
			if (name == NULL)
				continue;
			if (cg_array_grow((void **)&m->syms, &cap, m->nsyms + 1, sizeof *m->syms, 64))
				return -1;
			m->syms[m->nsyms].key = sym.st_value - m->text_vma;
			m->syms[m->nsyms].size = sym.st_size ? sym.st_size : 1;
			m->syms[m->nsyms].name = name;
			m->syms[m->nsyms].order = m->nsyms;
			m->nsyms++;
		}
		break;
	}
	if (m->nsyms == 0)
		return 0;
	qsort(m->syms, m->nsyms, sizeof *m->syms, cmp_sym);
	k = 1;
	for (i = 1; i < m->nsyms; i++)
		if (m->syms[i].key != m->syms[k - 1].key)
			m->syms[k++] = m->syms[i];
	m->nsyms = k;
	return 0;
}

/* Sorts a[0..n) with tmp[0..n) as scratch: a least significant digit
 * radix sort, a byte at a time, skipping the bytes all values share
 * (addresses of one executable differ in their low three or four). */
static void sort_u64(uint64_t *a, uint64_t *tmp, size_t n)
{
	uint64_t *from = a, *to = tmp, *swap, differ = 0;
	unsigned shift;
	size_t i;

	for (i = 1; i < n; i++)
		differ |= a[i] ^ a[0];
	for (shift = 0; shift < 64 && n > 1; shift += 8) {
		size_t count[256] = { 0 }, pos = 0, c;
		unsigned b;

		if (((differ >> shift) & 255) == 0)
			continue;
		for (i = 0; i < n; i++)
			count[(from[i] >> shift) & 255]++;
		for (b = 0; b < 256; b++) {
			c = count[b];
			count[b] = pos;
			pos += c;
		}
		for (i = 0; i < n; i++)
			to[count[(from[i] >> shift) & 255]++] = from[i];
		swap = from;
		from = to;
		to = swap;
	}
	if (from != a)
		memcpy(a, from, n * sizeof *a);
}

static int collect_bounds(cg_linemap *m)
{
	size_t cap = 0, need = m->nsyms + 2 * m->nuranges, n = 0, i, j, k;
	uint64_t *b, *tmp;

	for (i = 0; i < m->nunits; i++)
		need += m->units[i].nrows + 2 * m->units[i].nseqs + 2 * m->units[i].nfranges;
	if (need == 0)
		return 0;
	if (cg_array_grow((void **)&m->bounds, &cap, need, sizeof *m->bounds, need))
		return -1;
	b = m->bounds;
	for (i = 0; i < m->nunits; i++) {
		const lm_unit *u = &m->units[i];

		for (j = 0; j < u->nrows; j++)
			b[n++] = u->rows[j].addr;
		for (j = 0; j < u->nseqs; j++) {
			b[n++] = u->seqs[j].low;
			b[n++] = u->seqs[j].high;
		}
		for (j = 0; j < u->nfranges; j++) {
			b[n++] = u->franges[j].low;
			b[n++] = u->franges[j].high;
		}
	}
	for (i = 0; i < m->nuranges; i++) {
		b[n++] = m->uranges[i].low;
		b[n++] = m->uranges[i].high;
	}
	for (i = 0; i < m->nsyms; i++)
		b[n++] = m->syms[i].key + m->text_vma;
	tmp = malloc(n * sizeof *tmp);
	if (tmp == NULL)
		return -1;
	sort_u64(b, tmp, n);
	free(tmp);
	k = 1;
	for (i = 1; i < n; i++)
		if (b[i] != b[k - 1])
			b[k++] = b[i];
	m->nbounds = k;
	return 0;
}

static int decode_units(cg_linemap *m)
{
	Dwarf_Off off = 0, next;
	size_t hsize, capunits = 0, capur = 0;

	Dwarf_Half version;

	while (dwarf_next_unit(m->dwarf, off, &next, &hsize, &version, NULL, NULL, NULL, NULL,
			       NULL) == 0) {
		Dwarf_Die cudie;
		Dwarf_Attribute attr;
		Dwarf_Word lang = 0;
		Dwarf_Addr base, low, high;
		ptrdiff_t roff = 0;
		unit_build ub = { NULL, 0, 0, 0 };
		lm_unit *u;
		uint32_t idx = (uint32_t)m->nunits;

		if (dwarf_offdie(m->dwarf, off + hsize, &cudie) == NULL) {
			off = next;
			continue;
		}
		off = next;
		if (dwarf_tag(&cudie) != DW_TAG_compile_unit)
			continue;
		if (cg_array_grow((void **)&m->units, &capunits, m->nunits + 1, sizeof *m->units, 64))
			return -1;
		u = &m->units[m->nunits++];
		memset(u, 0, sizeof *u);
		if (dwarf_attr(&cudie, DW_AT_language, &attr) != NULL)
			dwarf_formudata(&attr, &lang);
		ub.plain = plain_names(lang);
		while ((roff = dwarf_ranges(&cudie, roff, &base, &low, &high)) > 0)
			if (low < high && add_range(&m->uranges, &m->nuranges, &capur, low, high, idx) < 0)
				return -1;
		if (decode_lines(m, u, &cudie, attr_string(&cudie, DW_AT_comp_dir), version) < 0)
			return -1;
		if (scan_dies(m, &ub, &cudie, 0) < 0) {
			free(ub.fr);
			return -1;
		}
		sort_ranges(ub.fr, ub.nfr);
		u->franges = ub.fr;
		u->nfranges = ub.nfr;
	}
	sort_ranges(m->uranges, m->nuranges);
	return 0;
}

int cg_linemap_open(cg_linemap **out, const char *path, uint64_t text_vma, cg_error *err)
{
	cg_linemap *m = calloc(1, sizeof *m);
	int rc = 1;

	*out = NULL;
	if (m == NULL)
		return cg_error_set(err, CG_ENOMEM, "%s: out of memory reading line tables", path);
	m->text_vma = text_vma;
	elf_version(EV_CURRENT);
	m->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (m->fd < 0) {
		free(m);
		return 0;
	}
	m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
	if (m->elf == NULL || elf_kind(m->elf) != ELF_K_ELF) {
		cg_linemap_free(m);
		return 0;
	}
	m->dwarf = dwarf_begin_elf(m->elf, DWARF_C_READ, NULL);
	if (m->dwarf == NULL) {
		cg_linemap_free(m);
		return 0;
	}
	if (decode_units(m) < 0 || load_symbols(m) < 0 || collect_bounds(m) < 0)
		rc = cg_error_set(err, CG_ENOMEM, "%s: out of memory reading line tables", path);
	if (rc != 1) {
		cg_linemap_free(m);
		return rc;
	}
	*out = m;
	return 1;
}

void cg_linemap_free(cg_linemap *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->nunits; i++) {
		free(m->units[i].rows);
		free(m->units[i].seqs);
		free(m->units[i].franges);
	}
	for (i = 0; i < m->nowned; i++)
		free(m->owned[i]);
	free(m->owned);
	free(m->units);
	free(m->funcs);
	free(m->uranges);
	free(m->syms);
	free(m->bounds);
	if (m->dwarf)
		dwarf_end(m->dwarf);
	if (m->elf)
		elf_end(m->elf);
	if (m->fd >= 0)
		close(m->fd);
	free(m);
}

size_t cg_linemap_rows(const cg_linemap *m)
{
	size_t i, n = 0;

	for (i = 0; i < m->nunits; i++)
		n += m->units[i].nrows;
	return n;
}

/* the sequence of u holding addr, or NULL */
static const lm_seq *find_seq(lm_unit *u, uint64_t addr)
{
	size_t lo = 0, hi = u->nseqs, h = u->hint_seq, k;
	const lm_seq *s;

	/* sequences do not overlap: the one holding addr is the answer */
	for (k = 0; k < HINT_TRIES && h < u->nseqs; k++, h++)
		if (u->seqs[h].low <= addr && addr < u->seqs[h].high)
			goto found;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < u->seqs[mid].low)
			hi = mid;
		else if (addr >= u->seqs[mid].high)
			lo = mid + 1;
		else {
			lo = mid;
			break;
		}
	}
	if (lo >= u->nseqs)
		return NULL;
	s = &u->seqs[lo];
	if (addr < s->low || addr >= s->high)
		return NULL;
	h = lo;
found:
	if (h != u->hint_seq) {
		u->hint_seq = h;
		u->hint_row = u->seqs[h].first;
	}
	return &u->seqs[h];
}

static const lm_row *find_row(lm_unit *u, uint64_t addr)
{
	const lm_seq *s = find_seq(u, addr);
	size_t lo, hi, h, k;

	if (s == NULL)
		return NULL;
	/* the last row at or below addr, never the closing one */
	lo = s->first;
	hi = s->first + s->n - 1;
	h = u->hint_row;
	if (u->rows_sorted)
		for (k = 0; k < HINT_TRIES && h >= lo && h < hi; k++, h++)
			if (u->rows[h].addr <= addr && (h + 1 == hi || u->rows[h + 1].addr > addr)) {
				lo = h;
				goto found;
			}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->rows[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
found:
	u->hint_row = lo;
	return u->rows[lo].end ? NULL : &u->rows[lo];
}

static long best_function(lm_unit *u, uint64_t addr)
{
	size_t i = first_reaching(u->franges, u->nfranges, addr, &u->hint_frange);
	uint64_t best_len = UINT64_MAX;
	long best = -1;

	for (; i < u->nfranges && u->franges[i].low <= addr; i++) {
		const lm_range *r = &u->franges[i];
		uint64_t len = r->high - r->low;

		if (addr >= r->high)
			continue;
		if (len < best_len || (len == best_len && (long)r->owner > best)) {
			best = r->owner;
			best_len = len;
		}
	}
	return best;
}

static const lm_sym *nearest_symbol(cg_linemap *m, uint64_t addr)
{
	uint64_t key = addr - m->text_vma;

	if (m->nsyms == 0 || key < m->syms[0].key)
		return NULL;
	/* keys are unique: the last one at or below key is the answer */
	return &m->syms[cg_search_count_le(&m->syms[0].key, sizeof *m->syms, m->nsyms, key,
					   &m->hint_sym) - 1];
}

int cg_linemap_lookup(cg_linemap *m, uint64_t addr, const char **file, const char **func,
		      unsigned *line)
{
	const lm_row *row = NULL;
	long fi = -1, tried = -1;
	size_t i;

	*file = *func = NULL;
	*line = 0;
	/* the units holding addr (rarely more than one), in unit order,
	 * until one knows a row or a function there */
	for (;;) {
		long unit = -1;

		for (i = first_reaching(m->uranges, m->nuranges, addr, &m->hint_urange);
		     i < m->nuranges && m->uranges[i].low <= addr; i++) {
			const lm_range *r = &m->uranges[i];

			if (addr < r->high && (long)r->owner > tried &&
			    (unit < 0 || (long)r->owner < unit))
				unit = r->owner;
		}
		if (unit < 0)
			break;
		tried = unit;
		row = find_row(&m->units[unit], addr);
		fi = best_function(&m->units[unit], addr);
		if (row != NULL || fi >= 0)
			break;
	}
	if (row != NULL) {
		*file = row->file;
		*line = row->line;
	}
	if (fi >= 0 && m->funcs[fi].is_linkage) {
		*func = m->funcs[fi].name;
	} else {
		const lm_sym *s = nearest_symbol(m, addr);

		if (fi >= 0) {
			lm_func *f = &m->funcs[fi];

			if (s == NULL)
				*func = f->name;
			else {
				if (s->key + m->text_vma == f->first_low)
					f->name = s->name;
				*func = s->name;
			}
			f->is_linkage = 1;
			m->changes++;
		} else if (s != NULL) {
			*func = s->name;
		}
	}
	return *file != NULL && *line != 0 && *func != NULL;
}

uint64_t cg_linemap_next_boundary(cg_linemap *m, uint64_t addr)
{
	/* bounds are unique: the first one above addr is the answer */
	size_t i = cg_search_count_le(m->bounds, sizeof *m->bounds, m->nbounds, addr, &m->hint_bound);

	return i < m->nbounds ? m->bounds[i] : UINT64_MAX;
}

unsigned long cg_linemap_changes(const cg_linemap *m)
{
	return m->changes;
}
