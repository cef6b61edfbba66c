/* callgraph/cgtree.h — (being written) */
#ifndef CALLGRAPH_CGTREE_H
#define CALLGRAPH_CGTREE_H
#include "callgraph/model.h"
#endif
