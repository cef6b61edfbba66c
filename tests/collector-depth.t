#!/usr/bin/env bash
# The shadow stack's capacity (calls mode, deterministic): a thread holds
# 2^20 frames, the bottom one a sentinel, so worker() plus 2^20 - 2 nested
# deep() calls fit exactly and one more is an overflow: the thread stops
# collecting, keeps the tree it had, the file says "status overflow" and
# the program runs on unaffected.  The enter hook finds the end from the
# address of the next free frame (stacks end on a 2^25-byte boundary),
# so this pins that test to the exact frame.  The tree is read back with
# awk + nm (testdata/collector/paths.sh), independently of libcallgraph.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool nm awk
P=$CG_BUILD/tests/collector
paths() { sh "$CG_TOP/testdata/collector/paths.sh" "$@"; }
fits=$(( (1 << 20) - 2 ))

out=$("$BIN/cgrun" --quiet --time=calls -o "$WORK/fits.cgt" "$P/deep" $fits)
is "a full shadow stack: the program is unaffected" "$out" $fits
is "a full shadow stack: every call counted" "$(paths "$WORK/fits.cgt" 1)" \
"worker calls=1 redos=0 rec=0 cost=1
worker/deep calls=1 redos=0 rec=$((fits - 1)) cost=$fits"
like "a full shadow stack: the thread ended normally" "$(grep '^endthread 1 ' "$WORK/fits.cgt")" ' status ok$'

over=$((fits + 1))
out=$("$BIN/cgrun" --quiet --time=calls -o "$WORK/over.cgt" "$P/deep" $over)
is "one frame more: the program is unaffected" "$out" $over
is "one frame more: the tree up to the overflow, the call that did not fit left out" \
	"$(paths "$WORK/over.cgt" 1)" \
"worker calls=1 redos=0 rec=0 cost=1
worker/deep calls=1 redos=0 rec=$((fits - 1)) cost=$fits"
like "one frame more: the file says the thread overflowed" "$(grep '^endthread 1 ' "$WORK/over.cgt")" ' status overflow$'
like "one frame more: the main thread is unaffected" "$(grep '^endthread 0 ' "$WORK/over.cgt")" ' status ok$'
is "the file ends with 'end'" "$(tail -1 "$WORK/over.cgt")" "end"
done_testing
