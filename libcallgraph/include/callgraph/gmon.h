/* callgraph/gmon.h — (being written) */
#ifndef CALLGRAPH_GMON_H
#define CALLGRAPH_GMON_H
#include "callgraph/model.h"
#endif
