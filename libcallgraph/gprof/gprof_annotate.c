/*
 * gprof_annotate.c — gprof's annotated source listing (-A) at function
 * granularity: every source line that starts a function is prefixed with
 * the function's call count, followed per file by the most executed lines
 * and a short summary, exactly as gprof 2.40 writes them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bfd.h>
#include "gprof_internal.h"
#include "symtab_bfd.h"

#define ANNOTATION_WIDTH 16

typedef struct slot {
	uint64_t ncalls;
	uint32_t line;
	uint8_t used, merged, is_func;
} slot;

typedef struct src_file {
	const char *name;
	uint32_t num_lines;
	uint64_t ncalls;
	slot *lines;
} src_file;

typedef struct annotator {
	const cg_gprof_analysis *a;
	FILE *out;
	int *first_output;
	int first_file;
	unsigned long last_count;   /* gprof keeps it across lines and files */
	long executable_lines, lines_executed;
	src_file *files;
	size_t nfiles;
	uint32_t *file_of_sym;      /* symbol -> file index or GP_NONE */
} annotator;

static void message(const annotator *an, const char *fmt, const char *arg1, const char *arg2)
{
	FILE *m = an->a->opts.messages;
	if (!m)
		return;
	fprintf(m, fmt, arg1, arg2);
}

static size_t find_file(const annotator *an, const char *name)
{
	for (size_t i = 0; i < an->nfiles; i++)
		if (an->files[i].name == name || strcmp(an->files[i].name, name) == 0)
			return i;
	return (size_t)-1;
}

static int add_file(annotator *an, const char *name, size_t len, size_t *cap)
{
	for (size_t i = 0; i < an->nfiles; i++)
		if (strlen(an->files[i].name) == len && memcmp(an->files[i].name, name, len) == 0)
			return 0;
	if (an->nfiles == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		src_file *nf = realloc(an->files, *cap * sizeof *nf);
		if (!nf)
			return CG_ENOMEM;
		an->files = nf;
	}
	char *copy = strndup(name, len);
	if (!copy)
		return CG_ENOMEM;
	an->files[an->nfiles++] = (src_file){ copy, 0, 0, NULL };
	return 0;
}

/* Symbol with this address, or GP_NONE (symbols are in address order). */
static uint32_t sym_at(const cg_gprof_analysis *a, uint64_t addr)
{
	uint32_t lo = 0, hi = a->nsyms;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (a->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < a->nsyms && a->syms[lo].addr == addr ? lo : GP_NONE;
}

/* gprof learns source files while reading the executable's symbol table
 * in file order and keeps them newest first.  When the reader did not
 * record that order, read the symbol table again to find it. */
static int files_from_executable(annotator *an, size_t *cap)
{
	const cg_gprof_analysis *a = an->a;
	const char *exe = cg_profile_meta(a->profile, "executable");
	if (!exe || a->nsyms == 0 || !(a->syms[0].flags & CG_FN_HAS_ADDR))
		return 0;
	bfd *abfd = cg_bfd_open_regular(exe);
	if (!abfd)
		return 0;
	int rc = 0;
	asymbol **symbols = NULL;
	const char *prev = NULL;
	if (bfd_check_format(abfd, bfd_object) && (bfd_get_file_flags(abfd) & HAS_SYMS)) {
		long size = bfd_get_symtab_upper_bound(abfd);
		symbols = size > 0 ? malloc((size_t)size) : NULL;
		long n = symbols ? bfd_canonicalize_symtab(abfd, symbols) : 0;
		for (long i = 0; i < n && !rc; i++) {
			const asymbol *sym = symbols[i];
			if (sym->flags & (BSF_SECTION_SYM | BSF_FILE | BSF_DEBUGGING))
				continue;
			if (bfd_is_und_section(sym->section) || bfd_is_com_section(sym->section))
				continue;
			uint32_t s = sym_at(a, (uint64_t)bfd_asymbol_value(sym));
			if (s != GP_NONE && a->syms[s].file && a->syms[s].file != prev) {
				prev = a->syms[s].file;
				rc = add_file(an, prev, strlen(prev), cap);
			}
		}
	}
	free(symbols);
	bfd_close(abfd);
	/* newest first */
	for (size_t i = 0, j = an->nfiles; j > 0 && i < j - 1; i++, j--) {
		src_file t = an->files[i];
		an->files[i] = an->files[j - 1];
		an->files[j - 1] = t;
	}
	return rc;
}

/* gprof's source file list: given by the reader, else from the
 * executable's symbol table, else newest first by each file's first
 * function. */
static int collect_files(annotator *an)
{
	const cg_gprof_analysis *a = an->a;
	size_t cap = 0;
	const char *listed = cg_profile_meta(a->profile, "gprof.source_files");
	if (!listed && files_from_executable(an, &cap))
		return CG_ENOMEM;
	while (listed && *listed) {
		const char *nl = strchr(listed, '\n');
		size_t len = nl ? (size_t)(nl - listed) : strlen(listed);
		if (len && add_file(an, listed, len, &cap))
			return CG_ENOMEM;
		listed = nl ? nl + 1 : listed + len;
	}
	size_t given = an->nfiles;
	const char *prev = NULL;    /* neighbours usually share their file */
	for (uint32_t i = 0; i < a->nsyms; i++) {
		const char *f = a->syms[i].file;
		if (f && f != prev && add_file(an, f, strlen(f), &cap))
			return CG_ENOMEM;
		prev = f;
	}
	/* Files the reader did not list: newest first. */
	for (size_t i = given, j = an->nfiles; i < j - 1 && j > 0; i++, j--) {
		src_file t = an->files[i];
		an->files[i] = an->files[j - 1];
		an->files[j - 1] = t;
	}
	an->file_of_sym = malloc(((size_t)a->nsyms + 1) * sizeof *an->file_of_sym);
	if (!an->file_of_sym)
		return CG_ENOMEM;
	size_t last = (size_t)-1;
	for (uint32_t i = 0; i < a->nsyms; i++) {
		const char *f = a->syms[i].file;
		if (!f) {
			an->file_of_sym[i] = GP_NONE;
			continue;
		}
		if (last == (size_t)-1 || strcmp(an->files[last].name, f) != 0)
			last = find_file(an, f);
		an->file_of_sym[i] = (uint32_t)last;
	}
	return 0;
}

/* Per line: the function starting there (several: counts summed). */
static int fill_lines(annotator *an)
{
	const cg_gprof_analysis *a = an->a;
	for (uint32_t i = 0; i < a->nsyms; i++) {
		uint32_t f = an->file_of_sym[i];
		if (f != GP_NONE && a->syms[i].line > an->files[f].num_lines
		    && cg_gp_passes(a, CG_GPROF_INCL_ANNO, i))
			an->files[f].num_lines = a->syms[i].line;
	}
	for (size_t f = 0; f < an->nfiles; f++)
		if (an->files[f].num_lines) {
			an->files[f].lines = calloc(an->files[f].num_lines, sizeof(slot));
			if (!an->files[f].lines)
				return CG_ENOMEM;
		}
	for (uint32_t i = 0; i < a->nsyms; i++) {
		const gp_sym *s = &a->syms[i];
		uint32_t f = an->file_of_sym[i];
		if (f == GP_NONE || !an->files[f].num_lines || s->line == 0
		    || !cg_gp_passes(a, CG_GPROF_INCL_ANNO, i))
			continue;
		src_file *sf = &an->files[f];
		sf->ncalls += s->ncalls;
		slot *sl = &sf->lines[s->line - 1];
		if (!sl->used)
			*sl = (slot){ s->ncalls, s->line, 1, 0, (s->flags & CG_FN_IS_FUNC) != 0 };
		else {
			sl->ncalls += s->ncalls;
			sl->merged = 1;
		}
	}
	return 0;
}

static void annotate_line(annotator *an, const src_file *sf, uint32_t line_num, char *buf)
{
	const cg_gprof_options *o = &an->a->opts;
	const slot *b = line_num <= sf->num_lines ? &sf->lines[line_num - 1] : NULL;
	if (!b || !b->used) {
		memset(buf, ' ', ANNOTATION_WIDTH);
		buf[ANNOTATION_WIDTH] = '\0';
		return;
	}
	an->executable_lines++;
	char tmp[64];
	size_t len = 0;
	unsigned long ncalls = 0;
	int ncalls_set = 0;
	tmp[0] = '\0';
	if (b->is_func) {
		len = (size_t)snprintf(tmp, sizeof tmp, "%lu", (unsigned long)b->ncalls);
		an->last_count = (unsigned long)b->ncalls;
		ncalls = (unsigned long)b->ncalls;
		ncalls_set = 1;
	}
	if (o->all_lines && len == 0) {
		len = (size_t)snprintf(tmp, sizeof tmp, "%lu", an->last_count);
		ncalls = an->last_count;
		ncalls_set = 1;
	}
	if (!ncalls_set) {
		memset(buf, ' ', ANNOTATION_WIDTH);
		buf[ANNOTATION_WIDTH] = '\0';
		return;
	}
	an->lines_executed++;
	if (ncalls < o->min_count)
		len = (size_t)snprintf(tmp, sizeof tmp, "#####");
	len += (size_t)snprintf(tmp + len, sizeof tmp - len, " -> ");
	if (len >= ANNOTATION_WIDTH) {
		memcpy(buf, tmp, ANNOTATION_WIDTH);
		buf[ANNOTATION_WIDTH] = '\0';
	} else {
		memset(buf, ' ', ANNOTATION_WIDTH - len);
		memcpy(buf + ANNOTATION_WIDTH - len, tmp, len + 1);
	}
}

/* Opens the source as gprof does: the name as recorded, then each search
 * directory with the name, then (for names with a directory part) each
 * search directory with the base name. */
static FILE *open_source(annotator *an, const char *name)
{
	const cg_gprof_options *o = &an->a->opts;
	size_t np = 0;
	const char *dirs[256];
	char *store[64];
	size_t nstore = 0;
	for (size_t i = 0; i < o->nsource_paths && nstore < 64; i++) {
		char *copy = strdup(o->source_paths[i] ? o->source_paths[i] : "");
		if (!copy)
			break;
		store[nstore++] = copy;
		for (char *p = copy; np < 256;) {
			dirs[np++] = p;
			char *colon = strchr(p, ':');
			if (!colon)
				break;
			*colon = '\0';
			p = colon + 1;
		}
	}
	/* gprof's walk: sle runs over the search list (np = exhausted); an
	 * absolute name starts exhausted. */
	size_t sle = name[0] == '/' ? np : 0;
	const char *name_only = NULL;
	char path[4096];
	const char *fname = name;
	FILE *f;
	for (;;) {
		f = fopen(fname, "rb");
		if (f)
			break;
		if (sle >= np && !name_only) {
			const char *slash = strrchr(name, '/');
			if (slash) {
				name_only = slash + 1;
				sle = 0;
			}
		}
		if (sle >= np)
			break;
		snprintf(path, sizeof path, "%s/%s", dirs[sle++], name_only ? name_only : name);
		fname = path;
	}
	int saved = errno;
	for (size_t i = 0; i < nstore; i++)
		free(store[i]);
	if (!f) {
		const char *prog = o->program_name ? o->program_name : "gprof";
		if (saved == ENOENT)
			message(an, "%s: could not locate `%s'\n", prog, name);
		else
			message(an, "%s: %s\n", name, strerror(saved));
	}
	return f;
}

static int cmp_ncalls(const void *ctx, uint32_t l, uint32_t r)
{
	const src_file *sf = ctx;
	const slot *ls = &sf->lines[l], *rs = &sf->lines[r];
	if (!ls->used)
		return 1;
	if (!rs->used)
		return -1;
	if (ls->ncalls < rs->ncalls)
		return 1;
	if (ls->ncalls > rs->ncalls)
		return -1;
	return (int)ls->line - (int)rs->line;
}

static int annotate_file(annotator *an, src_file *sf)
{
	const cg_gprof_options *o = &an->a->opts;
	FILE *in = open_source(an, sf->name);
	if (!in)
		return 0;
	FILE *out = an->out;
	if (o->separate_files) {
		const char *slash = strrchr(sf->name, '/');
		char path[4096];
		snprintf(path, sizeof path, "%s-ann", slash ? slash + 1 : sf->name);
		out = fopen(path, "w");
		if (!out) {
			message(an, "%s: %s\n", path, strerror(errno));
			fclose(in);
			return 0;
		}
	} else {
		if (an->first_file)
			an->first_file = 0;
		else
			fputc('\n', out);
		if (*an->first_output)
			*an->first_output = 0;
		else
			fputs("\f\n", out);
		fprintf(out, "*** File %s:\n", sf->name);
	}
	an->executable_lines = an->lines_executed = 0;
	char buf[8192], annotation[ANNOTATION_WIDTH + 1];
	uint32_t line_num = 1;
	int new_line = 1;
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
		for (size_t i = 0; i < n; i++) {
			if (new_line) {
				annotate_line(an, sf, line_num++, annotation);
				fputs(annotation, out);
				new_line = 0;
			}
			new_line = buf[i] == '\n';
			fputc(buf[i], out);
		}
	}
	fclose(in);

	if (o->table_length > 0) {
		fprintf(out, "\n\nTop %d Lines:\n\n     Line      Count\n\n", o->table_length);
		uint32_t *order = malloc(((size_t)sf->num_lines + 1) * sizeof *order);
		if (!order)
			return CG_ENOMEM;
		for (uint32_t i = 0; i < sf->num_lines; i++)
			order[i] = i;
		if (cg_gp_msort(order, sf->num_lines, cmp_ncalls, sf)) {
			free(order);
			return CG_ENOMEM;
		}
		uint32_t len = (uint32_t)o->table_length < sf->num_lines ? (uint32_t)o->table_length
									 : sf->num_lines;
		for (uint32_t i = 0; i < len; i++) {
			const slot *s = &sf->lines[order[i]];
			if (!s->used || s->ncalls == 0)
				break;
			fprintf(out, "%9d %10lu\n", (int)s->line, (unsigned long)s->ncalls);
		}
		free(order);
	}
	fputs("\nExecution Summary:\n\n", out);
	fprintf(out, "%9ld   Executable lines in this file\n", an->executable_lines);
	fprintf(out, "%9ld   Lines executed\n", an->lines_executed);
	fprintf(out, "%9.2f   Percent of the file executed\n",
		an->executable_lines ? 100.0 * an->lines_executed / (double)an->executable_lines : 100.0);
	fprintf(out, "\n%9lu   Total number of line executions\n", (unsigned long)sf->ncalls);
	fprintf(out, "%9.2f   Average executions per line\n",
		an->executable_lines ? (double)sf->ncalls / (double)an->executable_lines : 0.0);
	if (out != an->out)
		fclose(out);
	return 0;
}

int cg_gp_print_annotated(const cg_gprof_analysis *a, FILE *out, int *first_output)
{
	annotator an = { 0 };
	an.a = a;
	an.out = out;
	an.first_output = first_output;
	an.first_file = 1;
	int rc = collect_files(&an);
	if (!rc)
		rc = fill_lines(&an);
	for (size_t f = 0; f < an.nfiles && !rc; f++) {
		src_file *sf = &an.files[f];
		if (!sf->num_lines || (!a->opts.zero && sf->ncalls == 0))
			continue;
		rc = annotate_file(&an, sf);
	}
	for (size_t f = 0; f < an.nfiles; f++) {
		free((char *)an.files[f].name);
		free(an.files[f].lines);
	}
	free(an.files);
	free(an.file_of_sym);
	return rc;
}
