#!/usr/bin/env bash
# The interpreter API through the toy Prolog (collector/examples/minilog):
# call/exit/redo ports counted where backtracking really happens, noprofile
# for interpreter predicates (flag and directive), file and line of
# registered functions, deterministic calls-mode files, and the reader.
. "${CG_TOP:-.}/tests/lib.sh"
ML=$CG_BUILD/examples/minilog
D=$CG_TOP/testdata/collector/minilog
paths() { sh "$CG_TOP/testdata/collector/paths.sh" "$@"; }
run() {  # run OUT [minilog args]
	local out=$1; shift
	CGCOLLECT_TIME=calls CGCOLLECT_OUTPUT="$WORK/$out" "$ML" "$@"
}

is "ports.pl: two solutions" "$(run ports.cgt "$D/ports.pl")" "q(_): 2 solutions"
is "ports.pl: calls and redos as counted by hand" "$(paths "$WORK/ports.cgt")" \
"q/1 calls=1 redos=2 rec=0 cost=1
q/1/p/1 calls=1 redos=3 rec=0 cost=1"
ok "registered functions carry their file and line" \
	grep -qx "func 1 name p/1 $D/ports.pl 5" "$WORK/ports.cgt"
is "the reader sees the interpreter's predicates" \
	"$("$CG_BUILD/tests/test_cgtree" --dump "$WORK/ports.cgt" | grep -E '^(func|arc)')" \
"func q/1 calls=1 self=1 incl=2
func p/1 calls=1 self=1 incl=1
arc q/1 -> p/1 count=1 incl=1"

is "queens: 6 queens have 4 solutions" "$(run q.cgt "$D/queens.pl")" "queens(6,_): 4 solutions"
paths "$WORK/q.cgt" >"$WORK/q.paths"
ok "queens: sel/3 is a context under place/3, redone by backtracking" \
	grep -qE '^queens/2/place/3/sel/3 calls=[1-9][0-9]* redos=[1-9]' "$WORK/q.paths"
ok "queens: recursion stays in its node" \
	grep -qE '^queens/2/place/3 calls=1 redos=[0-9]+ rec=[1-9]' "$WORK/q.paths"
run q2.cgt "$D/queens.pl" >/dev/null
cmp_files "queens: two runs give byte-identical files" "$WORK/q2.cgt" "$WORK/q.cgt"

run qn.cgt -n sel/3 "$D/queens.pl" >/dev/null
is "noprofile sel/3: it disappears and the other contexts keep their counts" \
	"$(paths "$WORK/qn.cgt")" "$(grep -v '/sel/3 ' "$WORK/q.paths")"
printf ':- noprofile(sel/3).\n' | cat - "$D/queens.pl" >"$WORK/qd.pl"
run qd.cgt "$WORK/qd.pl" >/dev/null
is "the noprofile directive does the same" "$(paths "$WORK/qd.cgt")" "$(paths "$WORK/qn.cgt")"
done_testing
