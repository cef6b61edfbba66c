#!/usr/bin/env bash
# The collector's call tree on programs with known behaviour, in calls mode
# (deterministic): exact call counts, recursion folding (direct, mutual,
# three-way), noprofile, longjmp, the statically linked collector, and
# byte-identical files from two runs.  The tree is read back with awk + nm
# (testdata/collector/paths.sh), independently of libcallgraph.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool nm awk
P=$CG_BUILD/tests/collector
paths() { sh "$CG_TOP/testdata/collector/paths.sh" "$@"; }
run() {  # run OUT PROG [cgrun options]
	local out=$1 prog=$2; shift 2
	"$BIN/cgrun" --time=calls "$@" -o "$WORK/$out" "$P/$prog" >/dev/null 2>"$WORK/$out.err"
}

run calls.cgt calls
is "call counts are exact" "$(paths "$WORK/calls.cgt")" \
"main calls=1 redos=0 rec=0 cost=1
main/a calls=3 redos=0 rec=0 cost=3
main/a/leaf calls=6 redos=0 rec=0 cost=6
main/b calls=1 redos=0 rec=0 cost=1
main/b/leaf calls=5 redos=0 rec=0 cost=5"
is "cgrun says where the profile went, what it holds and how the program ended" \
	"$(cat "$WORK/calls.cgt.err")" \
	"cgrun: profile written to $WORK/calls.cgt (16 calls); $P/calls exited with status 0"
is "the file ends with 'end'" "$(tail -1 "$WORK/calls.cgt")" "end"

run calls2.cgt calls
cmp_files "calls mode: two runs give byte-identical files" "$WORK/calls2.cgt" "$WORK/calls.cgt"

(cd "$WORK" && CGCOLLECT_TIME=calls CGCOLLECT_OUTPUT=static.cgt "$P/calls-static" >/dev/null)
is "the statically linked collector gives the same tree" \
	"$(paths "$WORK/static.cgt")" "$(paths "$WORK/calls.cgt")"

run recur.cgt recur
is "recursion: direct stays in its node, mutual and 3-way fold into links" \
	"$(paths "$WORK/recur.cgt")" \
"main calls=1 redos=0 rec=0 cost=1
main/fact calls=1 redos=0 rec=4 cost=5
main/is_even calls=1 redos=0 rec=0 cost=1
main/is_even/is_odd calls=1 redos=0 rec=0 cost=2
main/is_even/is_odd/is_even calls=2 redos=0 rec=0 cost=2
main/is_even/is_odd/is_even/is_odd -> main/is_even/is_odd calls=1
main/ra calls=1 redos=0 rec=0 cost=1
main/ra/rb calls=1 redos=0 rec=0 cost=2
main/ra/rb/rc calls=2 redos=0 rec=0 cost=2
main/ra/rb/rc/ra calls=2 redos=0 rec=0 cost=2
main/ra/rb/rc/ra/rb -> main/ra/rb calls=1"

run noprof.cgt noprof
run noprof-np.cgt noprof --noprofile=wrap
is "without noprofile, wrap is a context" "$(paths "$WORK/noprof.cgt")" \
"main calls=1 redos=0 rec=0 cost=1
main/wrap calls=2 redos=0 rec=0 cost=2
main/wrap/target calls=4 redos=0 rec=0 cost=4
main/wrap/helper calls=2 redos=0 rec=0 cost=2
main/target calls=1 redos=0 rec=0 cost=1"
is "noprofile wrap: its callees hang under its caller" "$(paths "$WORK/noprof-np.cgt")" \
"main calls=1 redos=0 rec=0 cost=1
main/target calls=5 redos=0 rec=0 cost=5
main/helper calls=2 redos=0 rec=0 cost=2"
ok "the file records the noprofile request" grep -qx "noprofile wrap" "$WORK/noprof-np.cgt"

run jump.cgt jump
is "longjmp: calls after the jump hang under the frame that caught it; a call repeated from the same site is not recursion" \
	"$(paths "$WORK/jump.cgt")" \
"main calls=1 redos=0 rec=0 cost=1
main/again calls=1 redos=0 rec=0 cost=1
main/again/thrower calls=5 redos=0 rec=0 cost=5
main/outer calls=2 redos=0 rec=0 cost=2
main/outer/middle calls=2 redos=0 rec=0 cost=2
main/outer/middle/deep calls=2 redos=0 rec=0 cost=2
main/outer/after calls=4 redos=0 rec=0 cost=4
main/after calls=1 redos=0 rec=0 cost=1"
ok "longjmp: the resyncs are counted" grep -q "resyncs 5 status ok" "$WORK/jump.cgt"

run fanout.cgt fanout
want=$( { echo "main calls=1 redos=0 rec=0 cost=1"
	for i in $(seq -w 0 19); do echo "main/f$i calls=5 redos=0 rec=0 cost=5"; done
	for i in $(seq -w 0 19); do [ "$i" = 07 ] || echo "main/f07/f$i calls=5 redos=0 rec=0 cost=5"; done
	} | LC_ALL=C sort)
is "fan-out of 20 in a cycle (per-parent table): every count exact" \
	"$(paths "$WORK/fanout.cgt" | LC_ALL=C sort)" "$want"

# The control API (testdata/collector/progs/api.c, collector linked in).
out=$(cd "$WORK" && CGCOLLECT_TIME=calls CGCOLLECT_OUTPUT=api-end.cgt "$P/api" api-mid.cgt)
is "api: the program ran" "$out" 107
is "api: cgc_dump mid-run wrote what was counted so far" "$(paths "$WORK/api-mid.cgt")" \
"main calls=1 redos=0 rec=0 cost=1
main/phase calls=1 redos=0 rec=0 cost=1
main/phase/leaf calls=2 redos=0 rec=0 cost=2"
is "api: after reset only later calls count; disabled calls do not; noprofile by name; registered functions mix with C" \
	"$(paths "$WORK/api-end.cgt")" \
"main calls=0 redos=0 rec=0 cost=0
main/phase calls=1 redos=0 rec=0 cost=1
main/phase/leaf calls=3 redos=0 rec=0 cost=3
main/leaf calls=1 redos=0 rec=0 cost=1
main/script calls=1 redos=0 rec=0 cost=1
main/script/leaf calls=1 redos=0 rec=0 cost=1"
ok "api: registered functions keep their file and line" grep -qx "func [0-9]* name script x.scm 7" "$WORK/api-end.cgt"

# A target that is not a regular file is written in place, never renamed
# over (that would replace /dev/null with a file).
mkfifo "$WORK/fifo"
head -1 "$WORK/fifo" >"$WORK/fifo.out" &
reader=$!
(cd "$WORK" && CGCOLLECT_TIME=calls CGCOLLECT_OUTPUT=fifo LD_PRELOAD="$CG_BUILD/lib/libcgcollect.so" "$P/calls" >/dev/null)
wait $reader
is "a FIFO as output receives the profile" "$(cat "$WORK/fifo.out")" "# cgtree 1"
ok "a FIFO as output stays a FIFO" test -p "$WORK/fifo"

# Out of memory: a 250-byte cap on the tree (CGCOLLECT_MEMORY) holds two
# nodes; the program runs on, the collection stops, and the file says so.
out=$(cd "$WORK" && CGCOLLECT_MEMORY=250 CGCOLLECT_TIME=calls CGCOLLECT_OUTPUT=oom.cgt \
	LD_PRELOAD="$CG_BUILD/lib/libcgcollect.so" "$P/calls")
is "out of memory: the program is unaffected" "$out" 19
is "out of memory: the tree up to the failure" "$(paths "$WORK/oom.cgt")" \
"main calls=1 redos=0 rec=0 cost=1
main/a calls=1 redos=0 rec=0 cost=1"
ok "out of memory: the file says so" grep -q "status oom$" "$WORK/oom.cgt"
ok "out of memory: the file is still complete" sh -c "tail -1 '$WORK/oom.cgt' | grep -qx end"

done_testing
