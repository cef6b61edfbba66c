/*
 * xml_format.c — our XML image of the model in the format registry.
 */
#include <string.h>

#include "callgraph.h"
#include "callgraph/sys/format.h"

static int detect(const unsigned char *h, size_t len)
{
	size_t i = 0;
	if (len >= 3 && memcmp(h, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < len && (h[i] == ' ' || h[i] == '\t' || h[i] == '\r' || h[i] == '\n'))
		i++;
	if (!(len - i >= 5 && memcmp(h + i, "<?xml", 5) == 0) &&
	    !(len - i >= 10 && memcmp(h + i, "<callgraph", 10) == 0))
		return 0;
	return memmem(h, len, "<callgraph", 10) ? 90 : 0;
}

static int read_xml(const cg_format_ops *self, cg_profile **out, cg_source *src,
		    const cg_read_options *opts, cg_error *err)
{
	if (cg_source_path(src))
		return cg_read_xml(out, cg_source_path(src), err);
	const void *data;
	size_t len;
	/* Our XML is UTF-8, which has no NUL bytes; a UTF-16 document (with
	 * its byte order mark) is left to libxml2. */
	size_t head_len;
	const unsigned char *h = cg_source_head(src, &head_len);
	int utf16 = head_len >= 2 && ((h[0] == 0xff && h[1] == 0xfe) || (h[0] == 0xfe && h[1] == 0xff));
	int rc = utf16 ? cg_source_slurp(src, &data, &len, 0, err)
		       : cg_source_slurp_text(src, &data, &len, 0, err);
	return rc ? rc : cg_read_xml_buffer(out, data, len, cg_source_name(src), err);
}

static int write_xml(const cg_format_ops *self, const cg_profile *p, FILE *out,
		     const cg_write_options *opts, cg_error *err)
{
	return cg_write_xml(p, out, err);
}

const cg_format_ops cg_fmt_xml = {
	.version = CG_FORMAT_OPS_VERSION,
	.name = "xml",
	.description = "callgraph XML (docs/xml-schema.rng): the whole model, read back losslessly",
	.keeps = "everything in the model",
	.loses = "nothing",
	.detect = detect,
	.read = read_xml,
	.write = write_xml,
};
