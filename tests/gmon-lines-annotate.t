#!/bin/bash
# gmon.out -> Callgrind: callgrind_annotate --auto=yes stays silent when a
# function's file has none of its samples.  callgrind_annotate takes a
# source file in which the functions have call lines only, or no lines at
# all, for an empty one and prints perl's "Use of uninitialized value" on
# stderr.  Two ways a real profile gets there, pinned here with one
# sample placed by hand in a gmon.out of the live program:
#  - every sample of a function in code inlined from a header (a short
#    run of the inline program: all of other()'s samples in helper.h.
#    In gmon-lines-callgrind.t's run about 4 of other()'s 65 samples fall
#    in other.c; 2 runs in 200 had none, and with n=1500 9 runs in 30)
#  - calls made from inlined code that has no samples (main's calls are
#    sites in twice.h)
# References: callgrind_annotate (its stderr and output), gprof -b -l -p
# per line, addr2line for the call sites.
. "$CG_TOP/tests/lib.sh"
require_tool gcc gprof callgrind_annotate python3 addr2line objdump nm
CHECK=$CG_TOP/testdata/gmon/lines_check.py
ONE=$CG_TOP/testdata/gmon/one_sample.py
cd "$WORK" || exit 1

annotate_clean() {  # name dir: convert, annotate, no stderr and no warning
	local name=$1 d=$2
	ok "$name: cgconvert -t callgrind" \
		"$BIN/cgconvert" -t callgrind --exe "$d/exe" -o "$d/cg" "$d/one.gmon"
	callgrind_annotate --auto=yes --context=1000 --show-percs=no --threshold=100 \
		"$d/cg" >"$d/ann" 2>"$d/ann.err"
	is "$name: callgrind_annotate prints no warning" \
		"$(cat "$d/ann.err"; grep -i -A8 warning "$d/ann")" ""
	gprof -b -l -p "$d/exe" "$d/one.gmon" >"$d/gprof-l" 2>&1
	ok "$name: callgrind_annotate per line = the file's positions = gprof -l per line" \
		python3 "$CHECK" lines "$d/cg" "$d/gprof-l" "$d/ann"
}

# the sample's own file and the zero line of the function's file
file_costs() {  # cg function: "basename=us" per file of the function's self lines
	python3 -c 'import collections, os, sys
sys.path.insert(0, sys.argv[1]); import lines_check as l
l.parse_callgrind(sys.argv[2])
per = collections.Counter()
for (fn, f, _line), us in l.parse_callgrind.per_fn.items():
	if fn == sys.argv[3]:
		per["own" if f is None else os.path.basename(f)] += us
print(" ".join("%s=%d" % kv for kv in sorted(per.items())))' "$CG_TOP/testdata/gmon" "$1" "$2"
}

L=$CG_TOP/testdata/gprof/lines
d=$WORK/inline
mkdir -p "$d"
ok "build and run inline" sh -c "cd '$d' && gcc -pg -g -O2 -o exe '$L/main.c' '$L/other.c' && ./exe >/dev/null"
ok "inline: one sample in other()'s helper.h code" \
	python3 "$ONE" "$d/gmon.out" "$d/one.gmon" "$d/exe" other helper.h
annotate_clean inline "$d"
like "inline: other()'s sample is in helper.h, its own file has a zero line" \
	"$(file_costs "$d/cg" other)" '^helper\.h=[1-9][0-9]* own=0$'
like "inline: other.c is annotated, the 0 on other()'s first line (its brace)" \
	"$(sed -n '/Auto-annotated source: .*other\.c$/,/events annotated/p' "$d/ann")" \
	'^ +0  \{$'
ok "inline: self cost per address = gprof -b -l -p" \
	python3 "$CHECK" addr "$d/cg" "$d/gprof-l"

C=$CG_TOP/testdata/gmon/src/lines/inlined-call
d=$WORK/call
mkdir -p "$d"
ok "build and run inlined-call" \
	sh -c "cd '$d' && gcc -pg -g -O2 -o exe '$C/main.c' '$C/spin.c' && ./exe >/dev/null"
ok "inlined-call: one sample in spin()" python3 "$ONE" "$d/gmon.out" "$d/one.gmon" "$d/exe" spin
annotate_clean inlined-call "$d"
calls=$(python3 -c 'import os, sys; sys.path.insert(0, sys.argv[1]); import lines_check as l
print(" ".join(sorted({"%s>%s@%s" % (c[0], c[1], os.path.basename(c[3])) for c in l.parse_callgrind(sys.argv[2])[1]})))' \
	"$CG_TOP/testdata/gmon" "$d/cg")
is "inlined-call: main's calls of spin are sites in twice.h" "$calls" "main>spin@twice.h"
like "inlined-call: main's self lines: a zero one in main.c and in twice.h" \
	"$(file_costs "$d/cg" main)" '^own=0 twice\.h=0$'
ok "inlined-call: call sites are on addr2line's line and in callgrind_annotate's call lines" \
	python3 "$CHECK" calls "$d/cg" "$d/exe" "$d/ann"

# a call without a site of its own (an XML arc without <call-at>) after
# self lines in inlined code: at the function's line in its own file,
# not under the inlined file's fi=
d=$WORK/nosite
mkdir -p "$d"
cat >"$d/p.xml" <<'EOF'
<callgraph version="1" xmlns="urn:x-callgraph:profile:1" positions="line">
 <event name="samples" description="samples" unit-seconds="0.01"/>
 <function id="0" name="main" file="main.c" line="12"/>
 <function id="1" name="leaf" file="leaf.c" line="2"/>
 <part name="">
  <self fn="0" costs="3"/>
  <self-at fn="0" line="3" file="inl.h" costs="3"/>
  <self fn="1" costs="5"/>
  <self-at fn="1" line="3" costs="5"/>
  <arc caller="0" callee="1" count="4" line="14"/>
 </part>
</callgraph>
EOF
ok "no call site: cgconvert -t callgrind" "$BIN/cgconvert" -t callgrind -o "$d/cg" "$d/p.xml"
calls=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import lines_check as l
print(" ".join("%s>%s@%s:%d" % (c[0], c[1], c[3], c[4]) for c in l.parse_callgrind(sys.argv[2])[1]))' \
	"$CG_TOP/testdata/gmon" "$d/cg")
is "no call site: main calls leaf at main.c:14" "$calls" "main>leaf@main.c:14"
done_testing
