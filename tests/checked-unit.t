#!/bin/sh
# C unit tests of checked arithmetic (core/checked.h), the growable-array
# helper (core/array.h) and the model sums built on them.
exec "${CG_BUILD:-build}/tests/test_checked"
