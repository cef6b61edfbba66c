#!/usr/bin/env bash
# The collector's enter/exit hooks where the fast path must hand over to
# the repair paths (calls mode, deterministic): longjmp out of a leaf
# followed by sibling calls at the same stack depth, and out of a direct
# recursion.  The tree is read back with awk + nm
# (testdata/collector/paths.sh), independently of libcallgraph.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool nm awk
P=$CG_BUILD/tests/collector
paths() { sh "$CG_TOP/testdata/collector/paths.sh" "$@"; }

"$BIN/cgrun" --quiet --time=calls -o "$WORK/sib.cgt" "$P/jump-sibling" >/dev/null
is "longjmp out of a leaf: the next calls at its depth hang under the caller, every time; out of a recursion likewise" \
	"$(paths "$WORK/sib.cgt")" \
"main calls=1 redos=0 rec=0 cost=1
main/catcher calls=1 redos=0 rec=0 cost=1
main/catcher/thrower calls=4 redos=0 rec=0 cost=4
main/catcher/next calls=4 redos=0 rec=0 cost=4
main/catcher/other calls=4 redos=0 rec=0 cost=4
main/diver calls=1 redos=0 rec=0 cost=1
main/diver/dive calls=3 redos=0 rec=15 cost=18
main/diver/next calls=3 redos=0 rec=0 cost=3
main/next calls=1 redos=0 rec=0 cost=1"
ok "the file says the thread ended normally" grep -q " status ok" "$WORK/sib.cgt"
done_testing
