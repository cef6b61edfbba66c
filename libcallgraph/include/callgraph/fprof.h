/* callgraph/fprof.h — (being written) */
#ifndef CALLGRAPH_FPROF_H
#define CALLGRAPH_FPROF_H
#include "callgraph/model.h"
#endif
