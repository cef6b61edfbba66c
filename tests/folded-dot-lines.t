#!/usr/bin/env bash
# cgconvert --lines for folded stacks and dot (issue 10, item 6), on real
# profiles of programs built here: valgrind --tool=callgrind (line and
# instr positions, inlined header code) and gmon.out with its executable.
# Folded: one frame per (function, line) holding exactly the input's self
# cost at that line (read from valgrind's own file), and per function the
# sums of the output without --lines.  Dot: the graph renders, nodes list
# their hot lines and edges their call-site lines (gmon: gprof -l's
# lines; call sites where addr2line puts the call instruction).  Inputs
# without positions come out as without --lines.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool valgrind gcc gprof python3 dot
CHECK=$CG_TOP/testdata/gmon/lines_check.py
cd "$WORK" || exit 1
cp "$CG_TOP/testdata/convert/vgprog.c" "$CG_TOP/testdata/convert/vgprog_inline.h" \
	"$CG_TOP/testdata/gmon/src/lines/hot.c" .
build() { "$@" || { echo "Bail out! cannot build: $*"; exit 1; }; }
build gcc -O2 -g -o vg2 vgprog.c
build gcc -O0 -g -o vg0 vgprog.c

for prog in vg2 vg0; do
	for mode in line instr; do
		dump=
		[ $mode = instr ] && dump=--dump-instr=yes
		# shellcheck disable=SC2086
		valgrind --tool=callgrind $dump --callgrind-out-file="$prog.$mode.cg" "./$prog" \
			>/dev/null 2>&1
		"$BIN/cgconvert" -t folded --lines -o "$prog.$mode.fl" "$prog.$mode.cg"
		"$BIN/cgconvert" -t folded -o "$prog.$mode.plain" "$prog.$mode.cg"
		ok "$prog ($mode positions): folded --lines = valgrind's self cost per function and line" \
			python3 "$CHECK" folded "$prog.$mode.cg" "$prog.$mode.fl" "$prog.$mode.plain"
	done
done
like "vg2: inlined header code is a frame of its own file" "$(grep -c '^work:vgprog_inline.h:[0-9]* ' vg2.line.fl)" '^[1-9]'

# gmon: the same through cgconvert's own Callgrind (its positions are
# what tests/gmon-lines-callgrind.t checks against gprof -l)
build gcc -pg -g -O0 -o hot hot.c
./hot >/dev/null
"$BIN/cgconvert" -t callgrind --exe hot -o hot.cg gmon.out
"$BIN/cgconvert" -t folded --lines --exe hot -o hot.fl gmon.out
"$BIN/cgconvert" -t folded --exe hot -o hot.plain gmon.out
ok "gmon: folded --lines = the samples per function and line (rounded shares)" \
	python3 "$CHECK" folded hot.cg hot.fl hot.plain --per=10000

"$BIN/cgconvert" -t dot --lines --threshold=0 --exe hot -o hot.dot gmon.out
ok "gmon: dot --lines renders with Graphviz" dot -Tsvg -o hot.svg hot.dot
like "gmon: the work node lists its hot lines" "$(grep -E '^	f[0-9]+ \[label="work"' hot.dot)" '\\nline (7|11): '
like "gmon: main -> work is at line 25" "$(grep -E '"40x\\n[0-9.]+\\nat line 25"' hot.dot)" 'at line 25'
like "gmon: main -> other at lines 26 and 27" "$(grep -F 'at line 26, 27' hot.dot)" '80x'
"$BIN/cgconvert" -t dot --threshold=0 --exe hot -o hot.plain.dot gmon.out
is "gmon: dot --lines only adds to labels" \
	"$(sed -E 's/\\n(at )?line [^"]*"/"/' hot.dot)" "$(cat hot.plain.dot)"

# no positions (a call tree read from folded stacks): as without --lines
printf 'main;work;leaf 5\nmain;other 3\nmain 1\n' >tree.folded
"$BIN/cgconvert" -t folded --lines -o tree.lines tree.folded
"$BIN/cgconvert" -t folded -o tree.plain tree.folded
cmp_files "a call tree without positions: --lines changes nothing" tree.lines tree.plain

# --lines is for folded and dot only
not_ok_cmd "--lines with -t callgrind is refused" \
	"$BIN/cgconvert" -t callgrind --lines -o x.cg vg0.line.cg
done_testing
