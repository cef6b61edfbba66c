#!/usr/bin/env bash
# cgconvert's views as users meet them, checked in the programs they open
# next: Callgrind output by default loads in callgrind_annotate without a
# warning and with no inclusive cost above 100% (threads summed, fprof's
# suspend time as self time), --split-parts keeps one part per thread; the
# SVG flame graph renders in Chromium with every box where the file says;
# dot's cut-off is an option (Graphviz reads every variant); standard
# input works for every format; options that do not apply, unknown
# formats and gmon.out without its program are errors that say what to do.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool callgrind_annotate chromium dot xmllint python3 gprof gcc timeout
P=$CG_BUILD/tests/collector
G=$CG_TOP/testdata/fprof/golden
CV=$BIN/cgconvert
cd "$WORK" || exit 1
"$BIN/cgrun" --time=calls -o eh.cgt "$P/easyhard" >/dev/null 2>&1
"$BIN/cgrun" --time=calls -o th.cgt "$P/threads" >/dev/null 2>&1

# ---- Callgrind defaults ----------------------------------------------------------
# annotate FILE: callgrind_annotate's warnings, then inclusive shares over 100%
annotate_problems() {
	callgrind_annotate --auto=no --inclusive=yes "$1" >"$1.ann" 2>&1
	echo "warnings=$(grep -ci warning "$1.ann")"
	sed -n 's/.*(\([0-9.]*\)%).*/\1/p' "$1.ann" | awk '$1 > 100.0001 { print "over100=" $1 }'
}
# the README's example, verbatim but for the file names
for trace in "$G/fpdemo.trace" "$G/fpt_procs.trace"; do
	cp "$trace" fprof.trace
	"$CV" -t callgrind fprof.trace -o erl.callgrind
	is "README fprof -> Callgrind ($(basename "$trace")): no warning, nothing above 100%" \
		"$(annotate_problems erl.callgrind)" "warnings=0"
done
"$CV" -t callgrind th.cgt -o th.cg
is "threads: one Callgrind part by default, callgrind_annotate content" \
	"$(grep -c '^events:' th.cg) $(annotate_problems th.cg)" "1 warnings=0"
"$CV" -t callgrind --split-parts th.cgt -o split.cg
is "--split-parts: one part per thread, their totals add up to the default's" \
	"$(grep -c '^part:' split.cg) $(sed -n 's/^totals: //p' split.cg | awk '{ s += $1 } END { print s }')" \
	"3 $(sed -n 's/^totals: //p' th.cg)"
"$CV" -t callgrind --no-fprof-suspend-self "$G/fpt_procs.trace" -o own.cg
like "--no-fprof-suspend-self: fprof's own mapping, inclusive costs above the total as documented" \
	"$(annotate_problems own.cg)" 'over100='

# ---- the SVG flame graph in a browser -------------------------------------------------
shoot() {  # SVG PNG HEIGHT
	timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$(mktemp -d "$WORK/chrome.XXXXXX")" --hide-scrollbars \
		--force-device-scale-factor=1 --window-size=1200,"$3" --screenshot="$WORK/$2" \
		"file://$WORK/$1" >/dev/null 2>>chromium.log
}
for src in eh.cgt "$G/fpt_procs.trace"; do
	b=$(basename "$src"); b=${b%.*}
	"$CV" -t svg "$src" -o "$b.svg"
	ok "svg ($b): well-formed XML" xmllint --noout "$b.svg"
	h=$(sed -n 's/.*<svg [^>]* height="\([0-9]*\)".*/\1/p' "$b.svg")
	shoot "$b.svg" "$b.png" "$((h + 100))"
	res=$(python3 "$CG_TOP/testdata/convert/png_boxes.py" "$b.png" "$b.svg")
	like "svg ($b): Chromium draws every box where the SVG says" "$res" \
		'^boxes [1-9][0-9]* checked [1-9][0-9]* missing 0$'
	# the boxes are the folded stacks: the bottom row adds up to the total
	total=$("$CV" -t folded "$src" | awk '{ s += $NF } END { print s }')
	like "svg ($b): the subtitle states the folded stacks' total and its unit" \
		"$(grep -o 'total [0-9]* [a-z]*' "$b.svg" | head -1)" "^total $total [a-z]+$"
done
# each box's width is its cost's share of the 1180 pixels between the
# margins, and there is one box per distinct stack prefix (frames merged
# as flamegraph.pl merges them)
"$CV" -t folded eh.cgt >eh.folded
total=$(awk '{ s += $NF } END { print s }' eh.folded)
is "svg: every box's width = its cost / total x 1180 px" \
	"$(sed -n 's/.*<title>.* (\([0-9]*\) [a-z]*, [0-9.]*%)<\/title><rect x="[0-9.]*" y="[0-9.]*" width="\([0-9.]*\)".*/\1 \2/p' eh.svg |
		awk -v t="$total" '{ d = $2 - $1 / t * 1180; if (d < 0) d = -d; if (d > 0.006) print }')" ""
is "svg: one box per distinct stack prefix of the folded stacks" "$(grep -c '<title>' eh.svg)" \
	"$(awk '{ $NF = ""; n = split($0, f, ";"); p = ""; for (i = 1; i <= n; i++) { p = p ";" f[i]; gsub(/ +$/, "", p); print p } }' eh.folded | sort -u | wc -l)"
# negative control: boxes moved in the file are not where the picture has them
perl -pe 's/<rect x="([\d.]+)"/sprintf("<rect x=\"%.2f\"", $1 + 40)/ge' eh.svg >moved.svg
like "svg: a picture that does not match its file is caught" \
	"$(python3 "$CG_TOP/testdata/convert/png_boxes.py" eh.png moved.svg)" 'missing [1-9]'
is "svg: the title names the program" "$(grep -c 'Flame graph: .*easyhard<' eh.svg)" "1"

# ---- dot's cut-off ------------------------------------------------------------------------
# functions at or above the cut-off of the total inclusive cost, by
# callgrind_annotate's percentages of the same profile
"$CV" -t callgrind eh.cgt -o eh.cg
callgrind_annotate --auto=no --inclusive=yes --threshold=100 eh.cg >eh.ann
for t in 0 0.5 50 99.6; do
	args=(); [ "$t" = 0.5 ] || args=(--threshold="$t")
	"$CV" -t dot "${args[@]}" eh.cgt -o "eh.$t.dot"
	want=$(awk -v t="$t" '/^ *[0-9,]+ \(/ && !/PROGRAM TOTALS/ { p = $2; gsub(/[()%]/, "", p); n = $0; sub(/ \[.*/, "", n); sub(/.*:/, "", n)
		if (p + 0 >= t) print n }' eh.ann | sort | tr '\n' ' ')
	is "dot ${args[*]:-(default cut-off)}: Graphviz draws the functions at or above $t% of the total" \
		"$(dot -Tplain "eh.$t.dot" | awk '$1 == "node" { sub(/^"/, "", $7); sub(/\\n.*/, "", $7); print $7 }' | sort | tr '\n' ' ')" "$want"
done

# ---- standard input ------------------------------------------------------------------------
is "cat trace | cgconvert -t fprof - = the file's analysis" \
	"$(cat "$G/fpt_procs.trace" | "$CV" -t fprof - 2>&1)" "$("$CV" -t fprof "$G/fpt_procs.trace" 2>&1)"
is "cgconvert -t gprof - < x.cgtree = the file's report" \
	"$("$CV" -t gprof - <eh.cgt 2>&1)" "$("$CV" -t gprof eh.cgt 2>&1)"
for f in eh.cgt "$G/fpt_procs.trace"; do
	is "/dev/stdin from a pipe: $(basename "$f") detected and read" \
		"$(cat "$f" | "$CV" -t gprof /dev/stdin 2>&1)" "$("$CV" -t gprof "$f" 2>&1)"
done
for f in eh.cg eh.cgt; do
	"$CV" -t xml -o "$f.xml" "$f"
	is "stdin: cat $f.xml | cgconvert -t callgrind - = from the file" \
		"$(cat "$f.xml" | "$CV" -t callgrind - 2>&1)" "$("$CV" -t callgrind "$f.xml" 2>&1)"
done
gcc -pg -o demo "$CG_TOP/testdata/demo/demo.c" && ./demo >/dev/null
gprof -b demo gmon.out >gprof.txt
cat gmon.out | "$CV" -t gprof --exe demo - >stdin.txt
cmp_files "stdin: cat gmon.out | cgconvert -t gprof --exe demo - = gprof -b" stdin.txt gprof.txt
"$CV" -t gprof --exe demo gmon.out -o - >dash.txt
cmp_files "-o - writes to standard output" dash.txt gprof.txt

# ---- units ------------------------------------------------------------------------------------
# gprof's fractional histogram credit goes to Callgrind in microseconds,
# under that name: callgrind_annotate's total is gprof's time
"$CV" -t callgrind --exe demo gmon.out -o demo.cg
callgrind_annotate --auto=no demo.cg >demo.ann 2>&1
gprof_s=$(gprof -b -p demo gmon.out | awk '/^ +[0-9.]+ +[0-9.]+ +[0-9.]+/ { c = $2 } END { print c }')
like "gmon -> Callgrind: the event is us, callgrind_annotate's total = gprof's seconds" \
	"$(sed -n 's/^Events recorded: *//p' demo.ann) $(awk -v g="$gprof_s" '/PROGRAM TOTALS/ { v = $1; gsub(/,/, "", v)
		d = v / 1e6 - g; if (d < 0) d = -d; print (d <= 0.005 ? "same" : "differs " v " vs " g) }' demo.ann)" '^us same$'

is "dot: the caption says the event, its unit and the cut-off" \
	"$("$CV" -t dot --exe demo gmon.out 2>&1 | sed -n 's/^\tlabel="\(.*\)";$/\1/p')" \
	"histogram samples (samples, 1 = 0.01 s); functions under 0.5% of the total left out"

# ---- gprof's options through cgconvert (the code cgprof uses) ----------------------------------
for opts in "-qwork" "-p" "-P -q" "-e step" "--threshold=1" "-T" "--part=1"; do
	is "cgconvert -t gprof $opts = cgprof -b $opts" \
		"$("$CV" -t gprof $opts th.cgt 2>&1)" "$("$BIN/cgprof" -b $opts th.cgt 2>&1)"
done
is "cgconvert -t flat: only the flat profile" "$("$CV" -t flat eh.cgt | grep -c 'Call graph')" "0"

# ---- errors that teach -------------------------------------------------------------------------
err() { "$CV" "$@" >/dev/null 2>err.txt; echo "$? $(cat err.txt)"; }
like "-p with -t callgrind: exit 2, says where it applies" "$(err -t callgrind -p eh.cgt)" \
	'^2 cgconvert: -p does not apply to -t callgrind \(only to -t gprof, flat, graph\)$'
like "--split-parts with -t xml: exit 2" "$(err -t xml --split-parts eh.cgt)" \
	'^2 .*--split-parts does not apply to -t xml \(only to -t callgrind\)'
like "--fprof-analyse with -t gprof: exit 2" "$(err -t gprof --fprof-analyse=totals eh.cgt)" \
	'^2 .*--fprof-analyse does not apply to -t gprof \(only to -t fprof\)'
like "--threshold with -t folded: exit 2" "$(err -t folded --threshold=1 eh.cgt)" \
	'^2 .*--threshold does not apply to -t folded \(only to -t gprof, flat, graph, dot\)'
like "--part with -t svg: exit 2" "$(err -t svg --part=1 eh.cgt)" '^2 .*--part does not apply'
like "-t foo: exit 2, the writable formats listed (svg among them)" "$(err -t foo eh.cgt)" \
	"^2 cgconvert: cannot write 'foo' output \(one of: .*gprof.*svg"
like "-f foo: exit 2, the readable formats listed" "$(err -f foo -t xml eh.cgt)" \
	"^2 cgconvert: cannot read 'foo' input \(one of: gmon, callgrind, xml, fprof-trace, fprof-analysis, cgtree, folded, pprof, perf-script\)"
like "--threshold=abc: exit 2" "$(err -t dot --threshold=abc eh.cgt)" '^2 .*not a percentage'
like "gmon.out without --exe (no a.out): exit 2, names --exe" "$(err -t gprof gmon.out)" \
	'^2 cgconvert: gmon.out: .*--exe PROGRAM'
gcc -no-pie -o other "$CG_TOP/testdata/gprof/simple.c"
like "gmon.out with the wrong --exe: exit 3 instead of an empty report" \
	"$(err -t gprof --exe other gmon.out)" \
	'^3 cgconvert: gmon.out: none of its [0-9]+ samples lands in a function of other'
is "...and no output file is left behind" "$(err -t gprof --exe other -o out.txt gmon.out >/dev/null; ls out.txt 2>&1 | grep -c 'No such')" "1"
like "--part=9: exit 2, the parts listed" "$(err -t gprof --part=9 th.cgt)" \
	"^2 cgconvert: no part '9' in the profile \(--part=all or one of: 1 \("
like "--event=nope: the events listed" "$(err -t gprof --event=nope eh.cgt)" \
	"no event 'nope' in the profile \(one of: csc\)"
done_testing
