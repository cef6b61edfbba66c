/*
 * xml_common.h — internal: what the XML writer and reader share (names
 * of the function flags in the schema, number formatting).
 */
#ifndef CG_XML_COMMON_H
#define CG_XML_COMMON_H

#include <stdint.h>

struct xml_flag {
	uint32_t bit;
	const char *name;
};

static const struct xml_flag xml_flags[] = {
	{ 1u << 0, "has-addr" },
	{ 1u << 1, "static" },
	{ 1u << 2, "function" },
	{ 1u << 3, "transparent" },
	{ 1u << 4, "synthetic" },
	{ 1u << 5, "spontaneous" },
};
#define XML_NFLAGS (sizeof xml_flags / sizeof xml_flags[0])

#endif
