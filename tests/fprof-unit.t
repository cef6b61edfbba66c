#!/bin/sh
# C unit tests of the fprof trace reader, profile algorithm and term printer.
exec "${CG_BUILD:-build}/tests/test_fprof"
