/*
 * source.c — one input, whatever it is: a regular file, a pipe, standard
 * input or a memory buffer.
 *
 * The first CG_SOURCE_HEAD_MAX bytes are read when the source is opened, so
 * that format detection works on pipes without consuming what the reader
 * needs: cg_source_stream() replays them before the rest (through a
 * fopencookie stream), and cg_source_slurp() keeps them in front of what it
 * reads.  A regular file is never read twice for that: its stream is simply
 * rewound, and slurping maps it.
 *
 * Nothing is ever reopened by name after the open, so a FIFO or a device
 * is read exactly once, as a stream.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "callgraph.h"
#include "callgraph/sys/format.h"

struct cg_source {
	char *name;              /* for messages */
	char *path;              /* regular file that may be reopened, else NULL */
	int fd;                  /* -1 for buffers */
	int own_fd;              /* close fd at the end (not stdin) */
	uint64_t size;           /* UINT64_MAX unknown */
	unsigned char *head;     /* the first bytes (buffers: points into data) */
	size_t head_len;
	size_t head_pos;         /* replay position for the stream */
	int eof_in_head;         /* the whole input fits in head */
	const unsigned char *data;  /* buffer sources */
	FILE *stream;
	void *map;               /* slurped regular file */
	size_t map_len;
	unsigned char *owned;    /* slurped stream */
};

static int fill_head(cg_source *s, cg_error *err)
{
	s->head = malloc(CG_SOURCE_HEAD_MAX);
	if (!s->head)
		return cg_error_set(err, CG_ENOMEM, "%s: out of memory", s->name);
	while (s->head_len < CG_SOURCE_HEAD_MAX) {
		ssize_t n = read(s->fd, s->head + s->head_len, CG_SOURCE_HEAD_MAX - s->head_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return cg_error_set(err, CG_EIO, "%s: read error: %s", s->name,
					    strerror(errno));
		if (n == 0) {
			s->eof_in_head = 1;
			break;
		}
		s->head_len += (size_t)n;
	}
	return 0;
}

int cg_source_open(cg_source **out, const char *path, cg_error *err)
{
	*out = NULL;
	cg_source *s = calloc(1, sizeof *s);
	if (!s)
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	s->size = UINT64_MAX;
	int is_stdin = strcmp(path, "-") == 0;
	s->name = strdup(is_stdin ? "<stdin>" : path);
	if (!s->name) {
		free(s);
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	}
	if (is_stdin) {
		s->fd = 0;
	} else {
		/* O_NONBLOCK so that opening a FIFO with no writer does not
		 * hang here; it is cleared again for the reads. */
		s->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (s->fd < 0) {
			int e = errno;
			cg_source_close(s);
			return cg_error_set(err, CG_EIO, "%s: %s", path, strerror(e));
		}
		s->own_fd = 1;
		int fl = fcntl(s->fd, F_GETFL);
		if (fl >= 0)
			fcntl(s->fd, F_SETFL, fl & ~O_NONBLOCK);
	}
	struct stat st;
	if (fstat(s->fd, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			cg_source_close(s);
			return cg_error_set(err, CG_EIO, "%s: is a directory", path);
		}
		if (S_ISREG(st.st_mode)) {
			s->size = (uint64_t)st.st_size;
			if (!is_stdin && !(s->path = strdup(path))) {
				cg_source_close(s);
				return cg_error_set(err, CG_ENOMEM, "out of memory");
			}
		}
	}
	int rc = fill_head(s, err);
	if (rc) {
		cg_source_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

int cg_source_new_buffer(cg_source **out, const char *name, const void *data, size_t len,
			 cg_error *err)
{
	*out = NULL;
	cg_source *s = calloc(1, sizeof *s);
	if (!s || !(s->name = strdup(name ? name : "<buffer>"))) {
		free(s);
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	}
	s->fd = -1;
	s->data = data;
	s->size = len;
	s->head = (unsigned char *)data;
	s->head_len = len < CG_SOURCE_HEAD_MAX ? len : CG_SOURCE_HEAD_MAX;
	s->eof_in_head = len <= CG_SOURCE_HEAD_MAX;
	*out = s;
	return 0;
}

void cg_source_close(cg_source *s)
{
	if (!s)
		return;
	if (s->stream)
		fclose(s->stream);
	if (s->map)
		munmap(s->map, s->map_len);
	free(s->owned);
	if (s->own_fd && s->fd >= 0)
		close(s->fd);
	if (!s->data)
		free(s->head);
	free(s->name);
	free(s->path);
	free(s);
}

const char *cg_source_name(const cg_source *s)
{
	return s->name;
}

const char *cg_source_path(const cg_source *s)
{
	return s->path;
}

uint64_t cg_source_size(const cg_source *s)
{
	return s->size;
}

const unsigned char *cg_source_head(const cg_source *s, size_t *len)
{
	*len = s->head_len;
	return s->head;
}

/* fopencookie read function: the buffered head first, then the fd. */
static ssize_t replay_read(void *cookie, char *buf, size_t size)
{
	cg_source *s = cookie;
	if (s->head_pos < s->head_len) {
		size_t n = s->head_len - s->head_pos;
		if (n > size)
			n = size;
		memcpy(buf, s->head + s->head_pos, n);
		s->head_pos += n;
		return (ssize_t)n;
	}
	if (s->eof_in_head)
		return 0;
	for (;;) {
		ssize_t n = read(s->fd, buf, size);
		if (n < 0 && errno == EINTR)
			continue;
		return n;
	}
}

int cg_source_stream(cg_source *s, FILE **out, cg_error *err)
{
	*out = NULL;
	if (s->stream || s->map || s->owned)
		return cg_error_set(err, CG_EUSAGE, "%s: source already consumed", s->name);
	if (s->data) {
		s->stream = fmemopen((void *)s->data, s->size ? s->size : 1, "r");
		if (s->stream && s->size == 0)
			fgetc(s->stream);  /* fmemopen cannot be empty: consume the placeholder */
	} else if (s->path) {
		/* A regular file: the fd itself, rewound. */
		int fd = dup(s->fd);
		if (fd >= 0 && lseek(fd, 0, SEEK_SET) == 0)
			s->stream = fdopen(fd, "r");
		else if (fd >= 0)
			close(fd);
	} else {
		cookie_io_functions_t io = { .read = replay_read };
		s->stream = fopencookie(s, "r", io);
	}
	if (!s->stream)
		return cg_error_set(err, CG_EIO, "%s: %s", s->name, strerror(errno));
	*out = s->stream;
	return 0;
}

/* The byte offset of the first NUL in data[0..n) as an error, or 0. */
static int refuse_nul(const cg_source *s, const unsigned char *data, size_t n, uint64_t base,
		      cg_error *err)
{
	const unsigned char *nul = memchr(data, 0, n);
	if (!nul)
		return 0;
	return cg_error_set(err, CG_EFORMAT,
			    "%s: NUL byte at byte offset %llu: binary data, not a text profile",
			    s->name, (unsigned long long)(base + (uint64_t)(nul - data)));
}

static int slurp(cg_source *s, const void **data, size_t *len, uint64_t max_bytes, int text,
		 cg_error *err);

int cg_source_slurp(cg_source *s, const void **data, size_t *len, uint64_t max_bytes,
		    cg_error *err)
{
	return slurp(s, data, len, max_bytes, 0, err);
}

int cg_source_slurp_text(cg_source *s, const void **data, size_t *len, uint64_t max_bytes,
			 cg_error *err)
{
	return slurp(s, data, len, max_bytes, 1, err);
}

/* text: refuse a NUL byte as soon as it is read, so that an endless binary
 * stream (/dev/zero) fails at once instead of filling memory. */
static int slurp(cg_source *s, const void **data, size_t *len, uint64_t max_bytes, int text,
		 cg_error *err)
{
	*data = NULL;
	*len = 0;
	if (s->data) {
		if (text && refuse_nul(s, s->data, (size_t)s->size, 0, err))
			return CG_EFORMAT;
		*data = s->data;
		*len = (size_t)s->size;
		return 0;
	}
	if (s->stream || s->map || s->owned)
		return cg_error_set(err, CG_EUSAGE, "%s: source already consumed", s->name);
	if (max_bytes && s->size != UINT64_MAX && s->size > max_bytes)
		return cg_error_set(err, CG_ENOMEM, "%s: input of %llu bytes is over the limit of %llu",
				    s->name, (unsigned long long)s->size,
				    (unsigned long long)max_bytes);
	if (s->path) {
		if (s->size == 0) {
			*data = s->head;
			return 0;
		}
		if (s->size > SIZE_MAX)
			return cg_error_set(err, CG_ENOMEM, "%s: too large to map", s->name);
		void *m = mmap(NULL, (size_t)s->size, PROT_READ, MAP_PRIVATE, s->fd, 0);
		if (m == MAP_FAILED)
			return cg_error_set(err, CG_EIO, "%s: cannot map: %s", s->name,
					    strerror(errno));
		s->map = m;
		s->map_len = (size_t)s->size;
		if (text && refuse_nul(s, m, s->map_len, 0, err))
			return CG_EFORMAT;
		*data = m;
		*len = s->map_len;
		return 0;
	}
	/* A stream: the head, then everything else, growing geometrically. */
	size_t cap = s->head_len + (s->eof_in_head ? 1 : CG_SOURCE_HEAD_MAX);
	unsigned char *buf = malloc(cap);
	if (!buf)
		return cg_error_set(err, CG_ENOMEM, "%s: out of memory", s->name);
	memcpy(buf, s->head, s->head_len);
	size_t n = s->head_len;
	if (text && refuse_nul(s, buf, n, 0, err)) {
		free(buf);
		return CG_EFORMAT;
	}
	while (!s->eof_in_head) {
		if (n == cap) {
			if (cap > SIZE_MAX / 2) {
				free(buf);
				return cg_error_set(err, CG_ENOMEM, "%s: out of memory", s->name);
			}
			unsigned char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return cg_error_set(err, CG_ENOMEM, "%s: out of memory", s->name);
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(s->fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			return cg_error_set(err, CG_EIO, "%s: read error: %s", s->name, strerror(e));
		}
		if (r == 0)
			break;
		if (text && refuse_nul(s, buf + n, (size_t)r, n, err)) {
			free(buf);
			return CG_EFORMAT;
		}
		n += (size_t)r;
		if (max_bytes && n > max_bytes) {
			free(buf);
			return cg_error_set(err, CG_ENOMEM, "%s: input is over the limit of %llu bytes",
					    s->name, (unsigned long long)max_bytes);
		}
	}
	s->owned = buf;
	*data = buf;
	*len = n;
	return 0;
}
