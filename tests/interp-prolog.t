#!/usr/bin/env bash
# The SWI-Prolog binding under cgrun: fib(20) counts 21,891 entries of
# fib/2; 10 facts enumerated by forall/2 are 1 call and 9 redos; on a real
# program every predicate's calls, redos and recursive entries equal SWI's
# own profiler (profile/2, ports(true), profile_data/1) run live, exactly.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool swipl
D=$CG_TOP/testdata/interp
E() { sh "$D/entries.sh" "$@"; }
paths() { sh "$CG_TOP/testdata/collector/paths.sh" "$@"; }
ref() {  # ref SCRIPT: SWI's own counts for main/0 of SCRIPT
	swipl -g "swiprof(main, '$1')" -t halt "$D/swiprof.pl" "$1" 2>&1 >/dev/null
}

is "fib.pl prints fib(20)" "$("$BIN/cgrun" --time=calls -o "$WORK/fib.cgt" -- swipl "$D/fib.pl" 2>/dev/null)" 6765
is "fib.pl: fib/2 entered 21,891 times (1 call + 21,890 recursive)" \
	"$(E "$WORK/fib.cgt" prolog "$D/fib.pl")" "fib/2 1 0 21890"
ok "predicates carry their file and line" \
	grep -qx "func [0-9]* name fib/2 $D/fib.pl 2" "$WORK/fib.cgt"
ok "system predicates are module-qualified" grep -q '^func [0-9]* name system:is/2 ' "$WORK/fib.cgt"

"$BIN/cgrun" --time=calls -o "$WORK/facts.cgt" -- swipl -g main -t halt "$D/facts.pl" 2>/dev/null
is "facts.pl: forall/2 over 10 facts is 1 call and 9 redos of fact/1" \
	"$(E "$WORK/facts.cgt" prolog "$D/facts.pl")" "fact/1 1 9 0
main/0 1 0 0"
is "facts.pl: the same as SWI's profiler" "$(E "$WORK/facts.cgt" prolog "$D/facts.pl")" "$(ref "$D/facts.pl")"

"$BIN/cgrun" --time=calls -o "$WORK/real.cgt" -- swipl -g main -t halt "$D/real.pl" >"$WORK/real.out" 2>/dev/null
ok "real.pl ran" grep -qx 'queens(6): 4 solutions' "$WORK/real.out"
ref "$D/real.pl" >"$WORK/ref.txt"
ok "real.pl: SWI's profiler counted redos and recursion" grep -qx 'select_/3 1957 0 1956' "$WORK/ref.txt"
is "real.pl: calls, redos and recursive entries equal SWI's profile_data/1" \
	"$(E "$WORK/real.cgt" prolog "$D/real.pl")" "$(cat "$WORK/ref.txt")"

"$BIN/cgrun" --time=calls --noprofile=safe/1 -o "$WORK/np.cgt" -- swipl -g main -t halt "$D/real.pl" >/dev/null 2>&1
paths "$WORK/np.cgt" >"$WORK/np.paths"
not_ok_cmd "--noprofile=safe/1: no safe/1 node" grep -q '/safe/1 ' "$WORK/np.paths"
ok "--noprofile=safe/1: no_attack/3 hangs under queens/2" grep -q '/queens/2/no_attack/3 ' "$WORK/np.paths"
done_testing
