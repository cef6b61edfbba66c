/*
 * test_registry.c — the format registry seen from outside the library: a
 * program registers a toy format of its own and converts through it with
 * the stock cg_read_file()/cg_write_file(), detection included, exactly as
 * it would with a built-in format.  Also: registration rules, options
 * versions, and sources (buffers, pipes on standard input).
 *
 * This file includes only the installed headers, as a third party would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <callgraph.h>
#include <callgraph/sys/format.h>

#include "tap.h"

/* The toy format: a first line "TOY 1", then "self NAME COST" and
 * "call CALLER CALLEE COUNT" lines, one event called "ticks". */

static int toy_detect(const unsigned char *head, size_t len)
{
	return len >= 6 && memcmp(head, "TOY 1\n", 6) == 0 ? 100 : 0;
}

static int toy_read(const cg_format_ops *self, cg_profile **out, cg_source *src,
		    const cg_read_options *opts, cg_error *err)
{
	FILE *in;
	int rc = cg_source_stream(src, &in, err);
	if (rc)
		return rc;
	cg_profile *p;
	if (cg_profile_new(&p) || cg_profile_add_event(p, "ticks", "toy ticks", 0) < 0)
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	char line[256];
	unsigned long lineno = 0;
	while (fgets(line, sizeof line, in)) {
		lineno++;
		char a[64], b[64];
		long long n;
		cg_fid fa, fb;
		if (lineno == 1 && strcmp(line, "TOY 1\n") == 0)
			continue;
		if (sscanf(line, "self %63s %lld", a, &n) == 2) {
			cg_cost c = n;
			if (cg_profile_intern_function(p, a, NULL, NULL, &fa) ||
			    cg_profile_add_self(p, 0, fa, &c))
				goto oom;
		} else if (sscanf(line, "call %63s %63s %lld", a, b, &n) == 3) {
			if (cg_profile_intern_function(p, a, NULL, NULL, &fa) ||
			    cg_profile_intern_function(p, b, NULL, NULL, &fb) ||
			    cg_profile_add_arc(p, 0, fa, fb, (uint64_t)n, NULL, NULL))
				goto oom;
		} else {
			cg_profile_free(p);
			return cg_error_set(err, CG_EFORMAT, "%s:%lu: not a toy line",
					    cg_source_name(src), lineno);
		}
	}
	*out = p;
	return 0;
oom:
	cg_profile_free(p);
	return cg_error_set(err, CG_ENOMEM, "out of memory");
}

static int toy_write(const cg_format_ops *self, const cg_profile *p, FILE *out,
		     const cg_write_options *opts, cg_error *err)
{
	fputs("TOY 1\n", out);
	for (cg_fid f = 0; f < cg_profile_function_count(p); f++)
		fprintf(out, "self %s %lld\n", cg_profile_function(p, f)->name,
			(long long)cg_profile_self(p, 0, f)[0]);
	for (size_t i = 0; i < cg_profile_arc_count(p, 0); i++) {
		const cg_arc *a = cg_profile_arc(p, 0, i);
		fprintf(out, "call %s %s %llu\n", cg_profile_function(p, a->caller)->name,
			cg_profile_function(p, a->callee)->name, (unsigned long long)a->count);
	}
	return ferror(out) ? cg_error_set(err, CG_EIO, "write error") : 0;
}

static const cg_format_ops toy = {
	.version = CG_FORMAT_OPS_VERSION,
	.name = "toy",
	.description = "a format registered by a test program",
	.keeps = "self costs and call counts",
	.loses = "everything else",
	.detect = toy_detect,
	.read = toy_read,
	.write = toy_write,
};

static const char toy_text[] =
	"TOY 1\n"
	"self main 5\n"
	"self work 90\n"
	"self leaf 5\n"
	"call main work 3\n"
	"call work leaf 7\n";

static char dir[] = "/tmp/cgregXXXXXX";

static char *path_in_dir(const char *name)
{
	static char buf[4][256];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
	return buf[k];
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	static char buf[65536];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_register(void)
{
	cg_error err = CG_ERROR_INIT;
	size_t before = cg_format_count();
	check_int(cg_format_find("toy") == NULL, ==, 1);
	check_int(cg_format_register(&toy, &err), ==, 0);
	check_int(cg_format_count(), ==, before + 1);
	check(cg_format_find("toy") == &toy);
	check(cg_format_can_read(&toy) && cg_format_can_write(&toy));
	/* the names list offered in messages includes it */
	char names[512];
	check(strstr(cg_format_list(names, sizeof names, 1), "toy") != NULL);
}

static void test_register_rules(void)
{
	cg_error err = CG_ERROR_INIT;
	check_int(cg_format_register(&toy, &err), ==, CG_EUSAGE);
	check(strstr(err.message, "exists already") != NULL);
	cg_format_ops bad = toy;
	bad.name = "callgrind";
	check_int(cg_format_register(&bad, &err), ==, CG_EUSAGE);
	bad.name = "toy2";
	bad.version = 99;
	check_int(cg_format_register(&bad, &err), ==, CG_EUSAGE);
	cg_format_ops empty = { .version = CG_FORMAT_OPS_VERSION, .name = "empty" };
	check_int(cg_format_register(&empty, &err), ==, CG_EUSAGE);
	check(cg_format_find("empty") == NULL);
}

static void test_convert_through_toy(void)
{
	cg_error err = CG_ERROR_INIT;
	const char *in = path_in_dir("in.toy");
	check_int(write_text(in, toy_text), ==, 0);
	/* detected by content, read with the stock reader */
	const cg_format_ops *f = NULL;
	check_int(cg_format_detect_file(in, &f, &err), ==, 0);
	check(f == &toy);
	cg_profile *p = NULL;
	check_int(cg_read_file(&p, in, NULL, &err), ==, 0);
	if (!p)
		return;
	check_int(cg_profile_function_count(p), ==, 3);
	/* toy -> callgrind -> (read back) -> toy gives the same text */
	const char *cg = path_in_dir("out.callgrind");
	check_int(cg_write_file(p, "callgrind", cg, NULL, &err), ==, 0);
	cg_profile *q = NULL;
	check_int(cg_read_file(&q, cg, NULL, &err), ==, 0);
	if (q) {
		const char *back = path_in_dir("back.toy");
		check_int(cg_write_file(q, "toy", back, NULL, &err), ==, 0);
		check_str(read_text(back), toy_text);
		cg_profile_free(q);
	}
	/* and toy -> gprof flat profile through the registry's gprof writer */
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	check_int(cg_write(p, "flat", mem, NULL, &err), ==, 0);
	fclose(mem);
	check(buf && strstr(buf, "work") != NULL);
	free(buf);
	cg_profile_free(p);
}

static void test_bad_toy_input(void)
{
	cg_error err = CG_ERROR_INIT;
	const char *in = path_in_dir("bad.toy");
	check_int(write_text(in, "TOY 1\nself main 1\nnonsense\n"), ==, 0);
	cg_profile *p = (cg_profile *)1;
	check_int(cg_read_file(&p, in, NULL, &err), ==, CG_EFORMAT);
	check(p == NULL);
	/* the message names the file and the line */
	check(strstr(err.message, "bad.toy:3:") != NULL);
}

static void test_options_version(void)
{
	cg_error err = CG_ERROR_INIT;
	cg_read_options ro = CG_READ_OPTIONS_INIT;
	ro.version = 1;
	cg_profile *p = NULL;
	check_int(cg_read_file(&p, path_in_dir("in.toy"), &ro, &err), ==, CG_EUSAGE);
	check(strstr(err.message, "version") != NULL);
	cg_write_options wo = CG_WRITE_OPTIONS_INIT;
	wo.version = 77;
	cg_profile *q;
	check_int(cg_profile_new(&q), ==, 0);
	check_int(cg_write(q, "xml", stdout, &wo, &err), ==, CG_EUSAGE);
	cg_profile_free(q);
}

static void test_unknown_names(void)
{
	cg_error err = CG_ERROR_INIT;
	cg_read_options ro = CG_READ_OPTIONS_INIT;
	ro.format = "nosuch";
	cg_profile *p = NULL;
	check_int(cg_read_file(&p, path_in_dir("in.toy"), &ro, &err), ==, CG_EUSAGE);
	check(strstr(err.message, "toy") != NULL);  /* lists the valid names */
	cg_profile *q;
	check_int(cg_profile_new(&q), ==, 0);
	check_int(cg_write_file(q, "nosuch", path_in_dir("never"), NULL, &err), ==, CG_EUSAGE);
	check(access(path_in_dir("never"), F_OK) != 0);
	cg_profile_free(q);
}

static void test_buffer_source(void)
{
	cg_error err = CG_ERROR_INIT;
	cg_source *src;
	check_int(cg_source_new_buffer(&src, "mem.toy", toy_text, strlen(toy_text), &err), ==, 0);
	check_str(cg_source_name(src), "mem.toy");
	check(cg_source_path(src) == NULL);
	check_int(cg_source_size(src), ==, strlen(toy_text));
	cg_profile *p = NULL;
	check_int(cg_read_source(&p, src, NULL, &err), ==, 0);
	check(p && cg_profile_function_count(p) == 3);
	cg_profile_free(p);
	cg_source_close(src);
}

/* Standard input that is a pipe: detection must not use up what the
 * reader needs. */
static void test_pipe_on_stdin(void)
{
	cg_error err = CG_ERROR_INIT;
	int fds[2];
	check_int(pipe(fds), ==, 0);
	check_int(write(fds[1], toy_text, strlen(toy_text)), ==, (long long)strlen(toy_text));
	close(fds[1]);
	int saved = dup(0);
	dup2(fds[0], 0);
	close(fds[0]);
	cg_profile *p = NULL;
	check_int(cg_read_file(&p, "-", NULL, &err), ==, 0);
	dup2(saved, 0);
	close(saved);
	check(p && cg_profile_function_count(p) == 3);
	if (p)
		check_int(cg_profile_self(p, 0, 1)[0], ==, 90);
	cg_profile_free(p);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	TEST(test_register(), "a program registers its own format");
	TEST(test_register_rules(), "taken names, wrong versions and empty tables are refused");
	TEST(test_convert_through_toy(), "the toy format is detected, read and written by the stock calls");
	TEST(test_bad_toy_input(), "a reader's error names the file and line");
	TEST(test_options_version(), "options of an unknown version are refused");
	TEST(test_unknown_names(), "unknown format names are refused with the valid ones listed");
	TEST(test_buffer_source(), "a memory buffer is a source");
	TEST(test_pipe_on_stdin(), "a pipe on standard input is detected and read whole");
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "# could not remove %s\n", dir);
	return tap_done();
}
