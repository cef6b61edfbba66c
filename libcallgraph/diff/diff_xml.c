/*
 * diff_xml.c — the machine-readable diff (libxml2 text writer).
 *
 *   <cgdiff version="1" z="4" flagged="N" result="pass|fail">
 *     <event index= name= unit-seconds= kind= checked="0|1"/>...
 *     <rule index= text=/>...
 *     <scope index= name=>
 *       <total event= base= new= delta= relative=/>...
 *       <function item= name= [object=] [file=] in-base= in-new=>
 *         <self event= base= new= delta= relative=/>...
 *         <inclusive .../>...   <calls base= new= delta= relative=/>
 *       </function>  (functions with a non-zero value in the scope)
 *       <arc item= caller= callee=> <calls .../> <inclusive event= .../> </arc>
 *     </scope>
 *     <finding rule= scope= metric= item= event= base= new= delta=
 *              noise-bound= flagged= noise= [p-value=] [detectable=]>reason</finding>
 *   </cgdiff>
 * Findings are written when flagged or explained by noise; "relative" is
 * "inf"/"-inf" for values appearing from zero.
 */
#include <libxml/xmlwriter.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff_internal.h"

#define X(s) ((const xmlChar *)(s))

static int attr(xmlTextWriterPtr w, const char *name, const char *value)
{
	return xmlTextWriterWriteAttribute(w, X(name), X(value)) < 0 ? -1 : 0;
}

static int attr_int(xmlTextWriterPtr w, const char *name, long long v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%lld", v);
	return attr(w, name, buf);
}

static int attr_double(xmlTextWriterPtr w, const char *name, double v)
{
	char buf[40];
	if (isinf(v))
		snprintf(buf, sizeof buf, "%s", v > 0 ? "inf" : "-inf");
	else
		snprintf(buf, sizeof buf, "%.6g", v);
	return attr(w, name, buf);
}

static int value_elem(xmlTextWriterPtr w, const char *tag, long event, const cg_diff_value *v)
{
	int rc = xmlTextWriterStartElement(w, X(tag)) < 0;
	if (event >= 0)
		rc |= attr_int(w, "event", event);
	rc |= attr_int(w, "base", v->base);
	rc |= attr_int(w, "new", v->new_value);
	rc |= attr_int(w, "delta", v->delta);
	rc |= attr_double(w, "relative", v->relative);
	rc |= xmlTextWriterEndElement(w) < 0;
	return rc ? -1 : 0;
}

static int write_function(xmlTextWriterPtr w, const cg_diff *d, unsigned scope, size_t i)
{
	cg_diff_value v;
	int nonzero = 0, rc = 0;
	for (size_t e = 0; e < d->nev && !nonzero; e++) {
		cg_diff_value_get(d, scope, CG_DIFF_SELF, i, e, &v);
		nonzero |= v.base || v.new_value;
		cg_diff_value_get(d, scope, CG_DIFF_INCLUSIVE, i, e, &v);
		nonzero |= v.base || v.new_value;
	}
	cg_diff_value_get(d, scope, CG_DIFF_CALLS, i, 0, &v);
	if (!nonzero && !v.base && !v.new_value)
		return 0;
	const cg_diff_function *f = &d->funcs[i];
	rc |= xmlTextWriterStartElement(w, X("function")) < 0;
	rc |= attr_int(w, "item", (long long)i);
	rc |= attr(w, "name", f->name);
	if (f->object)
		rc |= attr(w, "object", f->object);
	if (f->file)
		rc |= attr(w, "file", f->file);
	rc |= attr_int(w, "in-base", f->in_base);
	rc |= attr_int(w, "in-new", f->in_new);
	for (size_t e = 0; e < d->nev; e++) {
		cg_diff_value_get(d, scope, CG_DIFF_SELF, i, e, &v);
		rc |= value_elem(w, "self", (long)e, &v);
	}
	for (size_t e = 0; e < d->nev; e++) {
		cg_diff_value_get(d, scope, CG_DIFF_INCLUSIVE, i, e, &v);
		if (v.known)
			rc |= value_elem(w, "inclusive", (long)e, &v);
	}
	cg_diff_value_get(d, scope, CG_DIFF_CALLS, i, 0, &v);
	rc |= value_elem(w, "calls", -1, &v);
	rc |= xmlTextWriterEndElement(w) < 0;
	return rc ? -1 : 0;
}

static int write_arc(xmlTextWriterPtr w, const cg_diff *d, unsigned scope, size_t i)
{
	cg_diff_value v;
	int rc = 0;
	cg_diff_value_get(d, scope, CG_DIFF_ARC_CALLS, i, 0, &v);
	if (!v.base && !v.new_value)
		return 0;
	rc |= xmlTextWriterStartElement(w, X("arc")) < 0;
	rc |= attr_int(w, "item", (long long)i);
	rc |= attr_int(w, "caller", d->arcs[i].caller);
	rc |= attr_int(w, "callee", d->arcs[i].callee);
	rc |= value_elem(w, "calls", -1, &v);
	for (size_t e = 0; e < d->nev; e++) {
		cg_diff_value_get(d, scope, CG_DIFF_ARC_INCLUSIVE, i, e, &v);
		if (v.known)
			rc |= value_elem(w, "inclusive", (long)e, &v);
	}
	rc |= xmlTextWriterEndElement(w) < 0;
	return rc ? -1 : 0;
}

static int write_body(xmlTextWriterPtr w, const cg_diff *d)
{
	int rc = 0;
	size_t nflag = 0;
	for (size_t i = 0; i < d->nfindings; i++)
		nflag += diff_finding(d, i)->flagged;
	rc |= xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL) < 0;
	rc |= xmlTextWriterStartElement(w, X("cgdiff")) < 0;
	rc |= attr(w, "version", "1");
	rc |= attr_double(w, "z", d->z);
	rc |= attr_int(w, "flagged", (long long)nflag);
	rc |= attr(w, "result", nflag ? "fail" : "pass");
	for (size_t e = 0; e < d->nev; e++) {
		int checked = 0;
		for (size_t k = 0; k < d->nchecked_ev; k++)
			checked |= d->checked_ev[k] == e;
		rc |= xmlTextWriterStartElement(w, X("event")) < 0;
		rc |= attr_int(w, "index", (long long)e);
		rc |= attr(w, "name", d->events[e]->name);
		rc |= attr_double(w, "unit-seconds", d->events[e]->unit_seconds);
		rc |= attr(w, "kind", cg_diff_event_kind_name(d->kind[e]));
		rc |= attr_int(w, "checked", checked);
		rc |= xmlTextWriterEndElement(w) < 0;
	}
	for (unsigned r = 0; r < d->nrules; r++) {
		rc |= xmlTextWriterStartElement(w, X("rule")) < 0;
		rc |= attr_int(w, "index", r);
		rc |= attr(w, "text", d->rules[r].text);
		rc |= xmlTextWriterEndElement(w) < 0;
	}
	for (unsigned s = 0; s < d->nscopes && !rc; s++) {
		rc |= xmlTextWriterStartElement(w, X("scope")) < 0;
		rc |= attr_int(w, "index", s);
		rc |= attr(w, "name", d->scopes[s].name);
		for (size_t e = 0; e < d->nev; e++) {
			cg_diff_value v;
			cg_diff_value_get(d, s, CG_DIFF_TOTAL, 0, e, &v);
			rc |= value_elem(w, "total", (long)e, &v);
		}
		for (size_t i = 0; i < d->nfuncs && !rc; i++)
			rc |= write_function(w, d, s, i);
		for (size_t i = 0; i < d->narcs && !rc; i++)
			rc |= write_arc(w, d, s, i);
		rc |= xmlTextWriterEndElement(w) < 0;
	}
	for (size_t i = 0; i < d->nfindings && !rc; i++) {
		const cg_diff_finding *f = diff_finding(d, i);
		if (!f->flagged && !f->noise)
			continue;
		rc |= xmlTextWriterStartElement(w, X("finding")) < 0;
		rc |= attr_int(w, "rule", f->rule);
		rc |= attr_int(w, "scope", f->scope);
		rc |= attr(w, "metric", cg_diff_metric_name(f->metric));
		rc |= attr_int(w, "item", (long long)f->item);
		rc |= attr_int(w, "event", (long long)f->event);
		rc |= attr_int(w, "base", f->value.base);
		rc |= attr_int(w, "new", f->value.new_value);
		rc |= attr_int(w, "delta", f->value.delta);
		rc |= attr_double(w, "noise-bound", f->noise_bound);
		rc |= attr_int(w, "flagged", f->flagged);
		rc |= attr_int(w, "noise", f->noise);
		if (f->p_value >= 0) {
			char p[40];
			snprintf(p, sizeof p, "%.17g", f->p_value);
			rc |= attr(w, "p-value", p);
		}
		if (f->detectable > 0)
			rc |= attr_double(w, "detectable", f->detectable);
		rc |= xmlTextWriterWriteString(w, X(f->reason)) < 0;
		rc |= xmlTextWriterEndElement(w) < 0;
	}
	rc |= xmlTextWriterEndElement(w) < 0;
	rc |= xmlTextWriterEndDocument(w) < 0;
	return rc;
}

int cg_diff_write_xml(const cg_diff *d, FILE *out, cg_error *err)
{
	xmlOutputBufferPtr buf = xmlOutputBufferCreateFile(out, NULL);
	if (!buf)
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	xmlTextWriterPtr w = xmlNewTextWriter(buf);
	if (!w) {
		xmlOutputBufferClose(buf);
		return cg_error_set(err, CG_ENOMEM, "out of memory");
	}
	xmlTextWriterSetIndent(w, 1);
	xmlTextWriterSetIndentString(w, X(" "));
	int rc = write_body(w, d);
	xmlFreeTextWriter(w);   /* flushes and closes buf, not `out` */
	return rc ? cg_error_set(err, CG_EIO, "write error") : 0;
}
