/*
 * collect_api.c — the API for interpreters and programs (cgcollect.h):
 * registered functions, the call/exit/redo ports, noprofile, reset,
 * enable/disable, dump.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "collect_internal.h"

struct cgc_func *g_funcs;

static struct cgc_node *CGC_TEXT current_or_start(void)
{
	if (!cgc_current_node() && !cgc_tls.th)
		cgc_thread_init();
	return cgc_current_node();
}

CGC_PUBLIC cgc_func *CGC_TEXT
cgc_register(const char *name, const char *file, unsigned line)
{
	struct cgc_func *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->name = strdup(name ? name : "?");
	f->file = file ? strdup(file) : NULL;
	f->line = line;
	if (!f->name || (file && !f->file)) {
		free(f->name);
		free(f->file);
		free(f);
		return NULL;
	}
	pthread_mutex_lock(&g_lock);
	f->next = g_funcs;
	g_funcs = f;
	pthread_mutex_unlock(&g_lock);
	return f;
}

CGC_PUBLIC void CGC_TEXT cgc_noprofile(cgc_func *f)
{
	if (f)
		f->noprofile = 1;
}

CGC_PUBLIC int CGC_TEXT cgc_noprofile_name(const char *name)
{
	uintptr_t a = cgc_elf_lookup(name);
	if (!a)
		return -1;
	return cgc_add_noprofile(a);
}

CGC_PUBLIC cgc_node *CGC_TEXT cgc_call(cgc_func *f)
{
	struct cgc_node *cur = current_or_start();
	if (!cur || !f || !g_enabled)
		return cur;
	struct cgc_node *n = cgc_descend(cur, (uintptr_t)f, 1);
	if (n)
		cgc_set_current_node(n);
	return n;
}

CGC_PUBLIC void CGC_TEXT cgc_exit(cgc_node *resume)
{
	if (resume)
		cgc_set_current_node(resume);
}

CGC_PUBLIC void CGC_TEXT cgc_redo(cgc_node *node)
{
	if (!cgc_current_node() || !node)
		return;
	if (g_enabled)
		node->redos++;
	cgc_set_current_node(node);
}

CGC_PUBLIC cgc_node *CGC_TEXT cgc_current(void)
{
	return current_or_start();
}

CGC_PUBLIC void CGC_TEXT cgc_reset(void)
{
	pthread_mutex_lock(&g_lock);
	for (struct cgc_thread *th = g_threads; th; th = th->next) {
		cgc_zero_tree(&th->root);
		th->samples = th->overhead = th->lost = th->resyncs = 0;
		cgc_lines_zero(th);
	}
	pthread_mutex_unlock(&g_lock);
}

CGC_PUBLIC void CGC_TEXT cgc_disable(void)
{
	g_enabled = 0;
}

CGC_PUBLIC void CGC_TEXT cgc_enable(void)
{
	g_enabled = 1;
}

CGC_PUBLIC int CGC_TEXT cgc_enabled(void)
{
	return g_enabled;
}

CGC_PUBLIC int CGC_TEXT cgc_dump(const char *path)
{
	if (!g_initialised) {
		errno = ENOENT;
		return -1;
	}
	struct cgc_ending e = { CGC_END_DUMP, 0, NULL };
	return cgc_write_profile(path, &e, 0);
}
