#!/bin/bash
# Differential test of the suggested function order (gprof -r): the
# library's writer against GNU gprof 2.40 on programs built and run here,
# alone, after the call graph, and with arc specifications (-k), whose
# pseudo arcs gprof feeds into the ordering too.
. "$CG_TOP/tests/lib.sh"
require_tool gcc gprof python3
SRC=$CG_TOP/testdata/gprof
DRV=$CG_BUILD/tests/test_gprof_annotate
cd "$WORK" || exit 1

ok "build and run the cycle example" sh -c \
	"gcc -pg -O0 -fno-inline -g -o cyc '$SRC/cycles.c' && ./cyc && mv gmon.out cyc.gmon"
ok "build and run a 600-function program" sh -c \
	"python3 '$SRC/gen-cycles.py' 600 3 > gen.c && gcc -pg -O0 -fno-inline -o gen gen.c && ./gen && mv gmon.out gen.gmon"

same() {  # exe gmon options...
	local exe=$1 gm=$2; shift 2
	gprof -r "$@" "$exe" "$gm" > want.txt 2> want.err
	"$DRV" "$exe" "$gm" -r "$@" > got.txt 2> got.err
	if cmp -s want.txt got.txt; then
		_tap_result 0 "-r $* on $exe"
	else
		_tap_result 1 "-r $* on $exe"
		diff want.txt got.txt | head -10 | sed 's/^/# /'
	fi
}
for o in "" "-q -b" "-k main/" "-k /burn" "-k cycles.c/ -k ping/" "-k main/burn -k main/cyc_a -q -b"; do
	# shellcheck disable=SC2086
	same cyc cyc.gmon $o
done
for o in "" "-q -b" "-k f1/ -k f2/ -k f3/" "-k f10/f20 -k /f5 -q -b"; do
	# shellcheck disable=SC2086
	same gen gen.gmon $o
done
done_testing
