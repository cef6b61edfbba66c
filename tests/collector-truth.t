#!/bin/bash
# The collector's report on its own run (overhead ticks, lost ticks, threads
# cut short, how the run ended) reaches every output and every tool that
# reads the profile: a line above the gprof report, <run> in XML (valid
# against the schema), a comment and a "(collector overhead)" function in
# Callgrind (checked in callgrind_annotate), warnings from cgconvert and
# cgdiff, and exit 3 where the profile is unusable.
. "$CG_TOP/tests/lib.sh"
require_tool gcc callgrind_annotate xmllint
cd "$WORK"

# A profile with known numbers: 1000 ticks, 400 in the collector, 50 lost.
cat > over.cgt <<'CGT'
# cgtree 1
creator libcgcollect 0.1.0
time cpu
hz 1000
event cpu 1000000 CPU%20time%20ticks
thread 0 0
func 0 name main prog.c 3
node 1 0 0 1 0 0 150
func 1 name work prog.c 9
node 2 1 1 4 0 0 400
endthread 0 nodes 2 samples 1000 overhead 400 lost 50 resyncs 0 status ok
ended exit 0
end
CGT
summary='collector: 1000 samples, 400 (40.0%) in the collector itself, 50 lost; ended: exit 0'

out=$("$BIN/cgconvert" -t gprof over.cgt 2>err.txt)
is "gprof text: the report opens with the collector's line" "$(printf '%s\n' "$out" | head -1)" "$summary"
is "cgconvert warns about the distortion, naming the file" "$(cat err.txt)" "cgconvert: warning: over.cgt: $summary"

"$BIN/cgconvert" -t xml -o over.xml over.cgt 2>/dev/null
ok "XML with <run> validates against the schema" xmllint --noout --relaxng "$CG_TOP/docs/xml-schema.rng" over.xml
like "... and carries the numbers" "$(grep '<run' over.xml)" \
	'<run samples="1000" overhead="400" lost="50" resyncs="0" threads="1" threads-cut="0" ending="exit 0"/>'

"$BIN/cgconvert" -t callgrind -o over.cg over.cgt 2>/dev/null
is "Callgrind: a comment with the report" "$(grep '^# collector' over.cg)" "# $summary"
is "Callgrind: summary counts every tick the run used (150 + 400 + 400)" "$(grep '^summary:' over.cg)" 'summary: 950'
ann=$(callgrind_annotate over.cg 2>&1)
like "callgrind_annotate shows the overhead as a function" "$ann" '400 \([ 0-9.]+%\)  \(collector\):\(collector overhead\)'
like "... within the program total" "$ann" '^950 .*PROGRAM TOTALS'

# Through XML and back: nothing lost.
"$BIN/cgconvert" -t callgrind -o via-xml.cg over.xml 2>/dev/null
cmp_files "cgtree -> XML -> Callgrind = cgtree -> Callgrind" via-xml.cg over.cg
# Two runs merged: the counts add up.
"$BIN/cgconvert" -t xml -o two.xml over.cgt over.cgt 2>/dev/null
like "merging two profiles sums their reports" "$(grep '<run' two.xml)" 'samples="2000" overhead="800" lost="100"'

# A thread cut short by the collector's memory limit, with data before it.
sed 's/status ok/status oom/' over.cgt > oom.cgt
"$BIN/cgconvert" -t gprof -o oom.txt oom.cgt 2>err.txt
is "a cut-short profile with data still converts" "$?" 0
like "... with a warning that says so" "$(cat err.txt)" 'warning: oom.cgt: .*data cut short \(out of memory\) in 1 of 1 threads'
exit_status "cgdiff refuses a cut-short profile (exit 3)" 3 "$BIN/cgdiff" over.cgt oom.cgt
like "... and says why" "$("$BIN/cgdiff" over.cgt oom.cgt 2>&1)" 'oom.cgt: profile cut short, not comparable'

# A real run the collector stopped before anything was recorded.
cat > deep.c <<'C'
__attribute__((noinline)) static int leaf(int n) { return n + 1; }
int main(void) { int s = 0; for (int i = 0; i < 1000; i++) s += leaf(i); return s == 0; }
C
gcc -O0 -finstrument-functions -o deep deep.c
CGCOLLECT_MEMORY=1 "$BIN/cgrun" --quiet --time=calls -o empty.cgt ./deep
like "the collector marks the thread oom" "$(grep endthread empty.cgt)" 'status oom'
exit_status "cgconvert: nothing recorded is exit 3" 3 "$BIN/cgconvert" -t gprof empty.cgt
like "... naming the file and the reason" "$("$BIN/cgconvert" -t gprof empty.cgt 2>&1)" \
	'^cgconvert: empty.cgt: the collector stopped before recording any cost'
ok "... and no output file" test ! -e empty.txt

# A program killed by SIGTERM: the profile is kept and says so.
cat > term.c <<'C'
#include <signal.h>
__attribute__((noinline)) static void stop(void) { raise(SIGTERM); }
int main(void) { stop(); return 0; }
C
gcc -O0 -finstrument-functions -o term term.c
("$BIN/cgrun" --quiet --time=calls -o term.cgt ./term) 2>/dev/null
"$BIN/cgconvert" -t gprof -o term.txt term.cgt 2>err.txt
like "a killed run: gprof text says how it ended" "$(head -1 term.txt)" 'killed: signal 15 SIGTERM$'
like "... and cgconvert warns" "$(cat err.txt)" '^cgconvert: warning: term.cgt: .*killed: signal 15 SIGTERM'

# A clean calls-mode run stays quiet (nothing to warn about, no extra line).
"$BIN/cgrun" --quiet --time=calls -o clean.cgt ./deep
"$BIN/cgconvert" -t gprof -o clean.txt clean.cgt 2>err.txt
is "a clean run: no warning" "$(cat err.txt)" ""
is "... and the report starts as gprof's does" "$(head -1 clean.txt)" 'Flat profile:'

done_testing
