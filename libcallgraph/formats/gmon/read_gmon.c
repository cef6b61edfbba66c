/*
 * read_gmon.c — gmon.out files (GNU tagged format, old BSD and 4.4BSD)
 * into the model, with GNU gprof 2.40's rules for summing several files,
 * crediting histogram bins to symbols and mapping arcs to symbols
 * (docs/gprof-compat.md, sections 2, 4 and 5.1).
 *
 * A file is streamed through a fixed window (memory does not grow with
 * the file) by a cursor that checks every length against what is there,
 * so no count from the file is trusted; histograms are kept sparse (only
 * bins with samples), so a bin count from the file allocates nothing.
 * Error messages are gprof's, because cgprof must print them.
 */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callgraph/gmon.h"
#include "symtab_bfd.h"
#include "call_sites.h"
#include "options.h"
#include "positions.h"
#include "model_internal.h"

enum { TAG_HIST = 0, TAG_ARC = 1, TAG_BB = 2 };
#define BSD44_VERSION 0x00051879u

typedef struct hist_record {
	uint64_t lowpc, highpc;
	uint32_t num_bins;
	/* bins with samples, ascending; gprof sums bins as int */
	size_t n;
	uint32_t *bin;
	int *count;
} hist_record;

struct cg_gmon_reader {
	cg_profile *p;
	cg_symtab st;
	/* opts->positions: gprof -l's table (functions and line symbols)
	 * beside the function table; n == 0 when there are no positions */
	cg_symtab lines;
	cg_text text;          /* .text, to find call instructions (positions) */
	cg_gmon_options o;
	const char *executable;
	hist_record *hist;
	size_t nhist;
	int hz;                /* 0 = not known yet */
	char dimen[16];
	char abbrev;
	double scale;          /* of the first histogram record */
	int input_hist, input_arcs, input_bb;
	int file_version;      /* like gprof's global: last GNU file read */
	int bb_warned;
	int finished;
	uint64_t total_samples; /* every bin count of every record */
	char *gprof_text;       /* gprof's stderr text for the last error */
};

/* ---- small helpers ------------------------------------------------------ */

#define WINDOW 65536

typedef struct cursor {
	const unsigned char *d;  /* window onto the input */
	size_t size, pos;        /* window length, position in it */
	FILE *f;                 /* NULL: the whole input is the window */
	unsigned char *buf;      /* window storage when streaming (WINDOW) */
	int big_endian;
	int addr_bytes;
	int sign_extend;
	size_t base;             /* input offset of d[0]: bytes the window dropped */
} cursor;

/* Makes n (<= WINDOW) bytes available at the position; 0 at end of data. */
static int have(cursor *c, size_t n)
{
	size_t left = c->size - c->pos;

	if (left >= n)
		return 1;
	if (c->f == NULL || n > WINDOW)
		return 0;
	if (left > 0)
		memmove(c->buf, c->d + c->pos, left);
	c->base += c->pos;
	c->d = c->buf;
	c->pos = 0;
	c->size = left + fread(c->buf + left, 1, WINDOW - left, c->f);
	return c->size >= n;
}

/* Positions at byte `off` of the input (file headers: off is small).
 * Making bytes available may move the window (base), so a file shorter
 * than a header ends up at its end, not inside bytes already read. */
static void seek_start(cursor *c, size_t off)
{
	size_t at = c->base + c->pos;
	if (off < at) {
		c->pos = off - c->base;   /* back inside the window (off >= base) */
		return;
	}
	size_t skip = off - at;
	if (have(c, skip))
		c->pos += skip;
	else
		c->pos = c->size;
}

static uint32_t get32(cursor *c)
{
	const unsigned char *b = c->d + c->pos;
	uint32_t v;

	if (c->big_endian)
		v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	else
		v = (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
	c->pos += 4;
	return v;
}

static uint16_t get16(cursor *c)
{
	const unsigned char *b = c->d + c->pos;

	c->pos += 2;
	return c->big_endian ? (uint16_t)(b[0] << 8 | b[1]) : (uint16_t)(b[1] << 8 | b[0]);
}

static uint64_t get64(cursor *c)
{
	uint64_t hi, lo;

	if (c->big_endian) {
		hi = get32(c);
		lo = get32(c);
	} else {
		lo = get32(c);
		hi = get32(c);
	}
	return hi << 32 | lo;
}

/* An address of the executable's size; gprof sign-extends 32-bit
 * addresses only where BFD says the target does. */
static uint64_t get_vma(cursor *c)
{
	if (c->addr_bytes == 4) {
		uint32_t v = get32(c);

		return c->sign_extend ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	return get64(c);
}

#define PFX(r) CG_PROG_PREFIX((r)->o.program_name)

static void warn(cg_gmon_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(cg_gmon_reader *r, const char *fmt, ...)
{
	va_list ap;

	if (r->o.warnings == NULL)
		return;
	va_start(ap, fmt);
	vfprintf(r->o.warnings, fmt, ap);
	va_end(ap);
}

/* Records an error twice: as the one-line cg_error and as the exact text
 * gprof writes to stderr (some of gprof's messages span lines, two lack
 * the final newline).  `newline` adds gprof's final newline. */
static int gfail(cg_gmon_reader *r, cg_error *err, int code, int newline, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int gfail(cg_gmon_reader *r, cg_error *err, int code, int newline, const char *fmt, ...)
{
	char buf[CG_ERROR_MSG_MAX];
	size_t n;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf - 1, fmt, ap);
	va_end(ap);
	cg_error_set(err, code, "%s", buf);
	free(r->gprof_text);
	n = strlen(buf);
	if (newline)
		buf[n++] = '\n';
	buf[n] = '\0';
	r->gprof_text = strdup(buf);
	return code;
}

/* ---- histogram records ---------------------------------------------------- */

static hist_record *find_hist(cg_gmon_reader *r, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; i < r->nhist; i++)
		if (r->hist[i].lowpc == lo && r->hist[i].highpc == hi)
			return &r->hist[i];
	return NULL;
}

/* gprof refuses a new record that overlaps existing ones (and says so in
 * two different ways, the second without a newline of its own). */
static int check_overlap(cg_gmon_reader *r, uint64_t lo, uint64_t hi, cg_error *err)
{
	int found = 0;
	size_t i;

	if (r->nhist == 0)
		return 0;
	for (i = 0; i < r->nhist; i++) {
		uint64_t cl = r->hist[i].lowpc > lo ? r->hist[i].lowpc : lo;
		uint64_t ch = r->hist[i].highpc < hi ? r->hist[i].highpc : hi;

		if (cl < ch) {
			if (found)
				return gfail(r, err, CG_EMISMATCH, 0, CG_PROG_PREFIX_FMT
						    "found a symbol that covers several histogram records",
						    PFX(r));
			found = 1;
			lo = cl;
			hi = ch;
		}
	}
	if (found && lo != hi)
		return gfail(r, err, CG_EMISMATCH, 1, CG_PROG_PREFIX_FMT "overlapping histogram records",
				    PFX(r));
	return 0;
}

static hist_record *new_hist(cg_gmon_reader *r, uint64_t lo, uint64_t hi, uint32_t bins,
			     const char *name, cg_error *err)
{
	hist_record *h = realloc(r->hist, (r->nhist + 1) * sizeof *h);

	if (h == NULL) {
		gfail(r, err, CG_ENOMEM, 1, "%s: out of memory", name);
		return NULL;
	}
	r->hist = h;
	h = &r->hist[r->nhist++];
	memset(h, 0, sizeof *h);
	h->lowpc = lo;
	h->highpc = hi;
	h->num_bins = bins;
	return h;
}

/* Reads h->num_bins 16-bit bins and adds them into h (gprof's int sums).
 * Returns the number of bins read; fewer than num_bins at end of data. */
static int add_bins(hist_record *h, cursor *c, uint32_t *nread)
{
	size_t cap = 0, n = 0, i = 0, j = 0, k = 0;
	uint32_t *nb = NULL, *bin = NULL;
	int *nc = NULL, *cnt = NULL;
	uint32_t b;
	int rc = 0;

	/* the file's nonzero bins, in order */
	for (b = 0; b < h->num_bins; b++) {
		uint16_t v;

		if (!have(c, 2))
			break;
		v = get16(c);
		if (v == 0)
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			uint32_t *xb = realloc(nb, ncap * sizeof *nb);
			int *xc;

			if (xb == NULL) {
				rc = CG_ENOMEM;
				goto out;
			}
			nb = xb;
			xc = realloc(nc, ncap * sizeof *nc);
			if (xc == NULL) {
				rc = CG_ENOMEM;
				goto out;
			}
			nc = xc;
			cap = ncap;
		}
		nb[n] = b;
		nc[n++] = v;
	}
	*nread = b;
	/* merge with what earlier files put in this record */
	bin = malloc((h->n + n + 1) * sizeof *bin);
	cnt = malloc((h->n + n + 1) * sizeof *cnt);
	if (bin == NULL || cnt == NULL) {
		rc = CG_ENOMEM;
		goto out;
	}
	while (i < h->n || j < n) {
		if (j == n || (i < h->n && h->bin[i] < nb[j])) {
			bin[k] = h->bin[i];
			cnt[k++] = h->count[i++];
		} else if (i == h->n || nb[j] < h->bin[i]) {
			bin[k] = nb[j];
			cnt[k++] = nc[j++];
		} else {
			bin[k] = nb[j];
			cnt[k++] = (int)((unsigned)h->count[i++] + (unsigned)nc[j++]);
		}
	}
	free(h->bin);
	free(h->count);
	h->bin = bin;
	h->count = cnt;
	h->n = k;
	bin = NULL;
	cnt = NULL;
out:
	free(nb);
	free(nc);
	free(bin);
	free(cnt);
	return rc;
}

static double bins_scale(uint64_t lo, uint64_t hi, uint32_t bins)
{
	/* integer division by the 2-byte UNIT first, as gprof does */
	return (double)((hi - lo) / 2) / bins;
}

static int read_hist_record(cg_gmon_reader *r, cursor *c, const char *name, cg_error *err)
{
	uint64_t lo, hi;
	uint32_t bins, rate, i;
	char dimen[16];
	char abbrev;
	double scale;
	hist_record *h;

	if (!have(c, 2u * c->addr_bytes + 4 + 4 + 15 + 1))
		return gfail(r, err, CG_EFORMAT, 1, CG_PROG_PREFIX_FMT "%s: unexpected end of file",
				    PFX(r), name);
	lo = get_vma(c);
	hi = get_vma(c);
	bins = get32(c);
	rate = get32(c);
	memcpy(dimen, c->d + c->pos, 15);
	dimen[15] = '\0';
	abbrev = (char)c->d[c->pos + 15];
	c->pos += 16;
	scale = bins_scale(lo, hi, bins);

	if (r->nhist == 0) {
		r->hz = (int)rate;
		memcpy(r->dimen, dimen, 16);
		r->abbrev = abbrev;
		r->scale = scale;
	} else {
		if (strncmp(dimen, r->dimen, 15) != 0) {
			const char *pn = r->o.program_name ? r->o.program_name : "";
			const char *sep = r->o.program_name ? ": " : "";

			return gfail(r, err, CG_EMISMATCH, 1,
					    "%s%sdimension unit changed between histogram records\n"
					    "%s%sfrom '%s'\n%s%sto '%s'",
					    pn, sep, pn, sep, r->dimen, pn, sep, dimen);
		}
		if (abbrev != r->abbrev) {
			const char *pn = r->o.program_name ? r->o.program_name : "";
			const char *sep = r->o.program_name ? ": " : "";

			return gfail(r, err, CG_EMISMATCH, 1,
					    "%s%sdimension abbreviation changed between histogram records\n"
					    "%s%sfrom '%c'\n%s%sto '%c'",
					    pn, sep, pn, sep, r->abbrev, pn, sep, abbrev);
		}
		if (fabs(r->scale - scale) > 0.000001)
			return gfail(r, err, CG_EMISMATCH, 0, CG_PROG_PREFIX_FMT
					    "different scales in histogram records", PFX(r));
	}

	h = find_hist(r, lo, hi);
	if (h == NULL) {
		int rc = check_overlap(r, lo, hi, err);

		if (rc < 0)
			return rc;
		h = new_hist(r, lo, hi, bins, name, err);
		if (h == NULL)
			return CG_ENOMEM;
	}
	if (add_bins(h, c, &i) < 0)
		return gfail(r, err, CG_ENOMEM, 1, "%s: out of memory", name);
	if (i < h->num_bins)
		return gfail(r, err, CG_EFORMAT, 1, CG_PROG_PREFIX_FMT
			     "%s: unexpected EOF after reading %u of %u samples",
			     PFX(r), name, i, h->num_bins);
	return 0;
}

/* ---- arcs ------------------------------------------------------------------ */

/* ---- positions (opts->positions) ------------------------------------------ */

/* The position of a line-table symbol inside function f: its address and
 * line, and its file when it is not f's own (inlined code). */
static void line_position(const cg_gmon_reader *r, cg_fid f, const cg_sym *s, uint64_t addr,
			  cg_position *pos)
{
	const cg_function *fn = cg_profile_function(r->p, f);

	memset(pos, 0, sizeof *pos);
	pos->addr = addr;
	pos->line = s->line ? s->line : fn->line;
	pos->file = s->line && s->file != fn->file ? s->file : NULL;
}

/* Where the call from `from` to `callee` was made.  glibc writes an
 * arc's caller address rounded down to its hash bucket (call_sites.h),
 * so the return address lies somewhere in [from, from + bucket): a
 * direct call to the callee returning there is the call site (its first
 * byte, its line).  Otherwise (indirect calls, other machines) the site
 * is `from` and its line, which is what gprof -l reports.  0 when the
 * line table does not know the line. */
static int call_site(const cg_gmon_reader *r, cg_fid caller, cg_fid callee, uint64_t from,
		     cg_position *site)
{
	uint64_t bucket = 2u * (unsigned)r->st.addr_bytes, at;
	long j;

	if (r->lines.n == 0)
		return 0;
	at = cg_text_find_call(&r->text, from, from + bucket, r->st.syms[callee].addr);
	if (at == 0)
		at = from;
	j = cg_symtab_lookup(&r->lines, at);
	if (j < 0 || r->lines.syms[j].line == 0)
		return 0;
	line_position(r, caller, &r->lines.syms[j], at, site);
	return 1;
}

/* gprof's cg_tally: map both ends, move the callee back to a function
 * symbol, add the arc (filters by symbol specification are the report's
 * business). */
static int tally(cg_gmon_reader *r, uint64_t from, uint64_t self, uint64_t count, cg_error *err)
{
	long parent = cg_symtab_lookup(&r->st, from);
	long child = cg_symtab_lookup(&r->st, self);
	int rc;

	if (parent < 0 || child < 0)
		return 0;
	while (child >= 0 && !r->st.syms[child].is_func)
		child--;
	if (child < 0)
		return 0;
	cg_position site;
	if (call_site(r, (cg_fid)parent, (cg_fid)child, from, &site))
		rc = cg_profile_add_arc_at(r->p, 0, (cg_fid)parent, (cg_fid)child, &site, count, NULL,
					   NULL);
	else
		rc = cg_profile_add_arc(r->p, 0, (cg_fid)parent, (cg_fid)child, count, NULL, NULL);
	if (rc < 0)
		return gfail(r, err, rc, 1, "%s: cannot add arc: %s", r->executable, cg_strerror(rc));
	return 0;
}

static int read_arc_record(cg_gmon_reader *r, cursor *c, const char *name, cg_error *err)
{
	uint64_t from, self;
	uint32_t count;

	if (!have(c, 2u * c->addr_bytes + 4))
		return gfail(r, err, CG_EFORMAT, 1, CG_PROG_PREFIX_FMT "%s: unexpected end of file",
				    PFX(r), name);
	from = get_vma(c);
	self = get_vma(c);
	count = get32(c);
	return tally(r, from, self, count, err);
}

/* ---- basic-block counts (only used by gprof's -l; we skip them) ----------- */

static int skip_cstring(cursor *c)
{
	while (have(c, 1)) {
		const unsigned char *nul = memchr(c->d + c->pos, '\0', c->size - c->pos);

		if (nul != NULL) {
			c->pos = (size_t)(nul - c->d) + 1;
			return 0;
		}
		c->pos = c->size;
	}
	return -1;
}

static int read_bb_record(cg_gmon_reader *r, cursor *c, const char *name, cg_error *err)
{
	uint32_t n, i;

	if (!have(c, 4))
		return gfail(r, err, CG_EFORMAT, 1, CG_PROG_PREFIX_FMT "%s: unexpected end of file",
				    PFX(r), name);
	n = get32(c);
	for (i = 0; i < n; i++) {
		int ok;

		if (r->file_version == 0) {
			/* old layout: name, count, address (host longs), function
			 * name, file name, line (host int) */
			ok = skip_cstring(c) == 0 && have(c, 16);
			if (ok) {
				c->pos += 16;
				ok = skip_cstring(c) == 0 && skip_cstring(c) == 0 && have(c, 4);
				if (ok)
					c->pos += 4;
			}
		} else {
			ok = have(c, 2u * c->addr_bytes);
			if (ok)
				c->pos += 2u * c->addr_bytes;
		}
		if (!ok)
			/* gprof reports this with perror() after a short fread */
			return gfail(r, err, CG_EFORMAT, 1, "%s: %s", name, strerror(0));
		if (!r->bb_warned) {
			r->bb_warned = 1;
			warn(r, CG_PROG_PREFIX_FMT "warning: ignoring basic-block exec counts (use -l or --line)\n",
			     PFX(r));
		}
	}
	return 0;
}

/* ---- file formats ------------------------------------------------------------- */

static int read_gnu(cg_gmon_reader *r, cursor *c, const char *name, int counts[3], cg_error *err)
{
	int rc = 0;

	seek_start(c, 4);
	r->file_version = (int)get32(c);
	if (r->file_version != 1 && r->file_version != 0)
		return gfail(r, err, CG_EFORMAT, 1, CG_PROG_PREFIX_FMT "file `%s' has unsupported version %d",
				    PFX(r), name, r->file_version);
	seek_start(c, 20);
	while (rc == 0 && have(c, 1)) {
		unsigned tag = c->d[c->pos++];

		switch (tag) {
		case TAG_HIST:
			counts[0]++;
			r->input_hist = 1;
			rc = read_hist_record(r, c, name, err);
			break;
		case TAG_ARC:
			counts[1]++;
			r->input_arcs = 1;
			rc = read_arc_record(r, c, name, err);
			break;
		case TAG_BB:
			counts[2]++;
			r->input_bb = 1;
			rc = read_bb_record(r, c, name, err);
			break;
		default:
			return gfail(r, err, CG_EFORMAT, 1, CG_PROG_PREFIX_FMT
					    "%s: found bad tag %u (file corrupted?)", PFX(r), name, tag);
		}
	}
	return rc;
}

static int system_hz(void)
{
	long t = sysconf(_SC_CLK_TCK);

	return t > 0 ? (int)t : 0;
}

static int read_bsd(cg_gmon_reader *r, cursor *c, const char *name, int counts[3], cg_error *err)
{
	uint64_t lo, hi;
	uint32_t ncnt, version, bins, i;
	int header, samp_bytes, rc;
	hist_record *h;

	/* both BSD headers begin with low_pc, high_pc, ncnt */
	r->input_hist = r->input_arcs = 1;
	r->input_bb = 0;
	seek_start(c, 0);
	if (!have(c, 2u * c->addr_bytes + 8))
		return gfail(r, err, CG_EFORMAT, 1, "%s: file too short to be a gmon file", name);
	lo = get_vma(c);
	hi = get_vma(c);
	ncnt = get32(c);
	version = get32(c);
	if (version == BSD44_VERSION) {
		uint32_t rate;

		if (!have(c, 4))
			return gfail(r, err, CG_EFORMAT, 1, "%s: file too short to be a gmon file", name);
		rate = get32(c);
		if (r->nhist == 0)
			r->hz = (int)rate;
		else if (r->hz != (int)rate)
			return gfail(r, err, CG_EMISMATCH, 1,
					    "%s: profiling rate incompatible with first gmon file", name);
		header = c->addr_bytes == 4 ? 32 : 40;
	} else {
		if (r->o.file_format == '4')
			return gfail(r, err, CG_EFORMAT, 1, CG_PROG_PREFIX_FMT "file `%s' has bad magic cookie",
					    PFX(r), name);
		header = c->addr_bytes == 4 ? 12 : 20;
	}
	seek_start(c, (size_t)header);
	samp_bytes = (int)(ncnt - (uint32_t)header);
	bins = (uint32_t)samp_bytes / 2;
	if (r->nhist > 0 && (lo != r->hist[0].lowpc || hi != r->hist[0].highpc ||
			     bins != r->hist[0].num_bins))
		return gfail(r, err, CG_EMISMATCH, 1, "%s: incompatible with first gmon file", name);
	if (samp_bytes < 0 || (r->nhist > 0 ? r->hist[0].lowpc > r->hist[0].highpc : lo > hi))
		return gfail(r, err, CG_EFORMAT, 1, CG_PROG_PREFIX_FMT
				    "file '%s' does not appear to be in gmon.out format", PFX(r), name);
	if (r->nhist == 0) {
		if (new_hist(r, lo, hi, bins, name, err) == NULL)
			return CG_ENOMEM;
		r->scale = bins_scale(lo, hi, bins);
	}
	h = &r->hist[0];
	if (bins)
		counts[0]++;
	if (add_bins(h, c, &i) < 0)
		return gfail(r, err, CG_ENOMEM, 1, "%s: out of memory", name);
	if (i < bins)
		/* gprof prints the index of the last bin it did read */
		return gfail(r, err, CG_EFORMAT, 1, CG_PROG_PREFIX_FMT
			     "unexpected EOF after reading %d/%d bins", PFX(r), (int)i - 1, (int)bins);
	/* arcs until the data runs out; a partial last record is ignored */
	while (have(c, 2u * c->addr_bytes + (size_t)c->addr_bytes)) {
		uint64_t from = get_vma(c), self = get_vma(c);
		uint64_t count = c->addr_bytes == 4 ? get32(c) : get64(c);

		counts[1]++;
		rc = tally(r, from, self, count, err);
		if (rc < 0)
			return rc;
	}
	if (r->hz == 0) {
		r->hz = system_hz();
		if (r->hz == 0) {
			r->hz = 1;
			warn(r, "time is in ticks, not seconds\n");
		}
	}
	return 0;
}

static void print_file_info(cg_gmon_reader *r, const char *name, const int counts[3])
{
	FILE *f = r->o.file_info;

	fprintf(f, "File `%s' (version %d) contains:\n", name, r->file_version);
	fprintf(f, "\t%d histogram record%s\n", counts[0], counts[0] == 1 ? "" : "s");
	fprintf(f, "\t%d call-graph record%s\n", counts[1], counts[1] == 1 ? "" : "s");
	fprintf(f, "\t%d basic-block count record%s\n", counts[2], counts[2] == 1 ? "" : "s");
}

static int read_cursor(cg_gmon_reader *r, cursor *cp, const char *name, cg_error *err)
{
	cursor c = *cp;
	int counts[3] = { 0, 0, 0 };
	char fmt = r->o.file_format ? r->o.file_format : 'a';
	int magic, rc;

	if (r->finished)
		return gfail(r, err, CG_EUSAGE, 1, "%s: gmon reader already finished", name);
	if (fmt == 'p')
		return gfail(r, err, CG_EUSAGE, 1, CG_PROG_PREFIX_FMT
				    "sorry, file format `prof' is not yet supported", PFX(r));
	if (!have(&c, 20))
		return gfail(r, err, CG_EFORMAT, 1, "%s: file too short to be a gmon file", name);
	magic = memcmp(c.d, "gmon", 4) == 0;
	if (fmt == 'm' || (fmt == 'a' && magic)) {
		if (!magic)
			return gfail(r, err, CG_EFORMAT, 1, CG_PROG_PREFIX_FMT "file `%s' has bad magic cookie",
					    PFX(r), name);
		rc = read_gnu(r, &c, name, counts, err);
	} else if (fmt == 'a' || fmt == 'b' || fmt == '4') {
		rc = read_bsd(r, &c, name, counts, err);
	} else {
		return gfail(r, err, CG_EUSAGE, 1, "%c: unknown file format %s", fmt,
				    r->o.program_name ? r->o.program_name : "");
	}
	if (rc == 0 && r->o.file_info != NULL)
		print_file_info(r, name, counts);
	return rc;
}

int cg_gmon_reader_read_buffer(cg_gmon_reader *r, const char *name, const void *data, size_t size,
			       cg_error *err)
{
	cursor c = { data, size, 0, NULL, NULL, r->st.big_endian, r->st.addr_bytes, r->st.sign_extend, 0 };

	return read_cursor(r, &c, name, err);
}

void cg_gmon_reader_set_flat_filter(cg_gmon_reader *r,
				    int (*filter)(void *ctx, const cg_profile *profile, cg_fid f),
				    void *ctx)
{
	r->o.flat_filter = filter;
	r->o.flat_filter_ctx = ctx;
}

const char *cg_gmon_reader_gprof_message(const cg_gmon_reader *r)
{
	return r->gprof_text;
}

int cg_gmon_reader_read(cg_gmon_reader *r, const char *path, cg_error *err)
{
	int is_stdin = strcmp(path, "-") == 0;
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	cursor c = { NULL, 0, 0, f, NULL, r->st.big_endian, r->st.addr_bytes, r->st.sign_extend, 0 };
	int rc;

	/* a read error (e.g. on a directory) ends the data, as a short fread
	 * does for gprof: the format checks then say what is missing */
	if (f == NULL)
		return gfail(r, err, CG_EIO, 1, "%s: %s", path, strerror(errno));
	c.buf = malloc(WINDOW);
	if (c.buf == NULL)
		rc = gfail(r, err, CG_ENOMEM, 1, "%s: out of memory", path);
	else
		rc = read_cursor(r, &c, path, err);
	free(c.buf);
	if (!is_stdin)
		fclose(f);
	return rc;
}

/* ---- life cycle -------------------------------------------------------------- */

/* gprof -l's symbol table beside the function table, for positions.
 * Without line information (no DWARF, or a table gprof itself would
 * refuse: "somebody miscounted") there are no positions, and the
 * profile is what it is without them. */
static int load_lines(cg_gmon_reader *r, const char *executable, const cg_symtab_options *fso,
		      cg_error *err)
{
	cg_symtab_options so = *fso;
	cg_error ignored = CG_ERROR_INIT;
	size_t i;
	int rc;

	so.line_symbols = 1;
	rc = cg_symtab_load(&r->lines, r->p, executable, &so, &ignored);
	if (rc == CG_ENOMEM)
		return cg_error_set(err, rc, "%s: out of memory reading line tables", executable);
	if (rc < 0) {
		memset(&r->lines, 0, sizeof r->lines);
		return 0;
	}
	for (i = 0; i < r->lines.n; i++)
		if (r->lines.syms[i].line != 0)
			break;
	if (i == r->lines.n) {
		cg_symtab_release(&r->lines);
		return 0;
	}
	rc = cg_text_load(&r->text, executable);
	if (rc < 0)
		return cg_error_set(err, rc, "%s: out of memory reading .text", executable);
	return 0;
}

int cg_gmon_reader_new(cg_gmon_reader **out, cg_profile *p, const char *executable,
		       const cg_gmon_options *opts, cg_error *err)
{
	/* version 1 lacks `positions` at the end */
	if (opts && opts->version == 1) {
		cg_gmon_options v2 = CG_GMON_OPTIONS_INIT;
		memcpy(&v2, opts, offsetof(cg_gmon_options, positions));
		v2.version = CG_GMON_OPTIONS_VERSION;
		return cg_gmon_reader_new(out, p, executable, &v2, err);
	}
	if (CG_CHECK_OPTIONS(opts, CG_GMON_OPTIONS_VERSION, "cg_gmon_options", err))
		return CG_EUSAGE;
	cg_gmon_options defaults = CG_GMON_OPTIONS_INIT;
	cg_symtab_options so;
	cg_gmon_reader *r;
	size_t i;
	int rc;

	*out = NULL;
	if (opts == NULL)
		opts = &defaults;
	if (opts->version != CG_GMON_OPTIONS_VERSION)
		return cg_error_set(err, CG_EUSAGE, "cg_gmon_options: unknown version %u", opts->version);
	if (cg_profile_function_count(p) != 0)
		return cg_error_set(err, CG_EUSAGE, "%s: the profile already has functions", executable);
	r = calloc(1, sizeof *r);
	if (r == NULL)
		return cg_error_set(err, CG_ENOMEM, "%s: out of memory", executable);
	r->p = p;
	r->o = *opts;
	memcpy(r->dimen, "seconds", 8);
	r->abbrev = 's';
	r->executable = cg_profile_intern(p, executable);
	if (r->executable == NULL) {
		rc = cg_error_set(err, CG_ENOMEM, "%s: out of memory", executable);
		goto fail;
	}
	so.no_static = opts->no_static;
	so.ignore_non_functions = opts->ignore_non_functions;
	so.line_symbols = opts->line_granularity;
	so.external_table = opts->external_symbol_table;
	so.program_name = opts->program_name;
	rc = cg_symtab_load(&r->st, p, executable, &so, err);
	if (rc < 0)
		goto fail;
	rc = cg_profile_reserve_functions(p, r->st.n);
	if (rc < 0) {
		cg_error_set(err, rc, "%s: cannot add %zu functions", executable, r->st.n);
		goto fail;
	}
	for (i = 0; i < r->st.n; i++) {
		const cg_sym *s = &r->st.syms[i];
		cg_function fn;
		cg_fid fid;

		memset(&fn, 0, sizeof fn);
		fn.name = s->name;
		fn.object = r->executable;
		fn.file = s->file;
		fn.line = s->line;
		fn.flags = CG_FN_HAS_ADDR | (s->is_static ? CG_FN_STATIC : 0) |
			   (s->is_func ? CG_FN_IS_FUNC : 0);
		fn.addr = s->addr;
		fn.end = s->end_addr + 1;
		/* the symbol table's strings are interned in p already */
		rc = cg_profile_add_function_interned(p, &fn, &fid);
		if (rc < 0) {
			cg_error_set(err, rc, "%s: cannot add function %s", executable, s->name);
			goto fail;
		}
	}
	if (opts->positions && !opts->line_granularity && !opts->external_symbol_table) {
		rc = load_lines(r, executable, &so, err);
		if (rc < 0)
			goto fail;
	}
	*out = r;
	return 0;
fail:
	cg_gmon_reader_free(r);
	return rc;
}

void cg_gmon_reader_free(cg_gmon_reader *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->nhist; i++) {
		free(r->hist[i].bin);
		free(r->hist[i].count);
	}
	free(r->hist);
	free(r->gprof_text);
	cg_symtab_release(&r->st);
	cg_symtab_release(&r->lines);
	cg_text_release(&r->text);
	free(r);
}

/* (uint64_t)v, defined for every double: corrupt files can make the bin
 * size NaN or huge, where C leaves the conversion undefined. */
static uint64_t bin_edge(double v)
{
	if (!(v >= 0.0))
		return 0;
	if (v >= 18446744073709551616.0)
		return UINT64_MAX;
	return (uint64_t)v;
}

/* gprof's hist_assign_samples_1: bins are cut at truncated UNIT edges and
 * shared between overlapping symbols in floating point, in exactly this
 * order of operations (the report prints these doubles). */
static void assign_record(const cg_gmon_reader *r, const cg_symtab *st, const hist_record *h,
			  double *time, double *total, const unsigned char *passes)
{
	const cg_sym *s = st->syms;
	size_t n = st->n, j, k = 1;
	uint64_t low = h->lowpc / 2;
	size_t e;

	for (e = 0; e < h->n; e++) {
		uint32_t i = h->bin[e];
		unsigned count = (unsigned)h->count[e];
		uint64_t bin_lo, bin_hi;
		double count_time;

		if (count == 0)
			continue;
		bin_lo = low + bin_edge(r->scale * i);
		bin_hi = low + bin_edge(r->scale * (uint32_t)(i + 1));
		count_time = count;
		*total += count_time;
		for (j = k - 1; j < n; k = ++j) {
			uint64_t sym_lo = s[j].addr / 2;
			/* gprof reads one element past its table for the last
			 * symbol; that symbol never gets samples */
			uint64_t sym_hi = j + 1 < n ? s[j + 1].addr / 2 : 0;
			uint64_t overlap;

			if (bin_hi < sym_lo)
				break;
			if (bin_lo >= sym_hi)
				continue;
			overlap = (bin_hi < sym_hi ? bin_hi : sym_hi) - (bin_lo > sym_lo ? bin_lo : sym_lo);
			if (overlap > 0) {
				double credit = (double)overlap * count_time / r->scale;

				if (passes[j])
					time[j] += credit;
				else
					*total -= credit;
			}
		}
	}
}

/* ---- gmon.sum ------------------------------------------------------------- */

typedef struct out_buf {
	FILE *f;
	int big_endian;
} out_buf;

static void put_bytes(out_buf *o, uint64_t v, int n)
{
	unsigned char b[8];
	int i;

	for (i = 0; i < n; i++)
		b[o->big_endian ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
	fwrite(b, 1, (size_t)n, o->f);
}

static int sum_hz_differs(const cg_gmon_reader *r)
{
	return r->hz != system_hz();
}

/* Arcs in gprof's output order: callers by address, and for each caller
 * its arcs newest first (gprof prepends to its child lists). */
static void write_sum_arcs(cg_gmon_reader *r, out_buf *o, int gnu)
{
	size_t na = cg_profile_arc_count(r->p, 0), nf = r->st.n, i;
	size_t *start = calloc(nf + 1, sizeof *start), *order = malloc((na + 1) * sizeof *order);

	if (start == NULL || order == NULL)
		goto out;
	for (i = 0; i < na; i++)
		start[cg_profile_arc(r->p, 0, i)->caller + 1]++;
	for (i = 0; i < nf; i++)
		start[i + 1] += start[i];
	for (i = na; i-- > 0;) {
		const cg_arc *a = cg_profile_arc(r->p, 0, i);

		order[start[a->caller]++] = i;
	}
	for (i = 0; i < na; i++) {
		const cg_arc *a = cg_profile_arc(r->p, 0, order[i]);

		/* GNU records are tagged and count in 32 bits; BSD counts
		 * have the size of an address */
		if (gnu)
			put_bytes(o, TAG_ARC, 1);
		put_bytes(o, r->st.syms[a->caller].addr, r->st.addr_bytes);
		put_bytes(o, r->st.syms[a->callee].addr, r->st.addr_bytes);
		put_bytes(o, a->count, gnu ? 4 : r->st.addr_bytes);
	}
out:
	free(start);
	free(order);
}

static void write_sum_gnu(cg_gmon_reader *r, out_buf *o)
{
	size_t i, e;

	fwrite("gmon", 1, 4, o->f);
	put_bytes(o, 1, 4);
	put_bytes(o, 0, 4);
	put_bytes(o, 0, 4);
	put_bytes(o, 0, 4);
	if (r->input_hist) {
		for (i = 0; i < r->nhist; i++) {
			const hist_record *h = &r->hist[i];
			uint32_t b;

			put_bytes(o, TAG_HIST, 1);
			put_bytes(o, h->lowpc, r->st.addr_bytes);
			put_bytes(o, h->highpc, r->st.addr_bytes);
			put_bytes(o, h->num_bins, 4);
			put_bytes(o, (uint32_t)r->hz, 4);
			fwrite(r->dimen, 1, 15, o->f);
			fwrite(&r->abbrev, 1, 1, o->f);
			for (b = 0, e = 0; b < h->num_bins; b++) {
				int v = 0;

				if (e < h->n && h->bin[e] == b)
					v = h->count[e++];
				put_bytes(o, (uint16_t)v, 2);
			}
		}
	}
	if (r->input_arcs)
		write_sum_arcs(r, o, 1);
}

static void write_sum_bsd(cg_gmon_reader *r, out_buf *o)
{
	int bsd44 = r->o.file_format == '4' || sum_hz_differs(r);
	int header = bsd44 ? (r->st.addr_bytes == 4 ? 32 : 40) : (r->st.addr_bytes == 4 ? 12 : 20);
	const hist_record *h = r->nhist ? &r->hist[0] : NULL;
	uint32_t bins = h ? h->num_bins : 0, b;
	size_t e = 0;

	put_bytes(o, h ? h->lowpc : 0, r->st.addr_bytes);
	put_bytes(o, h ? h->highpc : 0, r->st.addr_bytes);
	put_bytes(o, (uint64_t)bins * 2 + (uint64_t)header, 4);
	if (bsd44) {
		put_bytes(o, BSD44_VERSION, 4);
		put_bytes(o, (uint32_t)r->hz, 4);
		put_bytes(o, 0, 4);
		put_bytes(o, 0, 4);
		put_bytes(o, 0, 4);
	}
	for (b = 0; b < bins; b++) {
		int v = 0;

		if (e < h->n && h->bin[e] == b)
			v = h->count[e++];
		put_bytes(o, (uint16_t)v, 2);
	}
	write_sum_arcs(r, o, 0);
}

int cg_gmon_reader_write_sum(cg_gmon_reader *r, const char *path, cg_error *err)
{
	cg_output *out;
	out_buf o;
	int rc = cg_output_open(&out, path, err);

	if (rc < 0)
		return rc;
	o.f = cg_output_file(out);
	o.big_endian = r->st.big_endian;
	if (r->o.file_format == 'b' || r->o.file_format == '4')
		write_sum_bsd(r, &o);
	else
		write_sum_gnu(r, &o);
	return cg_output_commit(out, err);
}

/* Hands the integer samples of function f (llround of its time, what
 * it has without positions) to its line symbols first..last-1 with time:
 * each gets the floor of its share, the units left go to the largest
 * fractions (ties: lower address), so the shares add up to the function
 * and each is its gprof -l time rounded down or up.  Each position also
 * keeps its exact share. */
static int split_function(cg_gmon_reader *r, cg_fid f, double ftime, const double *ltime,
			  size_t first, size_t last)
{
	cg_profile *p = r->p;
	size_t n = last - first, i;
	cg_cost *c = malloc((n ? n : 1) * sizeof *c);
	cg_cost left = (cg_cost)llround(ftime);
	int rc = 0;

	if (c == NULL)
		return CG_ENOMEM;
	for (i = 0; i < n; i++) {
		double v = ltime[first + i];

		c[i] = v > 0 ? (cg_cost)floor(v) : 0;
		left -= c[i];
	}
	while (left != 0) {
		/* +1 to the largest fraction not yet raised; -1 (floating
		 * point put the floors past the total) from the smallest
		 * fraction with a sample to give */
		size_t best = n;
		double best_frac = 0;

		for (i = 0; i < n; i++) {
			double v = ltime[first + i], frac = v > 0 ? v - (double)c[i] : 0;

			if (left > 0 ? frac > 0 && (best == n || frac > best_frac)
				     : c[i] > 0 && (best == n || frac < best_frac)) {
				best = i;
				best_frac = frac;
			}
		}
		if (best == n)
			break;
		c[best] += left > 0 ? 1 : -1;
		left += left > 0 ? -1 : 1;
	}
	for (i = 0; i < n && rc == 0; i++) {
		const cg_sym *s = &r->lines.syms[first + i];
		cg_position pos;

		if (!(ltime[first + i] > 0))
			continue;
		line_position(r, f, s, s->addr, &pos);
		rc = cg_profile_add_self_at(p, 0, f, &pos, &c[i]);
		if (rc == 0)
			rc = cg_pos_set_self_exact(p, 0, f, &pos, ltime[first + i]);
	}
	/* what the shares could not take (no line with time) is the
	 * function's, as cg_pos_complete will put it */
	if (rc == 0 && left > 0) {
		cg_cost rest = left;

		if (cg_pos_first_rank(p, 0, f) != UINT32_MAX)
			rc = cg_profile_add_self(p, 0, f, &rest);
	}
	free(c);
	return rc;
}

/* gprof -l's histogram shares per line symbol, made positions of the
 * function owning each line symbol's address. */
static int add_line_self(cg_gmon_reader *r, const double *time, const unsigned char *passes,
			 cg_error *err)
{
	size_t nl = r->lines.n, j, first;
	double *ltime = calloc(nl ? nl : 1, sizeof *ltime), ignored = 0.0;
	unsigned char *lpass = malloc(nl ? nl : 1);
	long *owner = malloc((nl ? nl : 1) * sizeof *owner);
	int rc = 0;

	if (ltime == NULL || lpass == NULL || owner == NULL) {
		rc = CG_ENOMEM;
		goto out;
	}
	for (j = 0; j < nl; j++) {
		owner[j] = cg_symtab_lookup(&r->st, r->lines.syms[j].addr);
		lpass[j] = owner[j] >= 0 && passes[owner[j]];
	}
	for (j = 0; j < r->nhist; j++)
		assign_record(r, &r->lines, &r->hist[j], ltime, &ignored, lpass);
	/* both tables are in address order: a function's line symbols are
	 * consecutive */
	for (first = 0; first < nl && rc == 0; first = j) {
		int any = 0;

		for (j = first; j < nl && owner[j] == owner[first]; j++)
			any |= ltime[j] > 0;
		if (owner[first] >= 0 && any)
			rc = split_function(r, (cg_fid)owner[first], time[owner[first]], ltime,
					    first, j);
	}
out:
	free(ltime);
	free(lpass);
	free(owner);
	if (rc < 0)
		return cg_error_set(err, rc, "%s: cannot store self time per line", r->executable);
	return 0;
}

static int set_meta_int(cg_profile *p, const char *key, long v)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%ld", v);
	return cg_profile_set_meta(p, key, buf);
}

int cg_gmon_reader_finish(cg_gmon_reader *r, cg_error *err)
{
	cg_profile *p = r->p;
	size_t n = r->st.n, i;
	double *time = NULL, total = 0.0;
	unsigned char *passes = NULL;
	char abbrev[2] = { r->abbrev, '\0' };
	int ev, rc = 0;

	if (r->finished)
		return cg_error_set(err, CG_EUSAGE, "%s: gmon reader already finished", r->executable);
	r->finished = 1;
	ev = cg_profile_add_event(p, "samples", "histogram samples",
				  r->hz > 0 ? 1.0 / r->hz : 0.0);
	if (ev < 0)
		return cg_error_set(err, ev, "%s: cannot add the samples event", r->executable);
	if (r->input_hist) {
		time = calloc(n ? n : 1, sizeof *time);
		passes = malloc(n ? n : 1);
		if (time == NULL || passes == NULL) {
			rc = cg_error_set(err, CG_ENOMEM, "%s: out of memory", r->executable);
			goto out;
		}
		for (i = 0; i < n; i++)
			passes[i] = r->o.flat_filter == NULL ||
				    r->o.flat_filter(r->o.flat_filter_ctx, p, (cg_fid)i) != 0;
		for (i = 0; i < r->nhist; i++) {
			size_t e;

			assign_record(r, &r->st, &r->hist[i], time, &total, passes);
			for (e = 0; e < r->hist[i].n; e++)
				r->total_samples += (unsigned)r->hist[i].count[e];
		}
		if (r->lines.n)
			rc = add_line_self(r, time, passes, err);
		if (rc < 0)
			goto out;
		for (i = 0; i < n && rc == 0; i++) {
			cg_cost c = (cg_cost)llround(time[i]);

			/* functions with positions have their self cost already */
			if (!r->lines.n || cg_pos_first_rank(p, 0, (cg_fid)i) == UINT32_MAX)
				rc = cg_profile_add_self(p, 0, (cg_fid)i, &c);
			if (rc == 0)
				rc = cg_profile_set_self_exact(p, 0, (cg_fid)i, time[i]);
		}
		if (rc == 0 && r->lines.n)
			rc = cg_pos_complete(p, 0);
		if (rc < 0) {
			rc = cg_error_set(err, rc, "%s: cannot store self time", r->executable);
			goto out;
		}
	}
	cg_gmon_info info = {
		.has_histogram = r->input_hist != 0,
		.has_arcs = r->input_arcs != 0,
		.has_bb = r->input_bb != 0,
		.version = r->file_version,
		.dimension = r->dimen,
		.dimension_abbrev = abbrev,
		.scale = r->nhist ? r->scale : 0.0,
		.total_time = total,
		.total_samples = r->total_samples,
	};
	if (cg_profile_set_meta(p, "executable", r->executable) < 0 ||
	    set_meta_int(p, "hz", r->hz) < 0 ||
	    cg_profile_set_gmon_info(p, &info) < 0)
		rc = cg_error_set(err, CG_ENOMEM, "%s: out of memory", r->executable);
out:
	free(time);
	free(passes);
	return rc;
}

int cg_read_gmon(cg_profile *p, const char *executable, const char *const *files, size_t n,
		 const cg_gmon_options *opts, cg_error *err)
{
	cg_gmon_reader *r;
	size_t i;
	int rc = cg_gmon_reader_new(&r, p, executable, opts, err);

	for (i = 0; rc == 0 && i < n; i++)
		rc = cg_gmon_reader_read(r, files[i], err);
	if (rc == 0)
		rc = cg_gmon_reader_finish(r, err);
	cg_gmon_reader_free(r);
	return rc;
}
