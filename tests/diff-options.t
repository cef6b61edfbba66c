#!/bin/bash
# cgdiff's matching options on collector profiles (calls mode): --parts
# (threads), --cycles, --transparent, --map, --ignore-file; the table's
# width.
. "$CG_TOP/tests/lib.sh"
require_tool gcc

cd "$WORK" || exit 1
cc_run() {  # name source cflags...: build with instrumentation, profile in calls mode
	local n=$1 src=$2; shift 2
	gcc -finstrument-functions -O1 -g -pthread "$@" -o "$n" "$CG_TOP/testdata/diff/$src" &&
		"$BIN/cgrun" --time=calls -o "$n.cgt" "./$n" >/dev/null 2>&1
}
cc_run t0 threads.c && cc_run t5 threads.c -DSHIFT=5 &&
cc_run r0 recurse.c && cc_run rm recurse.c -DMOVE || { echo "Bail out! cannot build or profile"; exit 1; }
failing() {
	sed -n 's/^not ok [0-9]* - //p' | LC_ALL=C sort | tr '\n' ';'
}

# Work moved between threads: the whole profile is unchanged...
exit_status "threads: the sum over threads is unchanged: exit 0" 0 "$BIN/cgdiff" t0.cgt t5.cgt
# ...but per part it is not.
"$BIN/cgdiff" --parts -t tap t0.cgt t5.cgt >parts.tap
is "threads --parts: exit 1" "$?" 1
is "threads --parts: exactly work and worker -> work in thread 1 fail" \
	"$(failing <parts.tap)" "arc worker -> work in thread 1;function work in thread 1;"
grep -q '^not ok .* in thread 0' parts.tap
is "threads --parts: the main thread's decrease is no regression" "$?" 1
exit_status "threads --parts with <> rules: both threads changed" 1 \
	"$BIN/cgdiff" --parts --fail 'calls<>0' t0.cgt t5.cgt
is "threads --parts with <>: both threads named" \
	"$("$BIN/cgdiff" --parts --fail 'calls<>0' -t tap t0.cgt t5.cgt | failing)" \
	"function work in thread 0;function work in thread 1;"

# Work moved inside a cycle (even <-> odd).
"$BIN/cgdiff" -t tap r0.cgt rm.cgt >nocycles.tap
is "cycle: without --cycles the moved calls fail" "$?" 1
is "cycle: the arcs to tick moved from odd to even" \
	"$(failing <nocycles.tap)" "arc even -> tick;"
exit_status "cycle: with --cycles the cycle as a whole is unchanged" 0 \
	"$BIN/cgdiff" --cycles --fail 'self<>0' --fail 'calls<>0' --fail 'arcs<>0' r0.cgt rm.cgt
"$BIN/cgdiff" --cycles -t tap r0.cgt rm.cgt >cycles.tap
grep -q '^ok [0-9]* - function <cycle even>$' cycles.tap
is "cycle: reported as <cycle even>" "$?" 0

# Transparent odd(): its calls of tick() become even()'s, on both sides.
"$BIN/cgdiff" --transparent=odd --fail 'self<>0' --fail 'calls<>0' --fail 'arcs<>0' \
	-t tap r0.cgt rm.cgt >transparent.tap
is "--transparent: the moved work is the same work: exit 0" "$?" 0
grep -q 'odd' transparent.tap
is "--transparent: odd is gone from both sides" "$?" 1
grep -q '^ok [0-9]* - arc even -> even$' transparent.tap
is "--transparent: even now calls itself" "$?" 0

# Renames and files.
exit_status "--map: a base function compared under its new name" 0 \
	"$BIN/cgdiff" --map work=work --fail 'self<>0' t0.cgt t5.cgt
exit_status "--map to a name the new profile lacks: both sides differ" 1 \
	"$BIN/cgdiff" --map work=labour --fail 'self<>0' t0.cgt t5.cgt
exit_status "--ignore-file and --ignore-object still match everything" 0 \
	"$BIN/cgdiff" --ignore-file --ignore-object --fail 'self<>0' t0.cgt t5.cgt
exit_status "--map without '=': exit 2" 2 "$BIN/cgdiff" --map work t0.cgt t5.cgt

# The table respects the terminal width (COLUMNS) and --width.
for w in 80 132; do
	long=$(COLUMNS=$w "$BIN/cgdiff" --parts --fail 'calls<>0' t0.cgt t5.cgt |
		sed '/^Limits exceeded/,$d' | awk -v w=$w 'length($0) > w' | wc -l)
	is "table rows fit COLUMNS=$w" "$long" 0
done
is "--width overrides COLUMNS" \
	"$(COLUMNS=200 "$BIN/cgdiff" --width=80 t0.cgt t5.cgt | grep -c 'calls(new)')" 0
done_testing
