/*
 * cgtop.c — the example program of libcallgraph(3): reads any profile the
 * library knows (format detected from content, several files merged),
 * optionally makes functions transparent, prints the functions with the
 * highest self cost, and converts the profile to another format.
 *
 *   cc cgtop.c $(pkg-config --cflags --libs libcallgraph) -o cgtop
 *   ./cgtop [-n N] [-t FORMAT -o FILE] [-x PATTERN]... PROFILE...
 */
#define _POSIX_C_SOURCE 200809L  /* getopt */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <callgraph.h>

/* Warnings and progress from the readers arrive here. */
static void on_diag(void *ctx, const cg_diagnostic *d)
{
	(void)ctx;
	if (d->kind == CG_DIAG_WARNING)
		fprintf(stderr, "cgtop: warning: %s\n", d->message);
}

struct row {
	cg_fid f;
	cg_cost self;
};

static int by_self_desc(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	return x->f < y->f ? -1 : x->f > y->f;  /* stable, deterministic */
}

int main(int argc, char **argv)
{
	const char *to = NULL, *output = "-";
	const char *patterns[16];
	size_t npatterns = 0;
	long top = 10;
	int c;
	while ((c = getopt(argc, argv, "n:t:o:x:")) != -1) {
		switch (c) {
		case 'n': top = strtol(optarg, NULL, 10); break;
		case 't': to = optarg; break;
		case 'o': output = optarg; break;
		case 'x':
			if (npatterns < 16)
				patterns[npatterns++] = optarg;
			break;
		default: return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: cgtop [-n N] [-t FORMAT -o FILE] [-x PATTERN]... PROFILE...\n");
		return 2;
	}

	cg_error err = CG_ERROR_INIT;
	cg_read_options ro = CG_READ_OPTIONS_INIT;
	ro.diag = on_diag;
	cg_profile *p;
	if (cg_read_files(&p, (const char *const *)argv + optind, (size_t)(argc - optind), &ro,
			  &err) != 0) {
		fprintf(stderr, "cgtop: %s\n", err.message);
		return 3;
	}
	if (npatterns) {
		cg_profile *t;
		if (cg_transparent_apply(&t, p, patterns, npatterns, &err) != 0) {
			fprintf(stderr, "cgtop: %s\n", err.message);
			cg_profile_free(p);
			return 3;
		}
		cg_profile_free(p);
		p = t;
	}

	/* Self cost of event 0, summed over the parts (threads, processes). */
	size_t n = cg_profile_function_count(p);
	struct row *rows = calloc(n ? n : 1, sizeof *rows);
	if (!rows) {
		cg_profile_free(p);
		return 3;
	}
	for (cg_fid f = 0; f < n; f++) {
		rows[f].f = f;
		for (unsigned part = 0; part < cg_profile_part_count(p); part++)
			rows[f].self += cg_profile_self(p, part, f)[0];
	}
	qsort(rows, n, sizeof *rows, by_self_desc);
	const cg_event *ev = cg_profile_event_count(p) ? cg_profile_event(p, 0) : NULL;
	printf("%-12s %s\n", ev ? ev->name : "cost", "function");
	for (size_t i = 0; i < n && (long)i < top && rows[i].self > 0; i++)
		printf("%-12lld %s\n", (long long)rows[i].self, cg_profile_function(p, rows[i].f)->name);
	free(rows);

	int status = 0;
	if (to && cg_write_file(p, to, output, NULL, &err) != 0) {
		fprintf(stderr, "cgtop: %s\n", err.message);
		status = 3;
	}
	cg_profile_free(p);
	return status;
}
