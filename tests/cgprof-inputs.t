#!/usr/bin/env bash
# cgprof on every format the library reads, against the real tools'
# numbers: a Callgrind file written by valgrind (self cost per function =
# callgrind_annotate's), Erlang fprof traces (calls and own time per
# function = fprof:analyse's, stored from erl), cgrun call trees (every
# call-graph entry's self + children = callgrind_annotate's inclusive cost
# of the same profile); --part selects one thread or process; standard
# input works; gmon.out reports stay gprof's bytes, through the same
# options; and cgprof itself still loads no more than gprof needs.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool valgrind callgrind_annotate gprof gcc readelf
P=$CG_BUILD/tests/collector
G=$CG_TOP/testdata/fprof/golden
cd "$WORK" || exit 1

# "name self %time" from a flat profile on stdin
flat_rows() {
	awk '/^ +[0-9.]+ +[0-9.]+ +[0-9.]+/ { print $NF, $3, $1 }' | sort
}
# "name calls" from a call graph's primary lines on stdin, calls being all
# entries (gprof's "1+108" = 109), cycle suffixes dropped
graph_calls() {
	awk '/^\[[0-9]+\]/ && !/as a whole/ {
		calls = 0; first = 5
		if ($5 ~ /^[0-9]+(\+[0-9]+)?$/) { n = split($5, c, "+"); calls = c[1] + (n > 1 ? c[2] : 0); first = 6 }
		name = $first; print name, calls }' | sort
}

# ---- Callgrind from valgrind ------------------------------------------------
gcc -O0 -g -o vg "$CG_TOP/testdata/convert/vgprog.c"
valgrind --tool=callgrind --callgrind-out-file=vg.cg ./vg >/dev/null 2>&1
"$BIN/cgprof" -b -p vg.cg >vg.flat 2>vg.err; rc=$?
is "callgrind: cgprof -b -p exits 0 without a message" "$rc $(wc -c <vg.err)" "0 0"
# (a function's name may repeat, one per source file: sum per name; the
# one name with a blank, "(below main)", is left out on both sides)
ours=$(grep -v '(below main)' vg.flat | flat_rows |
	awk '{ s[$1] += $2 } END { for (n in s) printf "%s %d\n", n, s[n] }' | sort)
# callgrind_annotate splits a function by source file (inlined code):
# sum per function name
theirs=$(callgrind_annotate --auto=no --threshold=100 vg.cg | sed -n '/file:function/,$p' | grep -v '(below main)' |
	awk '/^ *[0-9,]+ \(/ { v = $1; gsub(/,/, "", v); n = $0; sub(/ \[.*/, "", n);
		sub(/.*:/, "", n); s[n] += v } END { for (n in s) printf "%s %d\n", n, s[n] }' | sort)
is "callgrind: every function's self cost = callgrind_annotate's" "$ours" "$theirs"
like "callgrind: the flat profile names the event's unit" "$(sed -n 3p vg.flat)" \
	'^Each sample counts as 1 Ir\.$'

# ---- fprof traces -------------------------------------------------------------
# fprof's per-function totals (analysis with {totals, true}), as
# "M:F/A CNT OWN_ms"; the total OWN from the totals line
fprof_rows() {
	awk '/^\[\{ "</ { exit } /^\{  [^a]/ {
		line = $0; sub(/^\{  /, "", line); sub(/\}\. *$/, "", line)
		n = split(line, f, ","); own = f[n]; cnt = f[n - 2]; name = f[1]
		for (i = 2; i <= n - 3; i++) name = name "," f[i]
		gsub(/ /, "", own); gsub(/ /, "", cnt); gsub(/ +$/, "", name)
		if (name ~ /^\{/) { sub(/^\{/, "", name); sub(/\}$/, "", name)
			m1 = name; sub(/,.*/, "", m1); a = name; sub(/.*,/, "", a)
			f2 = name; sub(/^[^,]*,/, "", f2); sub(/,[^,]*$/, "", f2)
			name = m1 ":" f2 "/" a }
		print name, cnt, own }' "$1" | sort
}
for prog in fpt_single fpt_procs; do
	trace=$G/$prog.trace
	analysis=$G/$prog.no_callers-own-totals-details.analysis
	total=$(awk -F, '/^\[\{ totals,/ { gsub(/[ }\]]/, "", $4); print $4 }' "$analysis")
	"$BIN/cgprof" -b -z "$trace" >"$prog.cgprof" 2>"$prog.err"
	is "$prog: cgprof -b on the trace exits quietly" "$? $(wc -c <"$prog.err")" "0 0"
	# fprof's own mapping (suspend has no own time), as in fprof's tables
	"$BIN/cgconvert" -t gprof --no-fprof-suspend-self -z "$trace" >"$prog.fprofmap"
	# a process's first function has no caller: fprof counts its start as
	# a call, gprof counts calls on arcs; those are compared without calls
	firsts=$(sed -n 's/.*initial_calls, \[{\([^,]*\),\([^,]*\),\([0-9]*\)}.*/\1:\2\/\3/p' "$analysis" | sort -u)
	want=$(fprof_rows "$analysis" | grep -v '^suspend \|^undefined ')
	want_calls=$(echo "$want" | awk -v f="$firsts" 'BEGIN { n = split(f, a, "\n"); for (i = 1; i <= n; i++) skip[a[i]] = 1 }
			!($1 in skip)')
	is "$prog: every function's calls (with recursive ones) = fprof's CNT" \
		"$(graph_calls <"$prog.fprofmap" | join - <(echo "$want_calls") | awk '{ print $1, $2 }')" \
		"$(echo "$want_calls" | join - <(graph_calls <"$prog.fprofmap") | awk '{ print $1, $2 }')"
	like "$prog: the comparisons cover 10 or more functions" \
		"$(flat_rows <"$prog.fprofmap" | join - <(echo "$want") | wc -l) $(graph_calls <"$prog.fprofmap" | join - <(echo "$want_calls") | wc -l)" \
		'^[1-9][0-9]+ [1-9][0-9]+$'
	bad=$(flat_rows <"$prog.fprofmap" | join - <(echo "$want") |
		awk -v t="$total" '{ pct = 100 * $5 / t; d = $3 - pct; if (d < 0) d = -d
			if (d > 0.0051) print $1, $3, pct }')
	is "$prog: every function's share of the time = fprof's OWN share" "$bad" ""
	is "$prog: ...and no function of fprof's is missing" \
		"$(echo "$want" | awk '{ print $1 }' | join -v1 - <(graph_calls <"$prog.fprofmap") | grep -v '^fprof:apply_start_stop/4$')" ""
	is "$prog: cgprof prints cgconvert -t gprof's report (suspend as self time)" \
		"$(cat "$prog.cgprof")" "$("$BIN/cgconvert" -t gprof -z "$trace")"
done
# one process of several: --part by name
"$BIN/cgprof" -b -z '--part=<0.86.0>' "$G/fpt_procs.trace" >part.txt
is "fprof --part=<0.86.0>: fpt_procs:work/2 has that process's calls (fprof's CNT)" \
	"$(graph_calls <part.txt | awk '$1 == "fpt_procs:work/2" { print $2 }')" \
	"$(awk '/^\[\{ "<0.86.0>"/ { on = 1 } on && /^\{  \{fpt_procs,work,2\}/ { gsub(/[ ,]+/, " "); print $5; exit }' \
		"$G/fpt_procs.no_callers-own-totals-details.analysis")"

# ---- call trees (cgrun) -------------------------------------------------------
"$BIN/cgrun" --time=calls -o eh.cgt "$P/easyhard" >/dev/null 2>&1
"$BIN/cgrun" --time=calls -o th.cgt "$P/threads" >/dev/null 2>&1
"$BIN/cgprof" -b -q eh.cgt >eh.graph 2>eh.err
is "cgtree: cgprof -b -q exits quietly" "$? $(wc -c <eh.err)" "0 0"
# primary lines "[n] %time self children called name [n]": self + children
ours=$(awk '/^\[[0-9]+\]/ { printf "%s %d\n", $(NF - 1), $3 + $4 }' eh.graph | sort)
"$BIN/cgconvert" -t callgrind -o eh.cg eh.cgt
theirs=$(callgrind_annotate --auto=no --inclusive=yes --threshold=100 eh.cg | sed -n '/file:function/,$p' |
	awk '/^ *[0-9,]+ \(/ { v = $1; gsub(/,/, "", v); n = $0; sub(/ \[.*/, "", n);
		sub(/.*:/, "", n); printf "%s %d\n", n, v }' | sort)
is "cgtree: every entry's self + children = callgrind_annotate's inclusive cost" "$ours" "$theirs"
"$BIN/cgprof" -b -qwork eh.cgt >work.graph
is "cgtree: -b -qwork prints the entries gprof's -q SPEC selects" \
	"$(grep -E '^\[[0-9]+\]' work.graph | awk '{ print $(NF - 1) }' | tr '\n' ' ')" "work step "
# threads: main calls tick once, the workers 3 and 7 times (threads.c)
for n in 1 2 3; do
	"$BIN/cgprof" -b -q -z --part=$n th.cgt | graph_calls | awk '$1 == "tick" { print $2 }' >>ticks
done
is "cgtree --part=1,2,3: tick's calls in each thread" "$(tr '\n' ' ' <ticks)" "1 3 7 "
is "cgtree --part=all (the default): the threads summed" \
	"$("$BIN/cgprof" -b -q -z th.cgt | graph_calls | awk '$1 == "tick" { print $2 }')" "11"
"$BIN/cgprof" -b -p --part=4 th.cgt >/dev/null 2>part.err; rc=$?
like "--part=4 of 3 parts: exit 1, the parts listed" "$rc $(cat part.err)" \
	"^1 .*no part '4' in the profile \(--part=all or one of: 1 \(.*thread 0\), 2 .*, 3 "

# XML is lossless: the same report as from the tree it was written from
"$BIN/cgconvert" -t xml -o eh.xml eh.cgt
is "xml: cgprof -b = cgprof -b of the cgtree it came from" \
	"$("$BIN/cgprof" -b eh.xml 2>&1)" "$("$BIN/cgprof" -b eh.cgt 2>&1)"
# fprof's analysis text (with callers: the arcs): every function, with fprof's CNT
an=$G/fpt_single.callers-own-totals-details.analysis
"$BIN/cgprof" -b -z "$an" >an.txt 2>an.err
is "fprof analysis: cgprof -b exits quietly" "$? $(wc -c <an.err)" "0 0"
# (fprof's per-function CNT from its no_callers analysis of the same trace)
joined=$(graph_calls <an.txt | join - <(fprof_rows "$G/fpt_single.no_callers-own-totals-details.analysis" |
	grep -v '^suspend \|^undefined '))
is "fprof analysis: every function's calls = fprof's CNT (20 or more functions)" \
	"$(echo "$joined" | awk '$2 != $3 { print } END { if (NR < 20) print "only " NR " functions" }')" ""

# an unknown text is not taken for a gmon.out: cgprof says what it reads
printf 'this is not a profile\n' >notes.txt
"$BIN/cgprof" -b notes.txt >/dev/null 2>unk.err; rc=$?
like "a text file: exit 1, the readable formats listed" "$rc $(cat unk.err)" \
	'^1 .*notes.txt: unknown profile format \(cgprof reads: gmon, callgrind, xml, fprof-trace, fprof-analysis, cgtree, folded, pprof, perf-script\)'

# ---- standard input ----------------------------------------------------------------
for f in eh.cgt eh.cg "$G/fpt_single.trace"; do
	is "stdin: cat $(basename "$f") | cgprof -b - = cgprof -b FILE" \
		"$(cat "$f" | "$BIN/cgprof" -b - 2>&1)" "$("$BIN/cgprof" -b "$f" 2>&1)"
done

# ---- gmon.out: gprof's bytes, also through the all-formats options ------------------
gcc -pg -o demo "$CG_TOP/testdata/demo/demo.c" && ./demo >/dev/null
gprof -b demo gmon.out >gprof.txt
"$BIN/cgprof" -b demo gmon.out >cgprof.txt
cmp_files "gmon: cgprof -b = gprof -b" cgprof.txt gprof.txt
cat gmon.out | "$BIN/cgprof" -b demo - >stdin.txt
cmp_files "gmon: cat gmon.out | cgprof -b demo - = gprof -b" stdin.txt gprof.txt
cat gmon.out | "$BIN/cgprof" -b demo /dev/stdin >devstdin.txt
cmp_files "gmon: cat gmon.out | cgprof -b demo /dev/stdin = gprof -b" devstdin.txt gprof.txt
# (a pipe as the first name is the executable, as in gprof: - reads a
# profile from standard input in that place)
"$BIN/cgprof" -b --part=all --threshold=0 demo gmon.out >views.txt
cmp_files "gmon: --part=all --threshold=0 change nothing" views.txt gprof.txt
# --threshold=1 leaves out of the call graph what gprof's -e would for
# every function gprof's own report puts under 1% (self + children)
under=$(awk '/^\[[0-9]+\]/ && !/as a whole/ && $2 < 1 { for (i = 5; i <= NF; i++) if ($i !~ /^[0-9+]+$/) { print $i; break } }' gprof.txt)
like "gmon: some functions are under 1%" "$under" '.'
gprof -b $(printf -- '-e %s ' $under) demo gmon.out >gprof-e.txt
"$BIN/cgprof" -b --threshold=1 demo gmon.out >cgprof-e.txt
cmp_files "gmon: --threshold=1 = gprof -e for each function under 1%" cgprof-e.txt gprof-e.txt
is "gmon: cgprof loads neither libxml2 nor the whole library (cgprof-all does)" \
	"$(readelf -d "$BIN/cgprof" | grep -c 'NEEDED.*\(libxml2\|libcallgraph\)') $(readelf -d "$BIN/cgprof-all" | grep -c 'NEEDED.*libcallgraph')" "0 1"
done_testing
