/*
 * collect_dump.c — writes the collected trees as a cgtree file
 * (docs/cgtree.md).  Runs at exit, on demand, periodically, and from
 * signal handlers (termination and fatal signals), so the writing path is
 * async-signal-safe: memory comes from mmap, numbers are formatted here,
 * output goes through write(2) (the program's locale and stdio state
 * cannot change the file either), and the loaded objects come from a
 * registry kept up to date outside signal handlers (dl_iterate_phdr takes
 * a lock a signal may have interrupted).  The registry also remembers
 * objects after dlclose, so their functions keep their names.  The file appears
 * atomically and cannot be redirected (collect_file.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "collect_internal.h"

struct out {
	int fd;
	int failed;
	int err;          /* errno of the first failed write */
	int bad_status;   /* a thread stopped early (oom, overflow) */
	uint64_t calls, samples, overhead, lost;  /* totals, for the report */
	uint64_t unplaced;  /* ticks without an address (collect_lines.c) */
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

/* ---- scratch memory (mmap: async-signal-safe) -------------------------- */

static void *CGC_TEXT scratch(size_t size)
{
	return cgc_map_zeroed(size);
}

static void CGC_TEXT unscratch(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}

/* ---- loaded objects: a registry that outlives dlclose ------------------- */

#define OBJ_MAX 4096
#define OBJ_POOL (4u << 20)

struct object {
	uintptr_t base;
	const char *path;        /* in the pool; never freed */
	uintptr_t lo[8], hi[8];  /* PT_LOAD ranges, run-time addresses */
	unsigned nseg;
	int unloaded;            /* dlclosed: kept for its functions' names */
	unsigned seen;           /* refresh generation that last saw it */
};

static struct object *g_obj;      /* OBJ_MAX entries, reserved lazily */
static volatile size_t g_nobj;    /* published after the entry is complete */
static char *g_pool;
static size_t g_pool_used;
static unsigned g_obj_gen;
static pthread_mutex_t g_obj_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_exe[PATH_MAX_CGC];

static const char *CGC_TEXT pool_copy(const char *s)
{
	size_t n = strlen(s) + 1;
	if (g_pool_used + n > OBJ_POOL)
		return NULL;
	char *d = g_pool + g_pool_used;
	memcpy(d, s, n);
	g_pool_used += n;
	return d;
}

static int CGC_TEXT refresh_one(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	const char *name = info->dlpi_name;
	char *real = NULL;
	const char *path;
	/* Absolute paths, so the reader finds the objects from any directory
	 * (dlopen may have been given a relative one). */
	if (name && *name && name[0] != '/')
		real = realpath(name, NULL);
	path = real ? real : (name && *name ? name : g_exe);
	size_t n = g_nobj;
	for (size_t i = 0; i < n; i++) {
		struct object *ob = &g_obj[i];
		if (ob->base == info->dlpi_addr && strcmp(ob->path, path) == 0) {
			ob->seen = g_obj_gen;
			ob->unloaded = 0;
			free(real);
			return 0;
		}
	}
	if (n == OBJ_MAX) {
		free(real);
		return 0;
	}
	struct object *ob = &g_obj[n];
	memset(ob, 0, sizeof *ob);
	ob->base = info->dlpi_addr;
	ob->path = pool_copy(path);
	free(real);
	if (!ob->path)
		return 0;
	ob->seen = g_obj_gen;
	for (int i = 0; i < info->dlpi_phnum && ob->nseg < 8; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		ob->lo[ob->nseg] = info->dlpi_addr + ph->p_vaddr;
		ob->hi[ob->nseg] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		ob->nseg++;
	}
	__atomic_store_n(&g_nobj, n + 1, __ATOMIC_RELEASE);
	return 0;
}

/* Brings the registry up to date with the objects loaded now; objects no
 * longer loaded stay, marked unloaded.  Not for signal handlers. */
void CGC_TEXT cgc_objects_refresh(void)
{
	pthread_mutex_lock(&g_obj_lock);
	if (!g_obj) {
		g_obj = scratch(OBJ_MAX * sizeof *g_obj);
		g_pool = scratch(OBJ_POOL);
		ssize_t el = readlink("/proc/self/exe", g_exe, sizeof g_exe - 1);
		g_exe[el > 0 ? el : 0] = '\0';
	}
	if (g_obj && g_pool) {
		g_obj_gen++;
		dl_iterate_phdr(refresh_one, NULL);
		for (size_t i = 0; i < g_nobj; i++)
			if (g_obj[i].seen != g_obj_gen)
				g_obj[i].unloaded = 1;
	}
	pthread_mutex_unlock(&g_obj_lock);
}

/* Loaded objects first: an address reused after dlclose belongs to the
 * object there now. */
static long CGC_TEXT object_of(uintptr_t addr)
{
	size_t n = __atomic_load_n(&g_nobj, __ATOMIC_ACQUIRE);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			if (g_obj[i].unloaded != pass)
				continue;
			for (unsigned s = 0; s < g_obj[i].nseg; s++)
				if (addr >= g_obj[i].lo[s] && addr < g_obj[i].hi[s])
					return (long)i;
		}
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
	size_t cap = m->cap ? m->cap * 2 : 4096;
	uintptr_t *k = scratch(cap * sizeof *k);
	uint32_t *v = scratch(cap * sizeof *v);
	if (!k || !v) {
		unscratch(k, cap * sizeof *k);
		unscratch(v, cap * sizeof *v);
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
	unscratch(m->key, m->cap * sizeof *m->key);
	unscratch(m->id, m->cap * sizeof *m->id);
	m->key = k;
	m->id = v;
	m->cap = cap;
	return 0;
}

/* Returns the id of fn, writing its "func" record first when it is new;
 * -1 when out of memory. */
static long CGC_TEXT func_id(struct out *o, struct fmap *m, const struct cgc_node *n)
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
		long ob = object_of(n->fn);
		out_str(o, " addr ");
		if (ob < 0) {
			out_str(o, "- ");
			out_hex(o, n->fn);
		} else {
			out_u64(o, (uint64_t)ob);
			out_str(o, " ");
			out_hex(o, n->fn - g_obj[ob].base);
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
		size_t cap = s->cap ? s->cap * 2 : 4096;
		struct cgc_node **v = scratch(cap * sizeof *v);
		if (!v)
			return -1;
		if (s->n)
			memcpy(v, s->v, s->n * sizeof *v);
		unscratch(s->v, s->cap * sizeof *v);
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

/* `at NODE OBJ OFFSET TICKS`: node n's ticks at one instruction address,
 * right after its `node` record.  The counts never add up to more than
 * the node's cost as written (a tick arriving during the dump may be in
 * one and not yet in the other). */
static void CGC_TEXT write_addresses(struct out *o, const struct cgc_lines_view *view,
				     const struct cgc_node *n, uint64_t cost)
{
	size_t count, first = cgc_lines_find(view, n, &count);
	for (size_t i = first; i < first + count && cost; i++) {
		uint64_t t = view->v[i].ticks < cost ? view->v[i].ticks : cost;
		cost -= t;
		uintptr_t pc = view->v[i].pc;
		long ob = object_of(pc);
		out_str(o, "at ");
		out_u64(o, n->id);
		if (ob < 0) {
			out_str(o, " - ");
			out_hex(o, pc);
		} else {
			out_str(o, " ");
			out_u64(o, (uint64_t)ob);
			out_str(o, " ");
			out_hex(o, pc - g_obj[ob].base);
		}
		out_str(o, " ");
		out_u64(o, t);
		out_str(o, "\n");
	}
}

static int CGC_TEXT write_thread(struct out *o, struct cgc_thread *th, unsigned index,
				 struct fmap *fm)
{
	static const char *const status_names[] = { "ok", "oom", "overflow" };
	struct stack st = { NULL, 0, 0 };
	uint32_t next_id = 1;
	int rc = 0;

	/* The addresses first: each one's node then has its ticks too. */
	struct cgc_lines_view lines;
	cgc_lines_snapshot(th, &lines);  /* no memory: nodes without addresses */
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
		long fid = func_id(o, fm, n);
		if (fid < 0) {
			rc = -1;
			break;
		}
		n->id = next_id++;
		if (n->kind & CGC_NODE_LINK) {
			const uint64_t link[] = { n->id, n->parent->id, (uint64_t)fid, n->calls,
						  n->target->id };
			out_record(o, "link", link, sizeof link / sizeof link[0]);
			o->calls += n->calls;
			continue;
		}
		uint64_t cost = g_mode == CGC_MODE_CALLS ? n->calls + n->recursive + n->aux : n->ticks;
		const uint64_t node[] = { n->id, n->parent->id, (uint64_t)fid, n->calls, n->redos,
					  n->recursive, cost };
		out_record(o, "node", node, sizeof node / sizeof node[0]);
		if (lines.n)
			write_addresses(o, &lines, n, cost);
		o->calls += n->calls + n->recursive;
		if (push_children(&st, n) != 0)
			rc = -1;
	}
	unscratch(st.v, st.cap * sizeof *st.v);
	cgc_lines_release(&lines);
	o->samples += th->samples;
	o->overhead += th->overhead;
	o->lost += th->lost + th->root.ticks;
	o->unplaced += th->unplaced;
	if (rc != 0 || th->status != CGC_OK)
		o->bad_status = 1;
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
	if (th->pcs) {
		/* Ticks whose address found no room in the thread's table. */
		out_str(o, " unplaced ");
		out_u64(o, th->unplaced);
	}
	out_str(o, " status ");
	out_str(o, rc == 0 ? status_names[th->status] : "oom");
	out_str(o, "\n");
	return 0;
}

static void CGC_TEXT write_header(struct out *o)
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
	out_field(o, g_exe);
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
	size_t nobj = __atomic_load_n(&g_nobj, __ATOMIC_ACQUIRE);
	for (size_t i = 0; i < nobj; i++) {
		out_str(o, "object ");
		out_u64(o, i);
		out_str(o, " ");
		out_hex(o, g_mode == CGC_MODE_CALLS ? 0 : g_obj[i].base);
		out_str(o, " ");
		out_field(o, g_obj[i].path);
		out_str(o, "\n");
	}
}

/* The configured output with %p replaced by the pid; a forked child whose
 * name has no %p gets ".PID" appended so it never overwrites its parent. */
void CGC_TEXT cgc_output_path(char *dst, size_t size)
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
		if (s[0] == '%' && s[1] == 'p' && !g_output_fixed) {
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

/* "SIGTERM" for 15: sigabbrev_np is a table lookup (no locale, no
 * allocation), so fine in a handler. */
const char *CGC_TEXT cgc_signame(int sig, char *buf, size_t size)
{
	const char *abbrev = sigabbrev_np(sig);
	if (abbrev && strlen(abbrev) + 4 <= size) {
		memcpy(buf, "SIG", 3);
		memcpy(buf + 3, abbrev, strlen(abbrev) + 1);
		return buf;
	}
	memcpy(buf, "-", 2);
	return buf;
}

/* The trailer: how the run ended, or that it had not ended yet. */
static void CGC_TEXT write_ending(struct out *o, const struct cgc_ending *e)
{
	char name[32];
	switch (e->kind) {
	case CGC_END_EXIT:
	case CGC_END__EXIT:
		out_str(o, e->kind == CGC_END_EXIT ? "ended exit " : "ended _exit ");
		out_u64(o, (uint64_t)(e->value & 0xff));
		break;
	case CGC_END_SIGNAL:
		out_str(o, "ended signal ");
		out_u64(o, (uint64_t)e->value);
		out_str(o, " ");
		out_str(o, cgc_signame(e->value, name, sizeof name));
		break;
	case CGC_END_EXEC:
		out_str(o, "ended exec ");
		out_field(o, e->detail);
		break;
	case CGC_END_SNAPSHOT:
		out_str(o, "ended snapshot ");
		out_u64(o, (uint64_t)e->value);
		break;
	default:
		out_str(o, "ended dump");
		break;
	}
	out_str(o, "\n");
}

/* One line for cgrun in the file named by CGCOLLECT_REPORT (which cgrun
 * created): what was written where, or why it could not be.  One write
 * on an O_APPEND descriptor, so lines from several processes do not mix:
 *   written PID PATH KIND VALUE calls C samples S overhead O lost L status ok|cut [unplaced U]
 *   failed PID PATH KIND VALUE errno E
 */
static void CGC_TEXT report(const char *path, const struct cgc_ending *e, const struct out *o,
			    int rc, int err)
{
	if (!g_report[0])
		return;
	struct out *r = scratch(sizeof *r);
	if (!r)
		return;
	r->fd = open(g_report, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (r->fd < 0) {
		unscratch(r, sizeof *r);
		return;
	}
	out_str(r, rc == 0 ? "written " : "failed ");
	out_u64(r, (uint64_t)getpid());
	out_str(r, " ");
	out_field(r, path);
	static const char *const kinds[] = { "dump", "snapshot", "exit", "_exit", "signal", "exec" };
	out_str(r, " ");
	out_str(r, kinds[e->kind]);
	out_str(r, " ");
	out_u64(r, (uint64_t)(e->kind == CGC_END_EXEC ? 0 : e->value));
	if (rc == 0) {
		const uint64_t v[] = { o->calls, o->samples, o->overhead, o->lost };
		static const char *const keys[] = { " calls ", " samples ", " overhead ", " lost " };
		for (int i = 0; i < 4; i++) {
			out_str(r, keys[i]);
			out_u64(r, v[i]);
		}
		out_str(r, o->bad_status ? " status cut" : " status ok");
		if (o->unplaced) {
			out_str(r, " unplaced ");
			out_u64(r, o->unplaced);
		}
	} else {
		out_str(r, " errno ");
		out_u64(r, (uint64_t)err);
	}
	out_str(r, "\n");
	out_flush(r);
	close(r->fd);
	unscratch(r, sizeof *r);
}

/* Without cgrun a failed write would go unnoticed: say so on stderr.  The
 * errno is printed as a number (strerror is not async-signal-safe). */
static void CGC_TEXT complain(const char *path, int err)
{
	if (g_report[0])
		return;
	struct out *r = scratch(sizeof *r);
	if (!r)
		return;
	r->fd = 2;
	out_str(r, "libcgcollect: cannot write the profile ");
	out_str(r, path);
	out_str(r, ": errno ");
	out_u64(r, (uint64_t)err);
	const char *name = strerrorname_np(err);
	if (name) {
		out_str(r, " (");
		out_str(r, name);
		out_str(r, ")");
	}
	out_str(r, "\n");
	out_flush(r);
	unscratch(r, sizeof *r);
}

static volatile pid_t g_dump_owner;  /* thread writing a profile, 0 if none */
static volatile int g_final_done;    /* the run's ending has been written */

int CGC_TEXT cgc_dump_busy_here(void)
{
	return g_dump_owner == gettid();
}

int CGC_TEXT cgc_write_profile(const char *path, const struct cgc_ending *end, int in_signal)
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
		cgc_output_path(final, sizeof final);
	}
	pid_t me = gettid();
	if (g_dump_owner == me) {
		/* A signal interrupted our own write: the file would mix two. */
		errno = EBUSY;
		return -1;
	}
	if (!in_signal) {
		cgc_objects_refresh();
		pthread_mutex_lock(&g_lock);
	} else {
		/* Another thread may be writing (then we wait for it: the
		 * process must not die under it), or may hold the lock for a
		 * moment (registering a thread).  Best effort after 5 s. */
		struct timespec ms = { 0, 1000000 };
		int locked = 0;
		for (int i = 0; i < 5000 && !(locked = pthread_mutex_trylock(&g_lock) == 0); i++)
			nanosleep(&ms, NULL);
		(void)locked;  /* unlocked below only if taken */
		if (!locked)
			in_signal = 2;
	}
	if (end->kind == CGC_END_SNAPSHOT && g_final_done) {
		/* The program has ended: a late snapshot must not replace
		 * the final file. */
		if (in_signal != 2)
			pthread_mutex_unlock(&g_lock);
		return 0;
	}
	if (end->kind == CGC_END_EXIT || end->kind == CGC_END__EXIT || end->kind == CGC_END_SIGNAL)
		g_final_done = 1;
	g_dump_owner = me;

	/* A file size limit (RLIMIT_FSIZE) must fail the write with EFBIG,
	 * not kill the program with SIGXFSZ before it could say so. */
	struct sigaction xfsz_old, xfsz_ign;
	memset(&xfsz_ign, 0, sizeof xfsz_ign);
	xfsz_ign.sa_handler = SIG_IGN;
	int xfsz_swapped = cgc_sys_sigaction(SIGXFSZ, NULL, &xfsz_old) == 0 &&
			   xfsz_old.sa_handler == SIG_DFL && !(xfsz_old.sa_flags & SA_SIGINFO) &&
			   cgc_sys_sigaction(SIGXFSZ, &xfsz_ign, NULL) == 0;

	int rc = -1, err = ENOMEM;
	struct out *o = scratch(sizeof *o);
	struct cgc_outfile *of = scratch(sizeof *of);
	struct fmap fm = { NULL, NULL, 0, 0 };
	const char *shown = final;
	if (!o || !of)
		goto done;
	if (cgc_file_open(of, final) != 0) {
		err = errno;
		shown = of->path[0] ? of->path : final;
		goto done;
	}
	shown = of->path;
	o->fd = of->fd;
	write_header(o);
	/* Threads in creation order (the registry is newest first); those the
	 * parent had before a fork are not ours. */
	unsigned count = 0;
	for (struct cgc_thread *th = g_threads; th; th = th->next)
		count++;
	size_t bsize = (count ? count : 1) * sizeof(struct cgc_thread *);
	struct cgc_thread **byindex = scratch(bsize);
	if (!byindex && !o->failed) {
		o->failed = 1;
		o->err = ENOMEM;
	}
	for (struct cgc_thread *th = g_threads; byindex && th; th = th->next)
		if (th->index < count)
			byindex[th->index] = th;
	for (unsigned i = 0, written = 0; byindex && i < count; i++)
		if (byindex[i] && !byindex[i]->gone)
			write_thread(o, byindex[i], written++, &fm);
	unscratch(byindex, bsize);
	write_ending(o, end);
	out_str(o, "end\n");
	out_flush(o);
	rc = cgc_file_finish(of, o->failed, o->err);
	err = errno;
done:
	if (rc != 0)
		complain(shown, err);
	if (o) {
		report(shown, end, o, rc, err);
		unscratch(o, sizeof *o);
	}
	if (xfsz_swapped)
		cgc_sys_sigaction(SIGXFSZ, &xfsz_old, NULL);
	g_dump_owner = 0;
	if (in_signal != 2)
		pthread_mutex_unlock(&g_lock);
	unscratch(of, sizeof *of);
	unscratch(fm.key, fm.cap * sizeof *fm.key);
	unscratch(fm.id, fm.cap * sizeof *fm.id);
	errno = err;
	return rc;
}
