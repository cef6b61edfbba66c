#!/bin/sh
# The format registry from outside the library: a toy format registered by a
# program converts through the stock cg_read_file/cg_write_file.
exec "${CG_BUILD:-build}/tests/test_registry"
