/*
 * pprof_format.c — pprof's profile.proto in the format registry.
 */
#include <string.h>

#include "callgraph.h"
#include "callgraph/sys/format.h"
#include "pb.h"
#include "pprof_internal.h"

/* The wire type each top-level field of a Profile has (0: no such field). */
static int profile_field_wire(uint64_t number, unsigned wire)
{
	switch (number) {
	case 1: case 2: case 3: case 4: case 5: case 6: case 11:
		return wire == PB_LEN;
	case 7: case 8: case 9: case 10: case 12: case 14:
		return wire == PB_VARINT;
	case 13:   /* comments: packed or not */
		return wire == PB_LEN || wire == PB_VARINT;
	default:
		return 0;
	}
}

/* gzip's magic (pprof files are gzipped), or a raw Profile: the first
 * bytes parse as top-level fields of a Profile, each of its wire type,
 * and a string table entry is among them or the walk reaches the end of
 * what we were shown inside a field.  Text never starts like that: its
 * first byte would be a field key of a wrong wire type or number. */
static int detect(const unsigned char *h, size_t len)
{
	if (len >= 3 && h[0] == 0x1f && h[1] == 0x8b && h[2] == 8)
		return 60;
	struct pb_reader r = { h, h + len, h };
	struct pb_field f;
	const char *why;
	int fields = 0, k;
	while ((k = pb_next(&r, &f, &why)) > 0) {
		if (!profile_field_wire(f.number, f.wire))
			return 0;
		fields++;
	}
	/* k < 0 at the end of a short head is a field cut by the head's end */
	if (fields >= 2 || (fields >= 1 && k == 0))
		return 40;
	return 0;
}

static int read_pprof(const cg_format_ops *self, cg_profile **out, cg_source *src,
		      const cg_read_options *opts, cg_error *err)
{
	(void)self;
	/* Look before taking it all in: /dev/zero or text named as pprof
	 * must fail at once, not after filling memory. */
	size_t hl;
	const unsigned char *h = cg_source_head(src, &hl);
	if (hl == 0)
		return cg_error_set(err, CG_EFORMAT, "%s: empty, not a pprof profile",
				    cg_source_name(src));
	if (!(hl >= 2 && h[0] == 0x1f && h[1] == 0x8b)) {
		const unsigned char *p = h;
		uint64_t key;
		if (pb_read_varint(&p, h + hl, &key) || !profile_field_wire(key >> 3, (unsigned)(key & 7)))
			return cg_error_set(err, CG_EFORMAT,
					    "%s: byte offset 0: not a pprof profile (neither gzip data nor a field of a protobuf Profile)",
					    cg_source_name(src));
	}
	const void *data;
	size_t len;
	int rc = cg_source_slurp(src, &data, &len, CG_PPROF_MAX_BYTES, err);
	if (rc)
		return rc;
	return cg_pprof_read(out, cg_source_name(src), data, len, opts, err);
}

static int write_pprof(const cg_format_ops *self, const cg_profile *p, FILE *out,
		       const cg_write_options *opts, cg_error *err)
{
	(void)self;
	return cg_pprof_write(p, out, opts, err);
}

const cg_format_ops cg_fmt_pprof = {
	.version = CG_FORMAT_OPS_VERSION,
	.name = "pprof",
	.description = "pprof profile.proto, gzipped (go tool pprof, Pyroscope, Parca, speedscope)",
	.keeps = "every event as a sample type, call stacks of call-tree inputs, call counts, parts as thread labels",
	.loses = "arc-only inputs (gmon, Callgrind) give no stacks: one-frame self samples and (callee, caller) call counts; addresses, call-site lines",
	.detect = detect,
	.read = read_pprof,
	.write = write_pprof,
};
