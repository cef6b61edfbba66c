/* callgraph/diff.h — (being written) */
#ifndef CALLGRAPH_DIFF_H
#define CALLGRAPH_DIFF_H
#include "callgraph/model.h"
#endif
