#!/bin/bash
# cgdiff as a CI gate that fails closed and speaks the CI's formats, on real
# programs: testdata/diff/prog.c (deterministic) and pool.c (a thread pool
# whose polling call counts vary), built with -finstrument-functions and
# profiled with cgrun, plus an empty gprof profile.
#  - no silent passes: a rule naming no function, a function a rule names
#    that vanished, events of different units, NaN/inf limits, an empty
#    profile, a missing baseline;
#  - limits are exact: "10%" passes at exactly +10%, fails above;
#  - identity survives a checkout move; --absolute-paths does not;
#  - JUnit read by junit2json (npm) and validated by xmllint against
#    docs/cgdiff-junit.xsd; GitHub annotations at the function's line;
#    Markdown; BMF JSON read by python's json;
#  - nondeterministic calls: --ignore, and repeated runs.
. "$CG_TOP/tests/lib.sh"
require_tool gcc xmllint node python3
JUNIT2JSON=$CG_TOP/.tools/node_modules/junit2json/dist/esm/cli.js
[ -f "$JUNIT2JSON" ] || { echo "Bail out! junit2json is missing (run scripts/install-deps.sh)"; exit 1; }

cd "$WORK" || exit 1
build() {  # dir name source cflags...: compile in dir with its absolute source path
	local dir=$1 name=$2 src=$3; shift 3
	mkdir -p "$dir/src" && cp "$CG_TOP/testdata/diff/$src" "$dir/src/$src" &&
		(cd "$dir" && gcc -finstrument-functions -O1 -g -pthread "$@" -o "$name" "$PWD/src/$src")
}
profile() {  # dir name out.cgt
	(cd "$1" && "$BIN/cgrun" -q --time=calls -o "$WORK/$3" "./$2" >/dev/null)
}
{ build one prog prog.c -DSCALE=1000UL && profile one prog base.cgt &&
  build one prog-extra prog.c -DSCALE=1000UL -DEXTRA=1 && profile one prog-extra extra.cgt &&
  build elsewhere/checkout prog prog.c -DSCALE=1000UL && profile elsewhere/checkout prog moved.cgt &&
  build two/co prog-extra prog.c -DSCALE=1000UL -DEXTRA=1 && profile two/co prog-extra moved-extra.cgt &&
  build one pool pool.c && build one pool-drop pool.c -DDROP=1 && build one pool-long pool.c -DLONG=1 &&
  profile one pool-drop drop.cgt && profile one pool-long long.cgt; } ||
	{ echo "Bail out! cannot build or profile the test programs"; exit 1; }

# ---- no silent passes ----------------------------------------------------------
out=$("$BIN/cgdiff" --fail 'inclusive(mian)>2%' base.cgt extra.cgt 2>&1)
is "a misspelled rule pattern: exit 2" "$?" 2
like "... naming the rule" "$out" "rule 'inclusive\(mian\)>2%': 'mian' matches no function in either profile"
exit_status "an arc rule matching no arc: exit 2" 2 "$BIN/cgdiff" --fail 'arcs(main/nothing)>0' base.cgt extra.cgt
exit_status "the correct spelling checks main: exit 0" 0 "$BIN/cgdiff" --fail 'inclusive(main)>2%' base.cgt extra.cgt

for i in 1 2 3; do profile one pool "pool$i.cgt"; done
out=$("$BIN/cgdiff" --fail 'calls(checksum)>0' pool1.cgt drop.cgt 2>&1)
is "a function the rule names is gone from the new build: exit 1" "$?" 1
like "... saying so" "$out" "checksum is in the base but missing from the new profile"
exit_status "a glob rule does not fail on a vanished function" 0 \
	"$BIN/cgdiff" --fail 'calls(check*)>0' pool1.cgt drop.cgt

for bad in 'self>nan' 'self>inf' 'self>-1' 'self>1e3' 'self>0x10' 'self>5%%' 'self>'; do
	exit_status "limit '$bad' is refused: exit 2" 2 "$BIN/cgdiff" --fail "$bad" base.cgt extra.cgt
done
exit_status "--alpha=nan is refused" 2 "$BIN/cgdiff" --alpha=nan base.cgt extra.cgt
exit_status "--noise-z=nan is refused" 2 "$BIN/cgdiff" --noise-z=nan base.cgt extra.cgt

# Units: the same event counted at two sampling rates is not comparable.
(cd one && "$BIN/cgrun" -q --time=cpu --hz=1000 -o "$WORK/hz1000.cgt" ./prog >/dev/null &&
	"$BIN/cgrun" -q --time=cpu --hz=500 -o "$WORK/hz500.cgt" ./prog >/dev/null)
out=$("$BIN/cgdiff" hz1000.cgt hz500.cgt 2>&1)
is "profiles sampled at 1000 Hz and 500 Hz: exit 3" "$?" 3
like "... the units named" "$out" "not comparable"

# An empty profile (nothing sampled, no call recorded) is refused.
printf 'int main(void) { return 0; }\n' >empty.c
gcc -pg -o empty empty.c && ./empty && mv gmon.out empty.gmon
gcc -pg -O1 -o progpg "$WORK/one/src/prog.c" -DSCALE=1000UL && ./progpg >/dev/null && mv gmon.out prog.gmon
out=$("$BIN/cgdiff" --base-exe empty --new-exe progpg empty.gmon prog.gmon 2>&1)
is "an empty base profile: exit 3" "$?" 3
like "... naming it" "$out" "empty.gmon: nothing was measured"
exit_status "an empty new profile: exit 3" 3 "$BIN/cgdiff" --base-exe progpg --new-exe empty prog.gmon empty.gmon

# A missing baseline is an error, unless asked to create it.
exit_status "a missing baseline: exit 3" 3 "$BIN/cgdiff" nothere.xml base.cgt
exit_status "--create-baseline writes it and passes" 0 "$BIN/cgdiff" --create-baseline stored.xml base.cgt
ok "... as an XML profile" xmllint --noout stored.xml
exit_status "--create-baseline with the baseline present compares" 1 \
	"$BIN/cgdiff" --create-baseline stored.xml extra.cgt

# ---- exact limits: helper is called 10 times, then 11 (+10%) ------------------------
exit_status "calls(helper)>10%: +10% exactly passes" 0 "$BIN/cgdiff" --fail 'calls(helper)>10%' base.cgt extra.cgt
exit_status "calls(helper)>10.000%: the same" 0 "$BIN/cgdiff" --fail 'calls(helper)>10.000%' base.cgt extra.cgt
exit_status "calls(helper)>9.999999%: fails" 1 "$BIN/cgdiff" --fail 'calls(helper)>9.999999%' base.cgt extra.cgt
exit_status "calls(helper)>1: +1 passes" 0 "$BIN/cgdiff" --fail 'calls(helper)>1' base.cgt extra.cgt
exit_status "calls(helper)>0.9: fails" 1 "$BIN/cgdiff" --fail 'calls(helper)>0.9' base.cgt extra.cgt

# ---- identity across checkouts ----------------------------------------------------------
out=$("$BIN/cgdiff" base.cgt moved.cgt)
is "one program built in two directories compares clean" "$?" 0
like "... in one line" "$out" "^no differences: 5 functions and 4 arcs compared, all equal$"
exit_status "--absolute-paths tells the checkouts apart" 1 "$BIN/cgdiff" --absolute-paths base.cgt moved.cgt
exit_status "--source-root per side gives the same identities" 0 \
	"$BIN/cgdiff" --base-source-root="$WORK/one" --new-source-root="$WORK/elsewhere/checkout" base.cgt moved.cgt
out=$("$BIN/cgdiff" -t tap base.cgt moved-extra.cgt | failing_names)
is "a change in a moved checkout still names only what changed" "$out" "arc main -> helper;function helper;"

# Names are whole when the output is not a terminal.
long=a_function_whose_name_is_far_too_long_for_any_eighty_column_table_that_cuts_names
out=$("$BIN/cgdiff" --fail 'calls<>0' drop.cgt long.cgt | grep -c "$long$")
ok "a 90-character name is not cut in a log" test "$out" -ge 1
out=$(COLUMNS=80 "$BIN/cgdiff" --fail 'calls<>0' drop.cgt long.cgt | grep -c "$long$")
is "... but is with COLUMNS=80" "$out" 0

# ---- CI formats -------------------------------------------------------------------------------
"$BIN/cgdiff" --source-root="$WORK/two/co" --base-source-root="$WORK/one" -t junit -o report.xml \
	base.cgt moved-extra.cgt
is "junit: exit 1 on the regression" "$?" 1
ok "junit: valid against docs/cgdiff-junit.xsd" xmllint --noout --schema "$CG_TOP/docs/cgdiff-junit.xsd" report.xml
node "$JUNIT2JSON" report.xml >report.json
is "junit2json reads it" "$?" 0
summary=$(python3 -c '
import json, sys
d = json.load(open("report.json"))
cases = [c for s in d["testsuite"] for c in s.get("testcase", [])]
failed = sorted(c["classname"] + ":" + c["name"] for c in cases if "failure" in c)
print(d["tests"], d["failures"], len(cases), ";".join(failed))
msg = [c for c in cases if c["name"] == "helper"][0]["failure"][0]["message"]
print(msg)')
is "junit: 9 tests (5 functions, 4 arcs), 2 failures, helper and main -> helper" \
	"$(echo "$summary" | head -1)" "9 2 9 cgdiff.arc:main -> helper;cgdiff.function:helper"
is "junit: the failure message has the rule and numbers" "$(echo "$summary" | sed -n 2p)" \
	"rule 'self>5%': +1 csc exceeds 5% (exact: any change is real)"
"$BIN/cgdiff" -t junit -o pass.xml base.cgt moved.cgt
ok "junit of a pass validates" xmllint --noout --schema "$CG_TOP/docs/cgdiff-junit.xsd" pass.xml
is "junit of a pass: no failure" "$(node "$JUNIT2JSON" pass.xml | python3 -c 'import json,sys; print(json.load(sys.stdin)["failures"])')" 0

# helper's line as the profile records it (the collector reads the debug info)
line=$("$BIN/cgconvert" -t xml base.cgt | sed -n 's/.* name="helper" .* line="\([0-9]*\)".*/\1/p')
like "helper's line is known, in prog.c's helper" "$(sed -n "$((line - 1)),${line}p" one/src/prog.c)" "helper"
gh=$("$BIN/cgdiff" --source-root="$WORK/two/co" --base-source-root="$WORK/one" -t github base.cgt moved-extra.cgt)
like "github: an error annotation at helper's line, path relative to the checkout" "$gh" \
	"^::error file=src/prog.c,line=$line,title=cgdiff%3A function helper::calls calls: 10 -> 11 \(\+1, \+10.0%25\): rule 'calls>0'"
like "github: '%' escaped in the message" "$gh" "rule 'self>5%25'"
like "github: a closing summary" "$gh" "^::error title=cgdiff::FAIL: 2 of 9 checks exceeded a limit$"
is "github: one command per line, nothing else" "$(echo "$gh" | grep -vc '^::\(error\|notice\) ')" 0
like "github, unchanged: a notice that it passed" "$("$BIN/cgdiff" -t github base.cgt moved.cgt)" \
	"^::notice title=cgdiff::PASS: 9 checks within limits$"

md=$("$BIN/cgdiff" -t markdown base.cgt extra.cgt)
like "markdown: a FAIL heading" "$md" "^### cgdiff: FAIL$"
like "markdown: a table row for helper" "$md" \
	"^\| \*\*FAIL\*\* \| \`function helper\` \| calls calls \| 10 \| 11 \| \+1 \(\+10.0%\) \| \`calls>0\` \|$"
like "markdown, unchanged: one line" "$("$BIN/cgdiff" -t markdown base.cgt moved.cgt)" \
	"^No limit exceeded: 9 checks within limits.$"

"$BIN/cgdiff" -t bmf -o bmf.json base.cgt extra.cgt
is "bmf: written (exit 1 for the regression)" "$?" 1
is "bmf: JSON with helper's calls and the total" \
	"$(python3 -c 'import json; d=json.load(open("bmf.json")); print(d["helper"]["calls"]["value"], d["total"]["csc"]["value"])')" "11 62"

# ---- nondeterministic calls (thread pool, busy polling) --------------------------------------------
for i in 4 5 6; do profile one pool "pool$i.cgt"; done
# Both directions: the default limits fail increases only, and pool1 may
# be the busiest of the six runs.
differ=0
for i in 2 3 4 5 6; do
	"$BIN/cgdiff" -q pool1.cgt "pool$i.cgt" && "$BIN/cgdiff" -q "pool$i.cgt" pool1.cgt ||
		differ=$((differ + 1))
done
ok "the pool's unchanged reruns do differ (the problem is real)" test "$differ" -gt 0
clean=0
for i in 2 3 4 5 6; do
	"$BIN/cgdiff" -q --ignore=is_done --ignore=queue_full pool1.cgt "pool$i.cgt" && clean=$((clean + 1))
done
is "--ignore the polling functions: 5 of 5 reruns pass" "$clean" 5

# --learn from 8 unchanged runs: 10 further reruns pass, an added call fails.
for i in $(seq 7 14); do profile one pool "pool$i.cgt"; done
"$BIN/cgdiff" --learn -o tolerances.txt pool{7..14}.cgt 2>/dev/null
is "--learn: exit 0" "$?" 0
like "--learn: is_done varies and gets its own limit" "$(cat tolerances.txt)" '^fail calls\(is_done\)<>[0-9]+%'
grep -q '^ignore job$' tolerances.txt
is "--learn: job does not vary" "$?" 1
# The runs it learned from are within twice their own spread: all pass.
clean=0
for i in $(seq 8 14); do
	"$BIN/cgdiff" -q --tolerances=tolerances.txt pool7.cgt "pool$i.cgt" && clean=$((clean + 1))
done
is "--tolerances: the 7 learned runs pass against the first" "$clean" 7
# Fresh reruns depend on the machine's load at the time: the polling
# count follows the workers' speed, and a suite running beside them can
# slow them beyond anything the 8 runs saw.  How many pass is reported,
# not tested (like a timing, it measures the machine).
clean=0
for i in $(seq 15 24); do
	profile one pool "pool$i.cgt"
	"$BIN/cgdiff" -q --tolerances=tolerances.txt pool7.cgt "pool$i.cgt" && clean=$((clean + 1))
done
note "--tolerances: $clean of 10 fresh unchanged reruns pass on this machine now"
build one pool-extra pool.c -DEXTRA=1 && profile one pool-extra pool-extra.cgt
"$BIN/cgdiff" --tolerances=tolerances.txt -t tap pool7.cgt pool-extra.cgt >learned.tap
is "--tolerances: one more job() call still fails" "$?" 1
# The polling functions can go past their learned limits here too when
# the machine is busier than during the 8 runs (the fresh reruns above):
# what must fail is the added call, and nothing else.
is "... naming job and checksum -> job" \
	"$(failing_names <learned.tap | tr ';' '\n' | grep -v -e 'is_done' -e 'queue_full' | tr '\n' ';')" \
	"arc checksum -> job;function job;"
printf 'tolerate everything\n' >bad-tolerances.txt
exit_status "a malformed tolerance file: exit 3" 3 "$BIN/cgdiff" --tolerances=bad-tolerances.txt pool7.cgt pool8.cgt
exit_status "--learn with two runs: exit 2" 2 "$BIN/cgdiff" --learn pool7.cgt pool8.cgt
done_testing
