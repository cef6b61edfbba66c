#!/usr/bin/env bash
# The Lua 5.4 binding under cgrun: fib(20) counts 21,891 entries of fib;
# a real script's counts equal a Lua counting hook's (testdata/interp/
# count.lua) exactly, C functions included; coroutines are exits and redos;
# runs are deterministic; --noprofile hides pcall by name; LUA_INIT chains.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool lua5.4
D=$CG_TOP/testdata/interp
E() { sh "$D/entries.sh" "$@"; }
paths() { sh "$CG_TOP/testdata/collector/paths.sh" "$@"; }

is "fib.lua prints fib(20)" "$("$BIN/cgrun" --time=calls -o "$WORK/fib.cgt" -- lua5.4 "$D/fib.lua" 2>/dev/null)" 6765
is "fib.lua: fib entered 21,891 times (1 call + 21,890 recursive)" \
	"$(paths "$WORK/fib.cgt" | grep '/fib@')" \
	"main@fib.lua:0/fib@fib.lua:2 calls=1 redos=0 rec=21890 cost=21891"
ok "functions carry the script's file and line" \
	grep -qx "func [0-9]* name fib@fib.lua:2 $D/fib.lua 2" "$WORK/fib.cgt"

"$BIN/cgrun" --time=calls -o "$WORK/real.cgt" -- lua5.4 "$D/real.lua" >"$WORK/real.out" 2>/dev/null
lua5.4 "$D/count.lua" "$D/real.lua" 2>"$WORK/ref.txt" >"$WORK/ref.out"
cmp_files "real.lua: same output under cgrun" "$WORK/real.out" "$WORK/ref.out"
ok "real.lua: the counting hook saw Lua and C functions" grep -q '^C:pcall 30$' "$WORK/ref.txt"
is "real.lua: entries per function equal the Lua counting hook's" \
	"$(E "$WORK/real.cgt")" "$(sort "$WORK/ref.txt")"
ok "real.lua: a coroutine's resumes are redos of its body, under the first resume" \
	grep -q '/count@real.lua:21/resume/?@real.lua:14 calls=1 redos=24 ' <(paths "$WORK/real.cgt")
ok "real.lua: errors caught by pcall leave the tree in step" \
	grep -q '^main@real.lua:0/pcall/?@real.lua:45/error calls=10 ' <(paths "$WORK/real.cgt")
"$BIN/cgrun" --time=calls -o "$WORK/real2.cgt" -- lua5.4 "$D/real.lua" >/dev/null 2>&1
cmp_files "real.lua: two runs give byte-identical files" "$WORK/real2.cgt" "$WORK/real.cgt"

"$BIN/cgrun" --time=calls --noprofile=pcall -o "$WORK/np.cgt" -- lua5.4 "$D/real.lua" >/dev/null 2>&1
is "--noprofile=pcall: pcall's callees hang under its caller" \
	"$(paths "$WORK/np.cgt" | grep 'real.lua:45' | head -1)" \
	"main@real.lua:0/?@real.lua:45 calls=30 redos=0 rec=150 cost=180"
paths "$WORK/np.cgt" >"$WORK/np.paths"
not_ok_cmd "--noprofile=pcall: no pcall node" grep -q '/pcall ' "$WORK/np.paths"

is "--lang=lua and a user LUA_INIT still run" \
	"$(LUA_INIT='print("init ran")' "$BIN/cgrun" --lang=lua --time=calls -o "$WORK/i.cgt" -- \
	   lua5.4 "$D/fib.lua" 2>/dev/null)" "init ran
6765"
done_testing
