#!/usr/bin/env bash
# Callgrind in and out without loss (issue 10): real `valgrind
# --tool=callgrind` profiles of programs built here with -g, converted by
# `cgconvert -t callgrind`, give the same `callgrind_annotate --auto=yes`
# report as the original: every annotated source line, every call line
# (=> with its count and inclusive cost at the call site), inlined code
# under its own file (fi=/fe=), every function total.  Checked with line
# positions and with --dump-instr=yes (instr line positions, jump lines).
# callgrind_annotate walks Perl hashes, so the order of annotated files
# and of tied functions is normalised (testdata/convert/annotate_norm.py);
# only the line naming the input file is left out (valgrind's desc: lines
# come back too).
# The XML image keeps positions: callgrind -> xml -> callgrind is
# byte-identical, and the XML validates.
# Jump lines (jump=/jcnd= with jfi=/jfn=, from --collect-jumps=yes) are
# kept: read independently (testdata/convert/callgrind_jumps.py) as
# absolute (function, position, target, counts) tuples, the conversion's
# equal the original's, and merging two inputs doubles every count.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool valgrind callgrind_annotate xmllint python3 gcc g++
norm=$CG_TOP/testdata/convert/annotate_norm.py
jumps=$CG_TOP/testdata/convert/callgrind_jumps.py
schema=$CG_TOP/docs/xml-schema.rng

# callgrind_annotate finds the sources relative to the current directory
cd "$WORK" || exit 1
cp "$CG_TOP/testdata/convert/vgprog.c" "$CG_TOP/testdata/convert/vgprog_inline.h" \
	"$CG_TOP/testdata/gmon/src/cycles.c" "$CG_TOP/testdata/gmon/src/cxx.cc" \
	"$CG_TOP/testdata/demo/demo.c" .
build() { "$@" || { echo "Bail out! cannot build: $*"; exit 1; }; }
build gcc -O2 -g -o vg2 vgprog.c      # inlined header: fi=/fe= lines
build gcc -O0 -g -o vg0 vgprog.c
build gcc -O1 -g -o cycles cycles.c    # recursion and cycles
build g++ -O1 -g -o cxx cxx.cc         # C++ names, library headers
build gcc -O1 -g -o demo demo.c

annotate() {  # profile output [options]
	local in=$1 out=$2
	shift 2
	callgrind_annotate --auto=yes "$@" "$in" >"$out.raw" 2>/dev/null
	python3 "$norm" "$out.raw" >"$out"
}

for prog in vg2 vg0 cycles cxx demo; do
	for mode in line instr; do
		name=$prog.$mode
		opts=()
		[ $mode = instr ] && opts=(--dump-instr=yes --collect-jumps=yes)
		valgrind --tool=callgrind "${opts[@]}" --callgrind-out-file="$name.cg" "./$prog" \
			>/dev/null 2>&1 || { echo "Bail out! valgrind failed on $prog"; exit 1; }
		ok "$name: cgconvert -t callgrind" "$BIN/cgconvert" -t callgrind -o "$name.ours" "$name.cg"
		annotate "$name.cg" "$name.want"
		annotate "$name.ours" "$name.got"
		cmp_files "$name: callgrind_annotate --auto=yes is the same" "$name.got" "$name.want"
		"$BIN/cgconvert" -t xml -o "$name.xml" "$name.cg"
		"$BIN/cgconvert" -t callgrind -o "$name.via" "$name.xml"
		cmp_files "$name: callgrind -> xml -> callgrind is byte-identical" "$name.via" "$name.ours"
		if [ $mode = instr ]; then
			python3 "$jumps" "$name.cg" >"$name.jumps.want"
			python3 "$jumps" "$name.ours" >"$name.jumps.got"
			is "$name: the original has jumps" "$(sed -n '1{s/.*/yes/p}' "$name.jumps.want")" "yes"
			cmp_files "$name: every jump kept with its counts" "$name.jumps.got" "$name.jumps.want"
		fi
	done
done

# the positions are really there: as many costed lines as the original's
# annotated sources show, and instruction addresses when valgrind wrote them
is "instr positions kept" "$(grep -c '^positions: instr line' vg2.instr.ours) $(grep -c '^0x' vg2.instr.ours | sed 's/^[1-9][0-9]*$/many/')" "1 many"
is "inlined code keeps its file" "$(grep -c '^fi=' vg2.line.ours | sed 's/^[1-9][0-9]*$/yes/')" "yes"
ok "XML with positions validates" xmllint --noout --relaxng "$schema" vg2.instr.xml
is "XML keeps the jumps" "$(grep -c '<jump ' vg2.instr.xml | sed 's/^[1-9][0-9]*$/many/')" "many"

# jfi=/jfn= (jumps into inlined files and other functions, which these
# programs do not make), made by hand: kept too
"$BIN/cgconvert" -t callgrind -o hand.ours "$CG_TOP/testdata/fuzz/callgrind/jumps.cg"
python3 "$jumps" "$CG_TOP/testdata/fuzz/callgrind/jumps.cg" >hand.want
python3 "$jumps" hand.ours >hand.got
is "hand-made jumps with jfi=/jfn= are all read" "$(grep -c . hand.want)" "6"
cmp_files "hand-made jumps with jfi=/jfn= kept" hand.got hand.want

# two inputs merged: every jump's counts double
"$BIN/cgconvert" -t callgrind -o jmerged.cg cycles.instr.cg cycles.instr.cg
python3 "$jumps" jmerged.cg >jmerged.got
awk '{ $NF = 2 * $NF; print }' cycles.instr.jumps.want >jmerged.want
cmp_files "merged twice: every jump count doubles" jmerged.got jmerged.want

# the inclusive view and the caller trees agree too
annotate vg2.line.cg incl.want --inclusive=yes --tree=caller
annotate vg2.line.ours incl.got --inclusive=yes --tree=caller
cmp_files "inclusive costs and caller trees are the same" incl.got incl.want

# a converted file converted again stays the same
"$BIN/cgconvert" -t callgrind -o vg2.twice vg2.instr.ours
cmp_files "callgrind -> callgrind -> callgrind is a fixed point" vg2.twice vg2.instr.ours

# two inputs merged: every annotated line doubles
"$BIN/cgconvert" -t callgrind -o merged.cg vg0.line.cg vg0.line.cg
annotate merged.cg merged.got
python3 - vg0.line.want merged.got <<'PY' >merged.check
import re, sys
def sources(path, factor):
    """The annotated source sections, percentages left out, the cost
    column and the call counts multiplied by factor."""
    text = open(path).read()
    text = text[text.index("-- Auto-annotated source"):]
    out = []
    for line in text.split("\n"):
        line = re.sub(r"\(\s*[\d.]+%\)", "", line)
        m = re.match(r"^(\s*)([\d,]+)(\s.*)$", line)
        if m:
            n = int(m.group(2).replace(",", "")) * factor
            line = "%d%s" % (n, m.group(3))
        line = re.sub(r"\((\d[\d,]*)x\)$",
                      lambda c: "(%dx)" % (int(c.group(1).replace(",", "")) * factor), line)
        out.append(" ".join(line.split()))
    return out
once, twice = sources(sys.argv[1], 2), sources(sys.argv[2], 1)
print("ok" if once == twice and len(once) > 50 else "differ")
PY
is "merged twice: every annotated number doubles" "$(cat merged.check)" "ok"

done_testing
