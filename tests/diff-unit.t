#!/bin/sh
# C unit tests of the diff library (matching, values, rules, writers).
exec "${CG_BUILD:-build}/tests/test_diff"
