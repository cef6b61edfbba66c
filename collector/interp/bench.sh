#!/bin/sh
# make bench-interp: overhead per call of the interpreter bindings against
# each interpreter's own profiler, on fib(N) (calls: fib's entries).
#   plain      the interpreter alone
#   own        Lua: a counting hook in Lua (testdata/interp/count.lua);
#              Python: cProfile; SWI-Prolog: profile/2
#   cgrun      cgrun --time=calls
# Prints the ns per call each adds to the plain run and the ratio
# cgrun/own (below 1: we are cheaper).  Best of 3 runs each.  No limits.
set -e
B=${B:-build}
BIN=$B/bin
T=$(mktemp -d "${TMPDIR:-/tmp}/cgbench.XXXXXX")
trap 'rm -rf "$T"' EXIT
N=${BENCH_FIB:-25}
calls=$(awk -v n="$N" 'BEGIN { a = 1; b = 1; for (i = 2; i <= n; i++) { c = a + b + 1; a = b; b = c } print b }')
sed "s/fib(20)/fib($N)/" testdata/interp/fib.lua >"$T/fib.lua"
sed "s/fib(20)/fib($N)/" testdata/interp/fib.py >"$T/fib.py"
sed "s/fib(20, F)/fib($N, F)/" testdata/interp/fib.pl >"$T/fib.pl"
best() {  # best-of-3 wall time in ns of a command
	b=
	for i in 1 2 3; do
		s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N)
		t=$((e - s)); [ -z "$b" ] || [ "$t" -lt "$b" ] && b=$t
	done
	echo "$b"
}
row() {  # row LANG PLAIN OWN CGRUN
	awk -v l="$1" -v p="$2" -v o="$3" -v c="$4" -v n="$calls" 'BEGIN {
		own = (o - p) / n; cg = (c - p) / n
		printf "%-8s %9.0f %9.1f %9.1f %7.2f\n", l, p / 1e6, own, cg, (own > 0 ? cg / own : 0) }'
}
echo "fib($N): $calls calls of fib"
printf "%-8s %9s %9s %9s %7s\n" lang "plain ms" "own ns" "cgrun ns" ratio
row lua "$(best lua5.4 "$T/fib.lua")" "$(best lua5.4 testdata/interp/count.lua "$T/fib.lua")" \
	"$(best "$BIN/cgrun" --time=calls -o "$T/l.cgt" -- lua5.4 "$T/fib.lua")"
row python "$(best /usr/bin/python3 "$T/fib.py")" "$(best /usr/bin/python3 -m cProfile -o "$T/p.prof" "$T/fib.py")" \
	"$(best "$BIN/cgrun" --time=calls -o "$T/p.cgt" -- /usr/bin/python3 "$T/fib.py")"
sed 's/^:- initialization.*//' "$T/fib.pl" >"$T/fibg.pl"
row prolog "$(best swipl -g "fib($N, _)" -t halt "$T/fibg.pl")" \
	"$(best swipl -g "profile(fib($N, _), [top(0)])" -t halt "$T/fibg.pl")" \
	"$(best "$BIN/cgrun" --time=calls -o "$T/s.cgt" -- swipl -g "fib($N, _)" -t halt "$T/fibg.pl")"
