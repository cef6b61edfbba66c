#!/usr/bin/env bash
# A real program, differentially: the toy Prolog (its C functions, not its
# predicates) built twice from the same source, once with -pg for the real
# gprof and once with -finstrument-functions for our collector, running the
# same workload.  Every function's number of calls (gprof: the "called"
# column of its call-graph entry, recursive calls included) must agree with
# what our collector's tree gives.  Then the profile goes to Callgrind and
# must load in the real callgrind_annotate.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool gprof callgrind_annotate cc
cd "$WORK" || exit 1
src=$CG_TOP/collector/examples/minilog.c
flags="-std=c11 -O0 -fno-inline -g -D_GNU_SOURCE -I$CG_TOP/collector"
ok "build with -pg" cc $flags -pg -o ml-pg "$src" "$CG_BUILD/lib/libcgcollect.a" -pthread
ok "build with -finstrument-functions" \
	cc $flags -finstrument-functions -o ml-fi "$src" "$CG_BUILD/lib/libcgcollect.a" -pthread
pl=$CG_TOP/testdata/collector/minilog/queens.pl
ok "run under gprof" sh -c "./ml-pg '$pl' >pg.out && test -s gmon.out"
ok "run under the collector" sh -c "CGCOLLECT_TIME=calls CGCOLLECT_OUTPUT=ml.cgt ./ml-fi '$pl' >fi.out"
cmp_files "both runs computed the same" fi.out pg.out

gprof -b -q ml-pg gmon.out | awk '/^\[[0-9]+\]/ && !/as a whole/ {
	n = split($5, a, "+"); t = 0; for (j = 1; j <= n; j++) t += a[j]; print $6, t }' |
	LC_ALL=C sort >gprof.calls
"$CG_BUILD/tests/test_cgtree" --dump ml.cgt | awk '/^func/ && $2 !~ /\// {
	sub("calls=", "", $3); print $2, $3 }' | LC_ALL=C sort >ours.calls
ok "gprof lists the interpreter's functions" test "$(wc -l <gprof.calls)" -ge 20
is "every function gprof counted has the same number of calls in our tree" \
	"$(LC_ALL=C join -o 0,1.2,2.2 -e MISSING -a1 gprof.calls ours.calls | awk '$2 != $3')" ""
ok "to Callgrind" "$BIN/cgconvert" -t callgrind -o ml.callgrind ml.cgt
ok "callgrind_annotate loads it" sh -c \
	"callgrind_annotate --inclusive=yes ml.callgrind | grep -q 'minilog.c:solve '"
done_testing
