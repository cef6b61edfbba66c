#!/bin/sh
# The graph engine (libcallgraph/graph/graph.h): components and the orders
# gprof depends on, self loops, nested cycles, a 100,000-deep chain on a
# small stack, disconnected parts, propagation sums.
exec "${CG_BUILD:-build}/tests/test_graph"
