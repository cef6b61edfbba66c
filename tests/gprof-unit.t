#!/bin/sh
# C unit tests of the gprof analysis and report writer.
exec "${CG_BUILD:-build}/tests/test_gprof"
