#!/bin/sh
# C unit tests of positions in the model (issue 10).
exec "${CG_BUILD:-build}/tests/test_positions"
