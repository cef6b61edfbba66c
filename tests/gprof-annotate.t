#!/bin/bash
# Differential test of the annotated source listing (gprof -A and its
# -x -m -t -y -z -I options): the library's writer against GNU gprof 2.40
# on programs built here with -g, including a moved source file.
. "$CG_TOP/tests/lib.sh"
require_tool gcc gprof
SRC=$CG_TOP/testdata/gprof
DRV=$CG_BUILD/tests/test_gprof_annotate
cd "$WORK" || exit 1

ok "listing of a hand-built profile (driver self test)" "$DRV"

cp "$SRC"/cycles.c "$SRC"/statics_*.c .
ok "build and run the cycle example" sh -c 'gcc -pg -O0 -fno-inline -g -o cyc cycles.c && ./cyc && mv gmon.out cyc.gmon'
ok "build and run the same-name statics example" sh -c \
	'gcc -pg -O0 -fno-inline -g -o st statics_main.c statics_a.c statics_b.c && ./st && mv gmon.out st.gmon'

same() {  # exe gmon options (the same for both)...
	local exe=$1 gm=$2; shift 2
	gprof -A "$@" "$exe" "$gm" > want.txt 2> want.err
	"$DRV" "$exe" "$gm" "$@" > got.txt 2> got.err
	if cmp -s want.txt got.txt && cmp -s want.err got.err; then
		_tap_result 0 "-A $* on $exe"
	else
		_tap_result 1 "-A $* on $exe"
		diff want.txt got.txt | head -10 | sed 's/^/# /'
		diff want.err got.err | head -5 | sed 's/^/# /'
	fi
}
for o in "" "-x" "-z" "-m 90" "-t 3" "-t 0" "-x -m 85 -t 2"; do
	# shellcheck disable=SC2086
	same cyc cyc.gmon $o
	# shellcheck disable=SC2086
	same st st.gmon $o
done
mkdir moved && mv statics_a.c moved/
same st st.gmon
same st st.gmon -I moved
same st st.gmon -I /nonexistent:moved

mkdir y1 y2
(cd y1 && "$DRV" ../st ../st.gmon -y -I ../moved -I .. > out 2> err)
(cd y2 && gprof -A -y -I../moved -I.. ../st ../st.gmon > out 2> err)
ok "-A -y writes the same -ann files" diff -r y1 y2
ok "-A -y wrote them" test -s y1/statics_main.c-ann

done_testing
