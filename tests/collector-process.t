#!/usr/bin/env bash
# Threads and processes: one tree per thread (parts when read), fork
# (the child writes FILE.PID holding only its own calls), time modes.
. "${CG_TOP:-.}/tests/lib.sh"
P=$CG_BUILD/tests/collector
paths() { sh "$CG_TOP/testdata/collector/paths.sh" "$@"; }

"$BIN/cgrun" --time=calls -o "$WORK/th.cgt" "$P/threads" >/dev/null 2>&1
is "threads: three thread blocks" "$(grep -c '^thread ' "$WORK/th.cgt")" 3
is "thread 0 (main)" "$(paths "$WORK/th.cgt" 0)" \
"main calls=1 redos=0 rec=0 cost=1
main/main_only calls=1 redos=0 rec=0 cost=1
main/main_only/tick calls=1 redos=0 rec=0 cost=1"
is "thread 1 (first worker)" "$(paths "$WORK/th.cgt" 1)" \
"worker calls=1 redos=0 rec=0 cost=1
worker/tick calls=3 redos=0 rec=0 cost=3"
is "thread 2 (second worker)" "$(paths "$WORK/th.cgt" 2)" \
"worker calls=1 redos=0 rec=0 cost=1
worker/tick calls=7 redos=0 rec=0 cost=7"
is "threads: the reader makes one part per thread" \
	"$("$CG_BUILD/tests/test_cgtree" --dump "$WORK/th.cgt" | grep -E '^(part|func tick)')" \
"part thread 0
func tick calls=1 self=1 incl=1
part thread 1
func tick calls=3 self=3 incl=3
part thread 2
func tick calls=7 self=7 incl=7"

mkdir "$WORK/fork"
"$BIN/cgrun" --time=calls -o "$WORK/fork/f.cgt" "$P/forks" >/dev/null 2>"$WORK/fork.err"
child=$(ls "$WORK/fork" | grep -E '^f\.cgt\.[0-9]+$')
ok "fork: the child wrote its own file f.cgt.PID" test -n "$child"
is "fork: the parent's tree" "$(paths "$WORK/fork/f.cgt")" \
"main calls=1 redos=0 rec=0 cost=1
main/before calls=2 redos=0 rec=0 cost=2
main/spawn calls=1 redos=0 rec=0 cost=1
main/in_parent calls=1 redos=0 rec=0 cost=1"
is "fork: the child's tree holds only its calls, under the context of the fork" \
	"$(paths "$WORK/fork/$child")" \
"main calls=0 redos=0 rec=0 cost=0
main/spawn calls=0 redos=0 rec=0 cost=0
main/spawn/in_child calls=4 redos=0 rec=0 cost=4"
ok "fork: the child's file says so" grep -qx "forked 1" "$WORK/fork/$child"
ok "fork: cgrun reports the child's profile" grep -q "profile of forked child written to .*$child" "$WORK/fork.err"

# Time modes: the event and its unit are declared; the tree is the same.
"$BIN/cgrun" --time=calls -o "$WORK/c.cgt" "$P/calls" >/dev/null 2>&1
for mode in cpu wall; do
	"$BIN/cgrun" --time=$mode --hz=250 -o "$WORK/$mode.cgt" "$P/calls" >/dev/null 2>&1
	ok "--time=$mode declares its event with a 4 ms unit" \
		grep -qx "event $mode 4000000 [^ ]*" "$WORK/$mode.cgt"
	is "--time=$mode: same call counts" \
		"$(paths "$WORK/$mode.cgt" | sed 's/ cost=.*//')" \
		"$(paths "$WORK/c.cgt" | sed 's/ cost=.*//')"
done
ok "cpu mode reads back" "$CG_BUILD/tests/test_cgtree" --dump "$WORK/cpu.cgt"

done_testing
