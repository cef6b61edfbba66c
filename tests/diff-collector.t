#!/bin/bash
# cgdiff on collector profiles in calls mode (cgrun --time=calls: call
# sequence counts, exact): two runs of the unchanged program differ in
# nothing; a slower function (more calls) and an extra call are flagged
# exactly, with exit 1.
. "$CG_TOP/tests/lib.sh"
require_tool gcc

src=$CG_TOP/testdata/diff/prog.c
cd "$WORK" || exit 1
build() {  # name cflags...
	local n=$1; shift
	gcc -finstrument-functions -O1 -g -DSCALE=1000 "$@" -o "$n" "$src"
}
build base && build slow -DSLOW=12 && build extra -DEXTRA=1 ||
	{ echo "Bail out! cannot build $src"; exit 1; }
for run in base:base1 base:base2 slow:slow extra:extra; do
	"$BIN/cgrun" --time=calls -o "${run#*:}.cgt" "./${run%:*}" >/dev/null 2>&1 ||
		{ echo "Bail out! cgrun failed on ${run%:*}"; exit 1; }
done
failing() {
	sed -n 's/^not ok [0-9]* - //p' | LC_ALL=C sort | tr '\n' ';'
}

# Unchanged: every value of every function and arc is identical.
exit_status "unchanged program: exit 0 under the default rules" 0 \
	"$BIN/cgdiff" base1.cgt base2.cgt
exit_status "unchanged program: no change at all (self, inclusive, calls, arcs, total)" 0 \
	"$BIN/cgdiff" --fail 'self<>0' --fail 'inclusive<>0' --fail 'calls<>0' \
	--fail 'arcs<>0' --fail 'total<>0' base1.cgt base2.cgt
"$BIN/cgdiff" -t xml base1.cgt base2.cgt >same.xml
is "unchanged program: the XML reports no non-zero delta" \
	"$(grep -c 'delta="[^0]' same.xml)" 0
grep -q 'kind="exact"' same.xml
is "call sequence counts are an exact event" "$?" 0

# Slower target(): it calls step() 12 times as often.
"$BIN/cgdiff" -t tap base1.cgt slow.cgt >slow.tap
is "slower target(): exit 1" "$?" 1
is "slower target(): exactly step and target -> step fail" \
	"$(failing <slow.tap)" "arc target -> step;function step;"
"$BIN/cgdiff" -t tap --fail 'inclusive(target)>10%' base1.cgt slow.cgt >incl.tap
is "inclusive(target)>10%: only target fails" "$(failing <incl.tap)" "function target;"
grep -q "exact: any change is real" slow.tap
is "the report says the change is exact" "$?" 0

# Extra call of helper() from main().
"$BIN/cgdiff" -t tap base1.cgt extra.cgt >extra.tap
is "extra call: exit 1" "$?" 1
is "extra call: exactly helper and main -> helper fail" \
	"$(failing <extra.tap)" "arc main -> helper;function helper;"
exit_status "extra call: total>3% does not fire on one call in ~100" 0 \
	"$BIN/cgdiff" --fail 'total>3%' base1.cgt extra.cgt
exit_status "extra call: total>0 fires" 1 "$BIN/cgdiff" --fail 'total>0' base1.cgt extra.cgt
exit_status "renaming helper on the base side (--map) makes it a new function" 1 \
	"$BIN/cgdiff" --map helper=helper2 --fail 'self(helper)>0' base1.cgt base2.cgt
done_testing
