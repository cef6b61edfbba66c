/*
 * callgraph.h — the public API of libcallgraph.
 *
 * libcallgraph reads profiles (gmon.out + executable, Callgrind, XML, Erlang
 * fprof traces and analyses, cgtree from our collector) into one model,
 * applies transforms (transparent functions, gprof's cycle collapsing and
 * propagation) and writes reports and formats (gprof text, Callgrind, XML,
 * fprof analysis, folded stacks, Graphviz dot, diffs).
 *
 * This is the only header a user includes; the module headers below are
 * installed under include/callgraph/.
 */
#ifndef CALLGRAPH_H
#define CALLGRAPH_H

#include "callgraph/common.h"
#include "callgraph/model.h"
#include "callgraph/gmon.h"
#include "callgraph/gprof.h"
#include "callgraph/transform.h"
#include "callgraph/callgrind.h"
#include "callgraph/xml.h"
#include "callgraph/fprof.h"
#include "callgraph/cgtree.h"
#include "callgraph/formats.h"
#include "callgraph/diff.h"

#endif
