#!/bin/sh
# C unit tests of the model.
exec "${CG_BUILD:-build}/tests/test_model"
