#!/usr/bin/env bash
# The Python 3 binding under cgrun (Debian's /usr/bin/python3, whatever
# python3 is first on PATH): fib(20) counts 21,891 entries of fib; a real
# script's calls per function and per caller equal cProfile's, run live on
# the same script, exactly (generators' resumes included); the profile
# starts at the main module; runs are deterministic.
. "${CG_TOP:-.}/tests/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "Bail out! $PY is missing (scripts/install-deps.sh installs it)"; exit 1; }
D=$CG_TOP/testdata/interp
paths() { sh "$CG_TOP/testdata/collector/paths.sh" "$@"; }

is "fib.py prints fib(20)" "$("$BIN/cgrun" --time=calls -o "$WORK/fib.cgt" -- "$PY" "$D/fib.py" 2>/dev/null)" 6765
is "fib.py: the tree is the script's, fib entered 21,891 times" "$(paths "$WORK/fib.cgt")" \
"__main__.<module> calls=1 redos=0 rec=0 cost=1
__main__.<module>/__main__.fib calls=1 redos=0 rec=21890 cost=21891
__main__.<module>/builtins.print calls=1 redos=0 rec=0 cost=1"
ok "functions carry the script's file and line" \
	grep -qx "func [0-9]* name __main__.fib $D/fib.py 2" "$WORK/fib.cgt"

"$BIN/cgrun" --time=calls -o "$WORK/real.cgt" -- "$PY" "$D/real.py" >"$WORK/real.out" 2>/dev/null
"$PY" -m cProfile -o "$WORK/real.prof" "$D/real.py" >"$WORK/ref.out"
cmp_files "real.py: same output under cgrun" "$WORK/real.out" "$WORK/ref.out"
"$PY" "$D/pyprof.py" cprofile "$D" "$WORK/real.prof" >"$WORK/ref.txt"
ok "real.py: cProfile saw generators, built-ins and recursion" \
	grep -q '^arc .*real.py:41:depth -> builtins.isinstance 12$' "$WORK/ref.txt"
is "real.py: calls per function and per caller equal cProfile's ncalls" \
	"$("$PY" "$D/pyprof.py" cgtree "$D" "$WORK/real.cgt")" "$(cat "$WORK/ref.txt")"
ok "real.py: a generator's resumes are redos of its node" \
	grep -q '^__main__.<module>/__main__.read_items calls=1 redos=6 ' <(paths "$WORK/real.cgt")
"$BIN/cgrun" --time=calls -o "$WORK/real2.cgt" -- "$PY" "$D/real.py" >/dev/null 2>&1
cmp_files "real.py: two runs give byte-identical files" "$WORK/real2.cgt" "$WORK/real.cgt"

"$BIN/cgrun" --time=calls --noprofile=builtins.sorted -o "$WORK/np.cgt" -- "$PY" "$D/real.py" >/dev/null 2>&1
ok "--noprofile=builtins.sorted: the key lambda hangs under Report.__init__" \
	grep -q '^__main__.<module>/__main__.Report.__init__/__main__.Report.__init__.<locals>.<lambda> calls=6 ' \
	<(paths "$WORK/np.cgt")
done_testing
