#!/bin/sh
# C unit tests of the fprof term layer (tests/test_fprof_term.c) with a
# 1 MB stack: terms 200,000 deep must decode, parse, print and compare
# without recursing on their depth.
ulimit -s 1024 || exit 1
exec "${CG_BUILD:-build}/tests/test_fprof_term"
