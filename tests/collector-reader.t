#!/usr/bin/env bash
# The cgtree reader on real collector output: symbols resolved offline from
# the recorded executable (BFD), arcs with exact inclusive costs from the
# tree, and the easy/hard example: the tree charges work() to hard() alone
# where gprof's call-count proportion would split it 50/50.  Then through
# cgconvert to Callgrind, checked with the real callgrind_annotate.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool callgrind_annotate
P=$CG_BUILD/tests/collector
dump() { "$CG_BUILD/tests/test_cgtree" --dump "$@"; }

"$BIN/cgrun" --time=calls -o "$WORK/eh.cgt" "$P/easyhard" >/dev/null 2>&1
dump "$WORK/eh.cgt" >"$WORK/eh.txt"
is "easy/hard: functions named from the executable, exact self and inclusive" \
	"$(grep '^func' "$WORK/eh.txt" | LC_ALL=C sort)" \
"func easy calls=1 self=1 incl=3
func hard calls=1 self=1 incl=1001
func main calls=1 self=1 incl=1005
func step calls=1000 self=1000 incl=1000
func work calls=2 self=2 incl=1002"
is "easy/hard: arcs carry the true cost of each call (not 50/50)" \
	"$(grep '^arc' "$WORK/eh.txt" | LC_ALL=C sort)" \
"arc easy -> work count=1 incl=2
arc hard -> work count=1 incl=1000
arc main -> easy count=1 incl=3
arc main -> hard count=1 incl=1001
arc work -> step count=1000 incl=1000"

# The gprof call graph: gprof's proportional guess gives easy and hard the
# same share of work (equal call counts); the tree's exact arcs do not.
pct() {  # pct EXACT: "NAME %time" of the primary lines of easy and hard
	"$CG_BUILD/tests/test_cgtree" --gprof "$1" "$WORK/eh.cgt" |
		awk '/^\[[0-9]+\]/ && ($NF ~ /^\[/) && ($(NF-1) == "easy" || $(NF-1) == "hard") { print $(NF-1), $2 }' |
		LC_ALL=C sort
}
is "gprof report, proportional: easy and hard split work 50/50" "$(pct 0)" \
"easy 50.0
hard 50.0"
is "gprof report, exact from the tree: easy ~0%, hard ~100%" "$(pct 1)" \
"easy 0.3
hard 99.6"

# The same through cgconvert, as a user gets it: the tree's attribution by
# default, gprof's estimate on request.
cpct() {  # cpct [OPTION]: "NAME %time" of easy's and hard's primary lines
	"$BIN/cgconvert" -t graph "$@" "$WORK/eh.cgt" |
		awk '/^\[[0-9]+\]/ && ($NF ~ /^\[/) && ($(NF-1) == "easy" || $(NF-1) == "hard") { print $(NF-1), $2 }' |
		LC_ALL=C sort
}
is "cgconvert -t graph: the tree's attribution by default" "$(cpct)" \
"easy 0.3
hard 99.6"
is "cgconvert -t graph --gprof-estimate: gprof's 50/50" "$(cpct --gprof-estimate)" \
"easy 50.0
hard 50.0"

"$BIN/cgrun" --time=calls -o "$WORK/recur.cgt" "$P/recur" >/dev/null 2>&1
dump "$WORK/recur.cgt" >"$WORK/recur.txt"
is "recursion: calls include folded entries, inclusive never double counts" \
	"$(grep -E '^(func|arc)' "$WORK/recur.txt" | grep -E 'fact|is_|main ->' | LC_ALL=C sort)" \
"arc fact -> fact count=4 incl=0
arc is_even -> is_odd count=2 incl=4
arc is_odd -> is_even count=2 incl=0
arc main -> fact count=1 incl=5
arc main -> is_even count=1 incl=5
arc main -> ra count=1 incl=7
func fact calls=5 self=5 incl=5
func is_even calls=3 self=3 incl=5
func is_odd calls=2 self=2 incl=4"

# A shared library built with -finstrument-functions: its functions are
# recorded against the library and named from its own symbol table.
cat >"$WORK/libshx.c" <<'C'
static volatile int s;
__attribute__((noinline)) static void inner(void) { s++; }
void shx_entry(int n) { for (int i = 0; i < n; i++) inner(); }
C
printf 'void shx_entry(int n);\nint main(void) { shx_entry(4); return 0; }\n' >"$WORK/usesh.c"
cc -O1 -g -fPIC -shared -finstrument-functions -o "$WORK/libshx.so" "$WORK/libshx.c" &&
cc -O1 -g -finstrument-functions -o "$WORK/usesh" "$WORK/usesh.c" -L"$WORK" -lshx -Wl,-rpath,"$WORK"
"$BIN/cgrun" --time=calls -o "$WORK/sh.cgt" "$WORK/usesh" >/dev/null 2>&1
ok "shared library: its functions are recorded against it" \
	grep -q "^func 1 addr [1-9][0-9]* 0x" "$WORK/sh.cgt"
is "shared library: static and exported functions named offline" \
	"$(dump "$WORK/sh.cgt" | grep '^arc')" \
"arc main -> shx_entry count=1 incl=5
arc shx_entry -> inner count=4 incl=4"

ok "cgconvert detects cgtree and writes Callgrind" \
	"$BIN/cgconvert" -t callgrind -o "$WORK/eh.callgrind" "$WORK/eh.cgt"
callgrind_annotate --inclusive=yes "$WORK/eh.callgrind" >"$WORK/eh.ann" 2>&1
is "callgrind_annotate: hard includes work's cost, easy does not" \
	"$(grep -E ':(easy|hard|work) \[' "$WORK/eh.ann" | sed -E 's/ *\(.*%\) +/ /; s/ \[.*//; s|[^ ]*:||; s/^ *//')" \
"1,002 work
1,001 hard
3 easy"
is "callgrind_annotate: the call from easy costs 2, the call from hard 1,000" \
	"$(grep -E '=> .*:work \(1x\)' "$WORK/eh.ann" | sed -E 's/^ *([0-9,]+) .*/\1/')" \
"2
1,000"

exit_status "a truncated file is bad input (exit 3)" 3 \
	"$BIN/cgconvert" -t callgrind -o "$WORK/x" /dev/null
head -c 300 "$WORK/eh.cgt" >"$WORK/trunc.cgt"
err=$("$BIN/cgconvert" -f cgtree -t callgrind -o "$WORK/t.out" "$WORK/trunc.cgt" 2>&1)
case $err in *trunc.cgt:*truncated*) r=0;; *) r=1; diag "$err";; esac
_tap_result $r "a truncated cgtree gives a one-line error naming the file and line"
ok "no partial output file after an error" test ! -e "$WORK/t.out"

done_testing
