#!/bin/sh
# C unit tests of the typed model fields and the hashed lookups.
exec "${CG_BUILD:-build}/tests/test_typed_model"
