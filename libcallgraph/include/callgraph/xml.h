/*
 * callgraph/xml.h — the lossless XML image of a profile.
 *
 * The schema is docs/xml-schema.rng (RELAX NG).  Everything the model holds
 * is written: metadata, events, functions with every field and flag, parts
 * with self costs (and exact fractional self costs, printed so that they
 * read back to the same double), per-function inclusive costs and call
 * counts, arcs in their order with counts, lines and inclusive costs, and
 * the call tree node by node.  Reading the file back gives a profile from
 * which every writer produces byte-identical output.
 *
 * Strings that XML cannot carry (control characters, invalid UTF-8) are
 * written hex-encoded in a sibling attribute `NAME-hex`.
 *
 * Thread safety: libxml2 is initialised by its own constructor; reading
 * and writing different profiles in parallel is safe.
 */
#ifndef CALLGRAPH_XML_H
#define CALLGRAPH_XML_H

#include <stdio.h>
#include "callgraph/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Namespace of the root element <callgraph>. */
#define CG_XML_NAMESPACE "urn:x-callgraph:profile:1"

CG_EXTERN int cg_write_xml(const cg_profile *profile, FILE *out, cg_error *err);

/* Streaming reader; errors give "FILE:LINE: what". */
CG_EXTERN int cg_read_xml(cg_profile **out, const char *path, cg_error *err);
CG_EXTERN int cg_read_xml_buffer(cg_profile **out, const void *data, size_t len,
				 const char *name, cg_error *err);

#ifdef __cplusplus
}
#endif
#endif
