#!/bin/bash
# cgdiff on gprof profiles (gcc -pg, gmon.out read by the gmon reader):
# a slower function and an extra call are flagged exactly, with exit 1;
# 20 repeated pairs of the unchanged program raise no false alarm; the TAP
# output is read by prove.
. "$CG_TOP/tests/lib.sh"
require_tool gcc prove

src=$CG_TOP/testdata/diff/prog.c
cd "$WORK" || exit 1
gcc -pg -O1 -g -o base "$src" &&
gcc -pg -O1 -g -DSLOW=12 -o slow "$src" &&
gcc -pg -O1 -g -DEXTRA=1 -o extra "$src" || { echo "Bail out! cannot build $src"; exit 1; }

profile() {  # executable output.gmon
	./"$1" >/dev/null && mv gmon.out "$2"
}
# Names of the items cgdiff's TAP output reports as failing, sorted.
failing() {
	sed -n 's/^not ok [0-9]* - //p' | LC_ALL=C sort | tr '\n' ';'
}

for i in $(seq 0 20); do profile base base$i.gmon || exit 1; done
profile slow slow.gmon && profile extra extra.gmon || exit 1

# Unchanged program: 20 pairs of consecutive runs, default rules.
alarms=0
for i in $(seq 1 20); do
	"$BIN/cgdiff" --exe base -t tap -o pair$i.tap base$((i - 1)).gmon base$i.gmon
	st=$?
	if [ $st -ne 0 ]; then alarms=$((alarms + 1)); diag "pair $i: exit $st"; sed 's/^/# /' pair$i.tap | grep -v '^# ok'; fi
done
is "unchanged program: no false alarm over 20 sampled pairs" "$alarms" 0
is "unchanged program: every pair checked the same items" \
	"$(cat pair*.tap | grep -c '^ok')" "$((20 * $(grep -c '^ok' pair1.tap)))"

# The slower function: its self time beats the noise; its extra calls to
# step() are exact changes.
"$BIN/cgdiff" --base-exe base --new-exe slow -t tap base0.gmon slow.gmon >slow.tap
is "slower target(): exit 1" "$?" 1
is "slower target(): exactly target, step and the arc target -> step fail" \
	"$(failing <slow.tap)" "arc target -> step;function step;function target;"
grep -q "rule 'self>5%'.*exceeds 5% and the sampling noise" slow.tap
is "the report says which rule flagged target and why" "$?" 0
exit_status "sampled time only (self>5%): target flagged, exit 1" 1 \
	"$BIN/cgdiff" --base-exe base --new-exe slow --fail 'self>5%' base0.gmon slow.gmon
"$BIN/cgdiff" --base-exe base --new-exe slow -t tap --fail 'self>5%' base0.gmon slow.gmon >self.tap
is "sampled time only: only target fails" "$(failing <self.tap)" "function target;"
exit_status "inclusive(main) grows by more than 2%: exit 1" 1 \
	"$BIN/cgdiff" --base-exe base --new-exe slow --fail 'inclusive(main)>2%' base0.gmon slow.gmon
exit_status "a threshold above the change (5 s of samples) passes: exit 0" 0 \
	"$BIN/cgdiff" --base-exe base --new-exe slow --fail 'self>5s' base0.gmon slow.gmon

# The extra call: exact call counts, whatever the sampling noise.
"$BIN/cgdiff" --base-exe base --new-exe extra -t tap base0.gmon extra.gmon >extra.tap
is "extra call: exit 1" "$?" 1
is "extra call: exactly helper and main -> helper fail" \
	"$(failing <extra.tap)" "arc main -> helper;function helper;"

# prove reads cgdiff's TAP: a regression fails the harness, no change passes.
printf '#!/bin/sh\nexec "%s" --base-exe base --new-exe extra -t tap base0.gmon extra.gmon\n' "$BIN/cgdiff" >regress.t
printf '#!/bin/sh\nexec "%s" --exe base -t tap base0.gmon base1.gmon\n' "$BIN/cgdiff" >same.t
chmod +x regress.t same.t
out=$(prove ./regress.t 2>&1)
st=$?
is "prove fails on the regression" "$([ $st -ne 0 ] && echo failed)" failed
echo "$out" | grep -q "Failed tests*: *[0-9]"
is "prove names the failing tests" "$?" 0
ok "prove passes the unchanged pair" prove ./same.t

# Cycles as gprof finds them: work moved from odd() to even() inside the
# even/odd recursion is a change per function, none for the cycle.
gcc -pg -O1 -g -o r0 "$CG_TOP/testdata/diff/recurse.c" &&
gcc -pg -O1 -g -DMOVE -o rm "$CG_TOP/testdata/diff/recurse.c" &&
./r0 >/dev/null && mv gmon.out r0.gmon && ./rm >/dev/null && mv gmon.out rm.gmon ||
	{ echo "Bail out! cannot profile recurse.c"; exit 1; }
exit_status "recursion: the calls moved from odd to even fail without --cycles" 1 \
	"$BIN/cgdiff" --base-exe r0 --new-exe rm r0.gmon rm.gmon
"$BIN/cgdiff" --cycles --base-exe r0 --new-exe rm -t tap r0.gmon rm.gmon >cyc.tap
is "recursion with --cycles: the cycle is unchanged, exit 0" "$?" 0
grep -q '^ok [0-9]* - arc main -> <cycle even>$' cyc.tap
is "recursion with --cycles: main calls <cycle even>" "$?" 0

# Usage and input errors.
exit_status "bad rule: exit 2" 2 "$BIN/cgdiff" --exe base --fail 'speed>1' base0.gmon base1.gmon
exit_status "one profile only: exit 2" 2 "$BIN/cgdiff" base0.gmon
exit_status "unknown event: exit 2" 2 "$BIN/cgdiff" --exe base --event nope base0.gmon base1.gmon
head -c 100 base0.gmon >trunc.gmon
exit_status "truncated gmon.out: exit 3" 3 "$BIN/cgdiff" --exe base base0.gmon trunc.gmon
exit_status "missing file: exit 3" 3 "$BIN/cgdiff" --exe base base0.gmon nothere.gmon
msg=$("$BIN/cgdiff" --exe base base0.gmon nothere.gmon 2>&1 >/dev/null)
case $msg in "cgdiff: "*nothere.gmon*) r=0 ;; *) r=1; diag "$msg" ;; esac
_tap_result $r "errors are reported as 'cgdiff: FILE: message'"
done_testing
