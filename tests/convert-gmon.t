#!/usr/bin/env bash
# cgconvert on gmon.out of real -pg programs (the gmon differential corpus):
# the Callgrind file loads in callgrind_annotate without any warning, its
# totals and per-function self costs equal cgprof's flat profile, and the
# XML image validates against the schema and converts back to
# byte-identical output in every format.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool callgrind_annotate xmllint python3 dot
variants="simple-O0-pie-g cycles-O2-pie-g multi-O0-pie-g cxx-O0-pie-g simple-O2-nopie big-O0-nopie"
sh "$CG_TOP/testdata/gmon/build.sh" "$WORK" $variants >"$WORK/build.log" 2>&1 ||
	{ echo "Bail out! building the -pg corpus failed"; cat "$WORK/build.log"; exit 1; }
schema=$CG_TOP/docs/xml-schema.rng
compare=$CG_TOP/testdata/convert/compare_flat.py

for v in $variants; do
	d=$WORK/$v
	"$BIN/cgprof" -b -p "$d/exe" "$d/gmon.out" >"$d/flat" 2>&1
	ok "$v: cgconvert -t callgrind" "$BIN/cgconvert" -t callgrind --exe "$d/exe" -o "$d/cg" "$d/gmon.out"
	callgrind_annotate --threshold=100 "$d/cg" >"$d/ann" 2>"$d/ann.err"
	callgrind_annotate --threshold=100 --inclusive=yes "$d/cg" >"$d/inc" 2>>"$d/ann.err"
	is "$v: callgrind_annotate (self and --inclusive=yes) prints no warning" \
		"$(cat "$d/ann.err"; grep -h WARNING "$d/ann" "$d/inc")" ""
	ok "$v: callgrind_annotate total and self costs equal cgprof's flat profile" \
		python3 "$compare" "$d/flat" "$d/ann" "$d/cg"
	# (positions may be relative, -N: only the costs after them count)
	is "$v: no negative cost, no calls=0" \
		"$(grep -nE '^calls=0( |$)' "$d/cg" | head -3
		   awk '/^positions:/ { np = NF - 1 }
			/^[-+*0-9]/ { for (i = np + 1; i <= NF; i++) if ($i ~ /^-/) { print NR ": " $0; break } }' \
			"$d/cg" | head -3)" ""
	# no inclusive cost above the program total: recursion never counted twice
	is "$v: --inclusive=yes never exceeds 100%" \
		"$(grep -E '^ *[0-9,]+ \( *[0-9.]+%\)' "$d/inc" | awk '{gsub(/[(%)]/,"",$2); if ($2+0 > 100.0) print}')" ""

	# several gmon.out files are summed like gprof sums them
	"$BIN/cgprof" -b -p "$d/exe" "$d/gmon.out" "$d/gmon.2" >"$d/flat2" 2>&1
	"$BIN/cgconvert" -t callgrind --exe "$d/exe" -o "$d/cg2" "$d/gmon.out" "$d/gmon.2"
	callgrind_annotate --threshold=100 "$d/cg2" >"$d/ann2" 2>&1
	ok "$v: two gmon.out files summed equal cgprof's sum" \
		python3 "$compare" "$d/flat2" "$d/ann2" "$d/cg2"

	"$BIN/cgconvert" -t xml --exe "$d/exe" -o "$d/x.xml" "$d/gmon.out"
	ok "$v: XML validates against docs/xml-schema.rng" \
		xmllint --noout --relaxng "$schema" "$d/x.xml"
	for t in gprof flat graph callgrind dot folded xml; do
		"$BIN/cgconvert" -t $t --exe "$d/exe" -o "$d/direct.$t" "$d/gmon.out"
		"$BIN/cgconvert" -t $t -o "$d/via.$t" "$d/x.xml"
		cmp_files "$v: gmon -> xml -> $t is byte-identical to gmon -> $t" "$d/via.$t" "$d/direct.$t"
	done
	ok "$v: dot output renders with Graphviz" dot -Tsvg -o "$d/g.svg" "$d/direct.dot"
done

# many transparent functions at once (a third of the big program): the
# total is kept and callgrind_annotate still reads the file cleanly
d=$WORK/big-O0-nopie
"$BIN/cgconvert" -t callgrind --exe "$d/exe" --transparent='f1*' -o "$d/t.cg" "$d/gmon.out"
callgrind_annotate --inclusive=yes "$d/t.cg" >"$d/t.ann" 2>&1
is "big: --transparent='f1*' keeps the total, no warning" \
	"$(sed -n 's/^totals: //p' "$d/t.cg") $(grep -ci warning "$d/t.ann") $(grep -c '^fn=.* f1' "$d/t.cg")" \
	"$(sed -n 's/^totals: //p' "$d/cg") 0 0"

# gprof output through cgconvert is cgprof's -b report
d=$WORK/cycles-O2-pie-g
"$BIN/cgprof" -b "$d/exe" "$d/gmon.out" >"$d/cgprof.b"
"$BIN/cgconvert" -t gprof --exe "$d/exe" -o "$d/conv.b" "$d/gmon.out"
cmp_files "cgconvert -t gprof is cgprof -b" "$d/conv.b" "$d/cgprof.b"
done_testing
