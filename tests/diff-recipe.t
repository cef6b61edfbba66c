#!/bin/bash
# docs/ci-recipe.md's job script, run as written: the first run stores the
# baseline and passes, an unchanged run passes, a change that adds a call
# fails with exit 1 and leaves the TAP and Callgrind reports.
. "$CG_TOP/tests/lib.sh"
require_tool gcc prove

cd "$WORK" || exit 1
sed -n '/^```sh ci-recipe$/,/^```$/p' "$CG_TOP/docs/ci-recipe.md" | sed '1d;$d' >job.sh
ok "the recipe has a job script" test -s job.sh
export PATH="$BIN:$PATH"
cp "$CG_TOP/testdata/diff/prog.c" prog.c
sed -i 's/#define SCALE 10000000UL/#define SCALE 1000UL/' prog.c

exit_status "first run stores the baseline and passes" 0 sh job.sh
ok "the baseline is stored as XML" xmllint --noout baseline.xml
exit_status "an unchanged run passes" 0 sh job.sh
out=$(sh job.sh 2>&1)
case $out in *"performance: within limits"*) r=0 ;; *) r=1; diag "$out" ;; esac
_tap_result $r "the job says it is within limits"

sed -i 's/^#define EXTRA 0$/#define EXTRA 1/' prog.c
exit_status "a change with an extra call fails the job" 1 sh job.sh
is "the TAP report names the regressions" \
	"$(sed -n 's/^not ok [0-9]* - //p' cgdiff.tap | LC_ALL=C sort | tr '\n' ';')" \
	"arc main -> helper;function helper;"
not_ok_cmd "prove reports the TAP as failing" prove -e cat cgdiff.tap
ok "the Callgrind view of the change is written" grep -q '^events: csc_up csc_down$' cgdiff.callgrind
done_testing
