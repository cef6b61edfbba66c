/*
 * collect_dump.c — writes the collected trees as a cgtree file
 * (docs/cgtree.md).  Runs at exit or on demand, never in a signal handler.
 * Uses only write(2) and its own number formatting, so the program's
 * locale and stdio state cannot change the file.  The file appears
 * atomically and cannot be redirected (collect_file.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "collect_internal.h"

struct out {
	int fd;
	int failed;
	int err;          /* errno of the first failed write */
	size_t len;
	char buf[1 << 16];
};

static void CGC_TEXT out_flush(struct out *o)
{
	size_t done = 0;
	while (done < o->len && !o->failed) {
		ssize_t w = write(o->fd, o->buf + done, o->len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			o->failed = 1;
			o->err = w < 0 ? errno : ENOSPC;
		}
		else
			done += (size_t)w;
	}
	o->len = 0;
}

static void CGC_TEXT out_bytes(struct out *o, const char *s, size_t n)
{
	while (n) {
		if (o->len == sizeof o->buf)
			out_flush(o);
		size_t room = sizeof o->buf - o->len;
		size_t k = n < room ? n : room;
		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
	}
}

static void CGC_TEXT out_str(struct out *o, const char *s)
{
	out_bytes(o, s, strlen(s));
}

static void CGC_TEXT out_u64(struct out *o, uint64_t v)
{
	char tmp[24];
	int i = sizeof tmp;
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	out_bytes(o, tmp + i, sizeof tmp - (size_t)i);
}

/* One cgtree record: a keyword and numbers separated by single spaces. */
static void CGC_TEXT out_record(struct out *o, const char *keyword, const uint64_t *v, size_t n)
{
	out_str(o, keyword);
	for (size_t i = 0; i < n; i++) {
		out_str(o, " ");
		out_u64(o, v[i]);
	}
	out_str(o, "\n");
}

static void CGC_TEXT out_hex(struct out *o, uint64_t v)
{
	char tmp[20];
	int i = sizeof tmp;
	do {
		tmp[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	out_bytes(o, "0x", 2);
	out_bytes(o, tmp + i, sizeof tmp - (size_t)i);
}

/* A string field: "-" when absent or empty; bytes that would end or split
 * the field (controls, space, DEL, '%') and a lone "-" are %XX escaped. */
static void CGC_TEXT out_field(struct out *o, const char *s)
{
	if (!s || !*s) {
		out_bytes(o, "-", 1);
		return;
	}
	if (strcmp(s, "-") == 0) {
		out_bytes(o, "%2D", 3);
		return;
	}
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p <= 0x20 || *p == 0x7f || *p == '%') {
			char e[3] = { '%', "0123456789ABCDEF"[*p >> 4], "0123456789ABCDEF"[*p & 15] };
			out_bytes(o, e, 3);
		} else {
			out_bytes(o, (const char *)p, 1);
		}
	}
}

/* ---- loaded objects ----------------------------------------------------- */

struct object {
	uintptr_t base;
	char *path;
	uintptr_t lo[8], hi[8];  /* PT_LOAD ranges, run-time addresses */
	unsigned nseg;
};

struct objects {
	struct object *v;
	size_t n, cap;
	char exe[4096];
};

static int CGC_TEXT collect_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct objects *os = data;
	if (os->n == os->cap) {
		size_t cap = os->cap ? os->cap * 2 : 16;
		struct object *v = realloc(os->v, cap * sizeof *v);
		if (!v)
			return 1;
		os->v = v;
		os->cap = cap;
	}
	struct object *ob = &os->v[os->n];
	memset(ob, 0, sizeof *ob);
	ob->base = info->dlpi_addr;
	/* Absolute paths, so the reader finds the objects from any directory
	 * (dlopen may have been given a relative one). */
	const char *name = info->dlpi_name;
	ob->path = NULL;
	if (name && *name && name[0] != '/')
		ob->path = realpath(name, NULL);
	if (!ob->path)
		ob->path = strdup(name && *name ? name : os->exe);
	if (!ob->path)
		return 1;
	for (int i = 0; i < info->dlpi_phnum && ob->nseg < 8; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		ob->lo[ob->nseg] = info->dlpi_addr + ph->p_vaddr;
		ob->hi[ob->nseg] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		ob->nseg++;
	}
	os->n++;
	return 0;
}

static long CGC_TEXT object_of(const struct objects *os, uintptr_t addr)
{
	for (size_t i = 0; i < os->n; i++)
		for (unsigned s = 0; s < os->v[i].nseg; s++)
			if (addr >= os->v[i].lo[s] && addr < os->v[i].hi[s])
				return (long)i;
	return -1;
}

/* ---- functions: code address or registered handle -> id ----------------- */

struct fmap {
	uintptr_t *key;
	uint32_t *id;
	size_t cap, n;
};

static int CGC_TEXT fmap_grow(struct fmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	uintptr_t *k = calloc(cap, sizeof *k);
	uint32_t *v = calloc(cap, sizeof *v);
	if (!k || !v) {
		free(k);
		free(v);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->key[i])
			continue;
		size_t j = (size_t)((m->key[i] * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
		while (k[j])
			j = (j + 1) & (cap - 1);
		k[j] = m->key[i];
		v[j] = m->id[i];
	}
	free(m->key);
	free(m->id);
	m->key = k;
	m->id = v;
	m->cap = cap;
	return 0;
}

/* Returns the id of fn, writing its "func" record first when it is new;
 * -1 when out of memory. */
static long CGC_TEXT func_id(struct out *o, struct fmap *m, const struct objects *os,
			     const struct cgc_node *n)
{
	if ((m->n + 1) * 2 > m->cap && fmap_grow(m) != 0)
		return -1;
	size_t j = (size_t)((n->fn * 0x9E3779B97F4A7C15ull) >> 20) & (m->cap - 1);
	while (m->key[j]) {
		if (m->key[j] == n->fn)
			return m->id[j];
		j = (j + 1) & (m->cap - 1);
	}
	uint32_t id = (uint32_t)m->n++;
	m->key[j] = n->fn;
	m->id[j] = id;
	out_str(o, "func ");
	out_u64(o, id);
	if (n->kind & CGC_NODE_API) {
		const struct cgc_func *f = (const struct cgc_func *)n->fn;
		out_str(o, " name ");
		out_field(o, f->name);
		out_str(o, " ");
		out_field(o, f->file);
		out_str(o, " ");
		out_u64(o, f->line);
	} else {
		long ob = object_of(os, n->fn);
		out_str(o, " addr ");
		if (ob < 0) {
			out_str(o, "- ");
			out_hex(o, n->fn);
		} else {
			out_u64(o, (uint64_t)ob);
			out_str(o, " ");
			out_hex(o, n->fn - os->v[ob].base);
		}
	}
	out_str(o, "\n");
	return id;
}

/* ---- trees ---------------------------------------------------------------- */

/* Visits every node below root (not root itself) in pre-order. */
#define FOR_EACH_BELOW(root, n)                                                     \
	for (struct cgc_node *n = (root)->first_child; n;                           \
	     n = n->first_child ? n->first_child : next_up(root, n))

static struct cgc_node *CGC_TEXT next_up(struct cgc_node *root, struct cgc_node *n)
{
	while (n != root && !n->next_sibling)
		n = n->parent;
	return n == root ? NULL : n->next_sibling;
}

/* Marks the nodes worth writing: those whose subtree has a nonzero counter
 * (after a reset or a fork most contexts are empty).  Link calls are
 * gathered at their targets for the call-sequence cost. */
static void CGC_TEXT mark_tree(struct cgc_node *root)
{
	FOR_EACH_BELOW(root, n) {
		n->kind &= ~(uint32_t)CGC_NODE_KEEP;
		n->aux = 0;
	}
	FOR_EACH_BELOW(root, n)
		if ((n->kind & CGC_NODE_LINK) && n->calls)
			n->target->aux += n->calls;
	FOR_EACH_BELOW(root, n) {
		if (n->kind & CGC_NODE_HIDDEN)
			continue;
		if (!(n->calls | n->redos | n->recursive | n->ticks | n->aux))
			continue;
		for (struct cgc_node *a = n; a != root && !(a->kind & CGC_NODE_KEEP); a = a->parent)
			a->kind |= CGC_NODE_KEEP;
	}
}

struct stack {
	struct cgc_node **v;
	size_t n, cap;
};

static int CGC_TEXT push(struct stack *s, struct cgc_node *n)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		struct cgc_node **v = realloc(s->v, cap * sizeof *v);
		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = n;
	return 0;
}

/* Pushes the kept children newest first, so they pop in creation order. */
static int CGC_TEXT push_children(struct stack *s, struct cgc_node *n)
{
	for (struct cgc_node *c = n->first_child; c; c = c->next_sibling)
		if ((c->kind & CGC_NODE_KEEP) && push(s, c) != 0)
			return -1;
	return 0;
}

static int CGC_TEXT write_thread(struct out *o, struct cgc_thread *th, unsigned index,
				 struct fmap *fm, const struct objects *os)
{
	static const char *const status_names[] = { "ok", "oom", "overflow" };
	struct stack st = { NULL, 0, 0 };
	uint32_t next_id = 1;
	int rc = 0;

	mark_tree(&th->root);
	th->root.id = 0;
	out_str(o, "thread ");
	out_u64(o, index);
	out_str(o, " ");
	out_u64(o, g_mode == CGC_MODE_CALLS ? 0 : (uint64_t)th->tid);
	out_str(o, "\n");
	if (push_children(&st, &th->root) != 0)
		rc = -1;
	while (rc == 0 && st.n) {
		struct cgc_node *n = st.v[--st.n];
		long fid = func_id(o, fm, os, n);
		if (fid < 0) {
			rc = -1;
			break;
		}
		n->id = next_id++;
		if (n->kind & CGC_NODE_LINK) {
			const uint64_t link[] = { n->id, n->parent->id, (uint64_t)fid, n->calls,
						  n->target->id };
			out_record(o, "link", link, sizeof link / sizeof link[0]);
			continue;
		}
		uint64_t cost = g_mode == CGC_MODE_CALLS ? n->calls + n->recursive + n->aux : n->ticks;
		const uint64_t node[] = { n->id, n->parent->id, (uint64_t)fid, n->calls, n->redos,
					  n->recursive, cost };
		out_record(o, "node", node, sizeof node / sizeof node[0]);
		if (push_children(&st, n) != 0)
			rc = -1;
	}
	free(st.v);
	out_str(o, "endthread ");
	out_u64(o, index);
	out_str(o, " nodes ");
	out_u64(o, next_id - 1);
	out_str(o, " samples ");
	out_u64(o, th->samples);
	out_str(o, " overhead ");
	out_u64(o, th->overhead);
	out_str(o, " lost ");
	out_u64(o, th->lost + th->root.ticks);
	out_str(o, " resyncs ");
	out_u64(o, th->resyncs);
	out_str(o, " status ");
	out_str(o, rc == 0 ? status_names[th->status] : "oom");
	out_str(o, "\n");
	return 0;
}

static void CGC_TEXT write_header(struct out *o, const struct objects *os)
{
	static const char *const mode_names[] = { "cpu", "wall", "calls" };
	out_str(o, "# cgtree 1\ncreator libcgcollect " CGC_VERSION "\n");
	if (g_mode != CGC_MODE_CALLS) {
		out_str(o, "pid ");
		out_u64(o, (uint64_t)getpid());
		out_str(o, "\nppid ");
		out_u64(o, (uint64_t)getppid());
		out_str(o, "\n");
	}
	out_str(o, "exe ");
	out_field(o, os->exe);
	out_str(o, "\ncmd");
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		char buf[8192];
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		for (ssize_t i = 0; n > 0 && i < n;) {
			buf[n] = '\0';
			out_str(o, " ");
			out_field(o, buf + i);
			i += (ssize_t)strlen(buf + i) + 1;
		}
	}
	out_str(o, "\ntime ");
	out_str(o, mode_names[g_mode]);
	out_str(o, "\n");
	if (g_mode == CGC_MODE_CALLS) {
		out_str(o, "hz 0\nevent csc 0 call-sequence%20count\n");
	} else {
		out_str(o, "hz ");
		out_u64(o, g_hz);
		out_str(o, g_mode == CGC_MODE_CPU ? "\nevent cpu " : "\nevent wall ");
		out_u64(o, g_hz ? 1000000000u / g_hz : 0);
		out_str(o, g_mode == CGC_MODE_CPU ? " CPU%20time%20ticks\n" : " wall-clock%20ticks\n");
	}
	if (g_forked)
		out_str(o, "forked 1\n");
	if (g_noprofile_names) {
		const char *s = g_noprofile_names;
		while (*s) {
			const char *comma = strchr(s, ',');
			size_t len = comma ? (size_t)(comma - s) : strlen(s);
			char name[512];
			if (len > 0 && len < sizeof name) {
				memcpy(name, s, len);
				name[len] = '\0';
				out_str(o, "noprofile ");
				out_field(o, name);
				out_str(o, "\n");
			}
			s += len + (comma ? 1 : 0);
		}
	}
	for (size_t i = 0; i < os->n; i++) {
		out_str(o, "object ");
		out_u64(o, i);
		out_str(o, " ");
		out_hex(o, g_mode == CGC_MODE_CALLS ? 0 : os->v[i].base);
		out_str(o, " ");
		out_field(o, os->v[i].path);
		out_str(o, "\n");
	}
}

/* The configured output with %p replaced by the pid; a forked child whose
 * name has no %p gets ".PID" appended so it never overwrites its parent. */
static void CGC_TEXT output_path(char *dst, size_t size)
{
	char pid[24];
	int plen = 0;
	{
		char tmp[24];
		int i = sizeof tmp;
		uint64_t v = (uint64_t)getpid();
		do {
			tmp[--i] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		plen = (int)sizeof tmp - i;
		memcpy(pid, tmp + i, (size_t)plen);
	}
	size_t n = 0;
	int had_pid = 0;
	for (const char *s = g_output; *s && n + 1 < size; s++) {
		if (s[0] == '%' && s[1] == 'p') {
			for (int k = 0; k < plen && n + 1 < size; k++)
				dst[n++] = pid[k];
			s++;
			had_pid = 1;
		} else {
			dst[n++] = *s;
		}
	}
	if (g_forked && !had_pid && n + (size_t)plen + 2 < size) {
		dst[n++] = '.';
		for (int k = 0; k < plen; k++)
			dst[n++] = pid[k];
	}
	dst[n] = '\0';
}

int CGC_TEXT cgc_write_profile(const char *path)
{
	char final[PATH_MAX_CGC];
	if (path) {
		size_t len = strlen(path);
		if (len >= sizeof final) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(final, path, len + 1);
	} else {
		output_path(final, sizeof final);
	}

	struct out *o = malloc(sizeof *o);
	struct cgc_outfile *of = malloc(sizeof *of);
	struct objects os;
	memset(&os, 0, sizeof os);
	struct fmap fm = { NULL, NULL, 0, 0 };
	if (!o || !of) {
		free(o);
		free(of);
		errno = ENOMEM;
		return -1;
	}
	o->failed = 0;
	o->err = 0;
	o->len = 0;
	ssize_t el = readlink("/proc/self/exe", os.exe, sizeof os.exe - 1);
	os.exe[el > 0 ? el : 0] = '\0';

	pthread_mutex_lock(&g_lock);
	if (cgc_file_open(of, final) != 0) {
		int e = errno;
		pthread_mutex_unlock(&g_lock);
		free(o);
		free(of);
		errno = e;
		return -1;
	}
	o->fd = of->fd;
	dl_iterate_phdr(collect_object, &os);
	write_header(o, &os);
	/* Threads in creation order (the registry is newest first); those the
	 * parent had before a fork are not ours. */
	unsigned count = 0;
	for (struct cgc_thread *th = g_threads; th; th = th->next)
		count++;
	struct cgc_thread **byindex = calloc(count ? count : 1, sizeof *byindex);
	if (!byindex && !o->failed) {
		o->failed = 1;
		o->err = ENOMEM;
	}
	for (struct cgc_thread *th = g_threads; byindex && th; th = th->next)
		if (th->index < count)
			byindex[th->index] = th;
	for (unsigned i = 0, written = 0; byindex && i < count; i++)
		if (byindex[i] && !byindex[i]->gone)
			write_thread(o, byindex[i], written++, &fm, &os);
	free(byindex);
	out_str(o, "end\n");
	out_flush(o);
	int rc = cgc_file_finish(of, o->failed, o->err);
	int e = errno;
	pthread_mutex_unlock(&g_lock);
	for (size_t i = 0; i < os.n; i++)
		free(os.v[i].path);
	free(os.v);
	free(fm.key);
	free(fm.id);
	free(o);
	free(of);
	errno = e;
	return rc;
}
