#!/usr/bin/env bash
# The hostile-input suite (issue 16): every case of testdata/hostile/cases.txt
# (input, command, expected exit status, expected message; see the head of
# that file), then two sweeps that cut real files at many points:
#  - a real valgrind --tool=callgrind file (plain, and with cache
#    simulation, whose summary: and totals: disagree): every cut either
#    fails with exit 3 or reads exactly like the whole file or like a
#    prefix that holds no function yet -- never a wrong report with exit 0;
#  - a real gmon.out: cgprof gives gprof's stdout, stderr and exit status
#    at every cut (gprof 2.40 runs live).
. "${CG_TOP:-.}/tests/lib.sh"
require_tool gcc gprof valgrind
T=$CG_TOP/testdata
export T WORK
PATH=$BIN:$PATH
export PATH

# ---- real inputs the cases may use -------------------------------------------
cd "$WORK" || exit 1
printf '%s\n' 'static int leaf(int i) { return i * 3 + 1; }' \
	'int main(void) { int s = 0; for (int i = 0; i < 100000; i++) s += leaf(i); return s == 42; }' \
	>pg.c
gcc -pg -O0 -o pg pg.c && ./pg || { echo "Bail out! cannot build and run a -pg program"; exit 1; }
export EXE=$WORK/pg GMON=$WORK/gmon.out
gcc -O0 -g -o vg "$T/convert/vgprog.c" || { echo "Bail out! cannot build vgprog"; exit 1; }
valgrind --tool=callgrind --callgrind-out-file="$WORK/plain.cg" ./vg >/dev/null 2>&1
valgrind --tool=callgrind --cache-sim=yes --dump-instr=yes --collect-jumps=yes \
	--callgrind-out-file="$WORK/full.cg" ./vg >/dev/null 2>&1
export CG=$WORK/plain.cg CGFULL=$WORK/full.cg
[ -s "$CG" ] && [ -s "$CGFULL" ] || { echo "Bail out! valgrind wrote no profile"; exit 1; }

# ---- the table ---------------------------------------------------------------------
ncases=0
while IFS= read -r line; do
	case $line in '#'* | '') continue ;; esac
	name=${line%% | *}; rest=${line#* | }
	input=${rest%% | *}; rest=${rest#* | }
	want=${rest%% | *}; rest=${rest#* | }
	msg=${rest%% | *}; cmd=${rest#* | }
	ncases=$((ncases + 1))
	case $input in
	-) IN=/dev/null ;;
	sh:*) IN=$WORK/in.$name; (eval "${input#sh:}") >"$IN" ;;
	*) IN=$T/$input ;;
	esac
	mkdir -p "$WORK/o.$name"
	OUT=$WORK/o.$name/out
	export IN OUT
	(eval "$cmd") >"$WORK/stdout" 2>"$WORK/stderr"
	got=$?
	err=$(cat "$WORK/stderr")
	problems=
	[ "$got" = "$want" ] || problems="exit $got, not $want;"
	if [ "$msg" = - ]; then
		[ -z "$err" ] || problems="$problems standard error not empty;"
	else
		# $IN in a message stands for the input's path
		msg=${msg//\$IN/$IN}
		case $err in *"$msg"*) ;; *) problems="$problems message lacks '$msg';" ;; esac
	fi
	[ "$(wc -l <"$WORK/stderr")" -le 1 ] || problems="$problems more than one line on standard error;"
	if [ "$want" != 0 ] && [ -n "$(ls -A "$WORK/o.$name")" ]; then
		problems="$problems output left behind: $(ls -A "$WORK/o.$name" | tr '\n' ' ');"
	fi
	if [ -z "$problems" ]; then
		_tap_result 0 "$name: exit $want${msg:+, $msg}"
	else
		_tap_result 1 "$name"
		diag "command: $cmd" "problems: $problems" "stderr: $err"
	fi
done <"$T/hostile/cases.txt"
note "$ncases cases from testdata/hostile/cases.txt"
[ "$ncases" -ge 60 ] || _tap_result 1 "the case table was read (only $ncases cases)"

# ---- Callgrind truncation sweep ----------------------------------------------------
# cut_points FILE: the first 64 bytes one by one, ~150 points spread over the
# file, and the last 64 bytes one by one (where totals: lives).
cut_points() {
	local size step k
	size=$(stat -c %s "$1")
	step=$((size / 150 + 1))
	{ seq 0 63; seq 64 "$step" "$size"; seq $((size > 64 ? size - 64 : 0)) "$size"; } | sort -nu
}

sweep_callgrind() {  # FILE LABEL
	local file=$1 label=$2 k rc wrong=0 refused=0 same=0 empty=0 crashed=0
	cgconvert -t xml -o "$WORK/whole.xml" "$file" 2>/dev/null ||
		{ _tap_result 1 "$label: the whole file reads"; return; }
	for k in $(cut_points "$file"); do
		head -c "$k" "$file" >"$WORK/cut.cg"
		rm -f "$WORK/cut.xml"
		cgconvert -f callgrind -t xml -o "$WORK/cut.xml" "$WORK/cut.cg" 2>/dev/null
		rc=$?
		if [ $rc = 3 ]; then
			refused=$((refused + 1))
			[ -e "$WORK/cut.xml" ] && { wrong=$((wrong + 1)); diag "cut at $k: exit 3 left an output"; }
		elif [ $rc != 0 ]; then
			crashed=$((crashed + 1)); diag "cut at $k: exit $rc"
		elif cmp -s "$WORK/cut.xml" "$WORK/whole.xml"; then
			same=$((same + 1))
		elif ! grep -q '<function' "$WORK/cut.xml"; then
			empty=$((empty + 1))   # a header-only prefix: nothing reported
		else
			wrong=$((wrong + 1)); diag "cut at $k of $label: exit 0 with a report unlike the whole file's"
		fi
	done
	note "$label: $refused cuts refused (exit 3), $same read as the whole file, $empty header-only"
	_tap_result $((wrong + crashed)) "$label: every cut is refused or reads like a valid prefix"
	[ "$refused" -gt 100 ] && [ "$same" -ge 1 ]
	_tap_result $? "$label: the sweep saw refusals and whole-file reads ($refused, $same)"
}
sweep_callgrind "$CG" "valgrind callgrind file"
sweep_callgrind "$CGFULL" "valgrind callgrind file with cache simulation"

# ---- gmon.out truncation sweep against gprof ---------------------------------------
size=$(stat -c %s "$GMON")
differ=0
points=0
for k in $(seq 0 120) $(seq 121 19 "$size") "$size"; do
	head -c "$k" "$GMON" >"$WORK/cut.out"
	(cd "$WORK" && gprof -b pg cut.out >g.out 2>g.err; echo $? >g.rc)
	(cd "$WORK" && cgprof -b pg cut.out >c.out 2>c.err; echo $? >c.rc)
	sed -i "s|^[^ ]*cgprof:|gprof:|" "$WORK/c.err"
	points=$((points + 1))
	if ! cmp -s "$WORK/g.out" "$WORK/c.out" || ! cmp -s "$WORK/g.err" "$WORK/c.err" ||
	   ! cmp -s "$WORK/g.rc" "$WORK/c.rc"; then
		differ=$((differ + 1))
		[ $differ -le 5 ] && diag "cut at $k: cgprof exit $(cat "$WORK/c.rc") '$(head -1 "$WORK/c.err")'," \
			"gprof exit $(cat "$WORK/g.rc") '$(head -1 "$WORK/g.err")'"
	fi
done
_tap_result $differ "gmon.out cut at $points points: cgprof answers as gprof at every one"
done_testing
