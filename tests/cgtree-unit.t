#!/bin/sh
# The cgtree reader on hand-written files (tests/test_cgtree.c): exact arc
# costs from the tree, recursion links, threads as parts, malformed input
# named by line, and `at` records becoming per-address self costs.
exec "${CG_BUILD:-build}/tests/test_cgtree"
