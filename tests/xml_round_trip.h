/*
 * xml_round_trip.h — the XML image of a profile read back, for the unit
 * tests of model fields that must survive it (test_typed_model.c,
 * test_positions.c).  NULL (with a "# " diagnostic) when either way fails.
 */
#ifndef CG_TEST_XML_ROUND_TRIP_H
#define CG_TEST_XML_ROUND_TRIP_H

#include <stdio.h>
#include <stdlib.h>

#include "callgraph.h"

static cg_profile *xml_round_trip(const cg_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cg_error err = { 0 };
	cg_profile *q = NULL;
	if (!f || cg_write_xml(p, f, &err) != 0 || fclose(f) != 0) {
		printf("# write: %s\n", err.message);
		free(buf);
		return NULL;
	}
	if (cg_read_xml_buffer(&q, buf, len, "round-trip.xml", &err) != 0)
		printf("# read: %s\n", err.message);
	free(buf);
	return q;
}

#endif
