#!/bin/sh
# Allocation-failure injection: every allocation of a job fails in turn.
exec "${CG_BUILD:-build}/tests/test_oom"
