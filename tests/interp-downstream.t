#!/usr/bin/env bash
# Interpreted profiles go through the existing tools unchanged: gprof text
# (fib 1+21890 in each language), Callgrind with the script's file and
# line, XML valid against the schema, folded stacks, and cgdiff in calls
# mode as a CI gate (the same script passes, one more call fails).
. "${CG_TOP:-.}/tests/lib.sh"
require_tool lua5.4 swipl xmllint
D=$CG_TOP/testdata/interp
run() { local out=$1; shift; "$BIN/cgrun" --time=calls -o "$WORK/$out" -- "$@" >/dev/null 2>&1; }
run lua.cgt lua5.4 "$D/fib.lua"
run py.cgt /usr/bin/python3 "$D/fib.py"
run pl.cgt swipl "$D/fib.pl"

for l in lua:fib@fib.lua:2 py:__main__.fib pl:fib/2; do
	f=${l#*:}; l=${l%%:*}
	ok "$l: gprof text shows $f called 1+21890 times" \
		grep -qE "^\[[0-9]+\] +[0-9.]+ +[0-9.]+ +[0-9.]+ +1\+21890 +$f \[" \
		<("$BIN/cgconvert" -t gprof "$WORK/$l.cgt")
	"$BIN/cgconvert" -t xml "$WORK/$l.cgt" -o "$WORK/$l.xml"
	ok "$l: XML is valid" xmllint --noout --relaxng "$CG_TOP/docs/xml-schema.rng" "$WORK/$l.xml"
done
"$BIN/cgconvert" -t callgrind "$WORK/py.cgt" -o "$WORK/py.callgrind"
ok "Callgrind names the script as the file of its functions" grep -qx "fl=(1) $D/fib.py" "$WORK/py.callgrind"
"$BIN/cgconvert" -t callgrind "$WORK/lua.cgt" -o "$WORK/lua.callgrind"
ok "Callgrind puts fib's cost (21,891 entries) on its line 2" grep -qx '2 21891' "$WORK/lua.callgrind"
is "folded stacks of the Lua profile" "$("$BIN/cgconvert" -t folded "$WORK/lua.cgt" | sort)" \
"main@fib.lua:0 1
main@fib.lua:0;fib@fib.lua:2 21891
main@fib.lua:0;print 1"

run lua2.cgt lua5.4 "$D/fib.lua"
exit_status "cgdiff: the same script passes the calls gate" 0 "$BIN/cgdiff" --fail 'calls>0' "$WORK/lua.cgt" "$WORK/lua2.cgt"
sed 's/fib(20)/fib(21)/' "$D/fib.lua" >"$WORK/fib.lua"
run lua3.cgt lua5.4 "$WORK/fib.lua"
sed -i "s|$WORK/fib.lua|$D/fib.lua|g" "$WORK/lua3.cgt"
exit_status "cgdiff: more calls of fib fail the gate" 1 "$BIN/cgdiff" --fail 'calls>0' "$WORK/lua.cgt" "$WORK/lua3.cgt"
done_testing
