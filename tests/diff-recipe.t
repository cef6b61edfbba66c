#!/bin/bash
# docs/ci-recipe.md's job script, run as written (bash, as the recipe's CI
# step does): the main branch's run stores the baseline, an unchanged run
# passes, a change that adds a call fails with exit 1 and leaves the JUnit,
# Markdown and Callgrind reports and GitHub annotations; a missing
# baseline and a failed build fail the job instead of passing it.
. "$CG_TOP/tests/lib.sh"
require_tool gcc xmllint

cd "$WORK" || exit 1
sed -n '/^```sh ci-recipe$/,/^```$/p' "$CG_TOP/docs/ci-recipe.md" | sed '1d;$d' >job.sh
ok "the recipe has a job script" test -s job.sh
export PATH="$BIN:$PATH"
unset GITHUB_STEP_SUMMARY UPDATE_BASELINE
cp "$CG_TOP/testdata/diff/prog.c" prog.c
sed -i 's/#define SCALE 10000000UL/#define SCALE 1000UL/' prog.c

exit_status "without a baseline the job fails (exit 3), it does not invent one" 3 bash job.sh
ok "... and stores none" test ! -e perf/baseline.xml
exit_status "the main branch's run (UPDATE_BASELINE=yes) stores the baseline and passes" 0 \
	env UPDATE_BASELINE=yes bash job.sh
ok "the baseline is stored as XML" xmllint --noout perf/baseline.xml
exit_status "an unchanged run passes" 0 bash job.sh
out=$(bash job.sh 2>&1)
case $out in *"performance: within limits"*) r=0 ;; *) r=1; diag "$out" ;; esac
_tap_result $r "the job says it is within limits"

sed -i 's/^#define EXTRA 0$/#define EXTRA 1/' prog.c
out=$(bash job.sh 2>&1)
is "a change with an extra call fails the job" "$?" 1
like "the log has a GitHub annotation at helper" "$out" \
	"^::error file=prog.c,line=[0-9]+,title=cgdiff%3A function helper::calls calls: 10 -> 11"
ok "the JUnit report is valid" xmllint --noout --schema "$CG_TOP/docs/cgdiff-junit.xsd" perf/cgdiff-junit.xml
is "the JUnit report names the regressions" \
	"$(grep -B1 '<failure' perf/cgdiff-junit.xml | sed -n 's/.*classname="\([^"]*\)" name="\([^"]*\)".*/\1 \2/p' | LC_ALL=C sort | tr '\n' ';')" \
	"cgdiff.arc main -&gt; helper;cgdiff.function helper;"
like "the summary says FAIL" "$(cat perf/summary.md)" "### cgdiff: FAIL"
ok "the Callgrind view of the change is written" grep -q '^events: csc_up csc_down$' perf/cgdiff.callgrind

printf 'this is not C\n' >prog.c
exit_status "a build that fails fails the job (set -e), it does not profile the old binary" 1 bash job.sh
done_testing
