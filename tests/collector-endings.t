#!/usr/bin/env bash
# A profile survives every ending (issue 12): exit, return, _exit, _Exit,
# abort, SIGSEGV/SIGFPE/SIGILL/SIGBUS, SIGTERM/SIGINT/SIGHUP, exec, and
# SIGKILL with periodic snapshots.  Each run leaves a readable file whose
# completed calls are right and whose `ended` record says how the run
# ended, and the exit status is the same as without the collector.  The
# program's own signal handlers still run; vfork children, dlclosed
# libraries and ucontext coroutines are followed.
. "${CG_TOP:-.}/tests/lib.sh"
P=$CG_BUILD/tests/collector
LIB=$CG_BUILD/lib/libcgcollect.so
paths() { sh "$CG_TOP/testdata/collector/paths.sh" "$@"; }
cd "$WORK" || exit 1
ulimit -c 0
KNOWN="main calls=1 redos=0 rec=0 cost=1
main/work calls=3 redos=0 rec=0 cost=3
main/work/leaf calls=6 redos=0 rec=0 cost=6"
tmpleft() { find "$WORK" -name '*.tmp*' | sed "s|$WORK/||" | tr '\n' ' '; }

# ending  expected-record  args...
check_end() {
	local want=$1; shift
	("$P/ends" "$@") >/dev/null 2>&1  # subshell: keeps bash's "Aborted" quiet
	local plain=$?
	rm -f e.cgt
	"$BIN/cgrun" --time=calls -o e.cgt "$P/ends" "$@" >/dev/null 2>&1
	local st=$?
	is "$*: exit status $plain as without the collector" "$st" "$plain"
	is "$*: the file says '$want'" "$(grep '^ended' e.cgt 2>&1)" "$want"
	is "$*: completed calls are right" "$(paths e.cgt | head -3)" "$KNOWN"
	ok "$*: the library reads it" "$CG_BUILD/tests/test_cgtree" --dump e.cgt
}
check_end "ended exit 3" exit 3
check_end "ended exit 0" return
check_end "ended _exit 4" _exit 4
check_end "ended _exit 5" _Exit 5
check_end "ended signal 6 SIGABRT" abort
check_end "ended signal 11 SIGSEGV" segv
check_end "ended signal 8 SIGFPE" fpe
check_end "ended signal 4 SIGILL" ill
check_end "ended signal 7 SIGBUS" bus

# Signals from outside, while the program waits.  env --default-signal:
# a non-interactive shell starts background jobs with SIGINT ignored (and
# an ignored signal must stay ignored under the collector, too).
wait_for() { local i=0; while [ ! -e "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done; }
for sig in TERM INT HUP; do
	rm -f ready e.cgt
	env --default-signal=INT "$BIN/cgrun" --time=calls -o e.cgt "$P/ends" wait ready >/dev/null 2>&1 &
	job=$!
	wait_for ready
	pkill -"$sig" -f "^$P/ends wait ready"
	wait $job
	st=$?
	n=$(kill -l "$sig")
	is "SIG$sig: cgrun exits 128+$n like a shell" "$st" "$((128 + n))"
	is "SIG$sig: the file says so" "$(grep '^ended' e.cgt)" "ended signal $n SIG$sig"
	is "SIG$sig: completed calls are right" "$(paths e.cgt | head -3)" "$KNOWN"
done
is "no temporary file after the signals" "$(tmpleft)" ""

# The program's own handlers, installed with sigaction and with signal:
# they run, the program decides (returns 7), and the file says exit 7.
for how in handler sighandler; do
	rm -f ready e.cgt
	CGCOLLECT_TIME=calls CGCOLLECT_OUTPUT=e.cgt LD_PRELOAD=$LIB "$P/ends" $how ready >/dev/null 2>&1 &
	job=$!
	wait_for ready
	kill -TERM $job
	wait $job
	is "$how: the program's SIGTERM handler ran and chose the exit status" "$?" 7
	is "$how: the file says exit 7" "$(grep '^ended' e.cgt)" "ended exit 7"
	ok "$how: the handler and what followed are in the tree" \
		sh -c "'$CG_TOP/testdata/collector/paths.sh' e.cgt | grep -q '^main/waiting/on_term calls=1 ' &&
		       '$CG_TOP/testdata/collector/paths.sh' e.cgt | grep -q '^main/after_signal calls=1 '"
done
is "signal() returns what sigaction() installed, and sigaction() reads back signal()'s" \
	"$(CGCOLLECT_OUTPUT=q.cgt LD_PRELOAD=$LIB "$P/ends" query)" ok

# SIGKILL cannot be caught: with --interval the last snapshot survives.
rm -f ready e.cgt
CGCOLLECT_INTERVAL=1 CGCOLLECT_TIME=calls CGCOLLECT_OUTPUT=e.cgt LD_PRELOAD=$LIB "$P/ends" spin ready >/dev/null 2>&1 &
job=$!
wait_for e.cgt
kill -KILL $job
wait $job 2>/dev/null
true
ok "SIGKILL with snapshots: the last snapshot is there" grep -qE '^ended snapshot [0-9]+$' e.cgt
is "SIGKILL with snapshots: completed calls are right" "$(paths e.cgt | head -3)" "$KNOWN"
ok "SIGKILL with snapshots: the spinning calls are counted" \
	sh -c "'$CG_TOP/testdata/collector/paths.sh' e.cgt | grep -qE '^main/spin_leaf calls=[1-9]'"
# And a SIGKILL at an arbitrary moment of a run that keeps writing
# snapshots leaves no temporary file (O_TMPFILE has no name until done).
rm -f ready e.cgt
CGCOLLECT_INTERVAL=1 CGCOLLECT_TIME=calls CGCOLLECT_OUTPUT=e.cgt LD_PRELOAD=$LIB "$P/ends" spin ready >/dev/null 2>&1 &
job=$!
wait_for ready
kill -KILL $job
wait $job 2>/dev/null
true
is "no temporary file after SIGKILL" "$(tmpleft)" ""

# exec: the image about to vanish writes its file; an instrumented
# successor writes FILE.exec instead of overwriting it.
rm -f x.cgt*
"$BIN/cgrun" --time=calls -o x.cgt "$P/ends" exec "$P/calls" >/dev/null 2>&1
is "exec: the first image's file says exec" "$(grep '^ended' x.cgt)" "ended exec $P/calls"
is "exec: the first image's calls" "$(paths x.cgt | head -3)" "$KNOWN"
is "exec: the successor wrote x.cgt.exec" "$(paths x.cgt.exec | head -2)" \
"main calls=1 redos=0 rec=0 cost=1
main/a calls=3 redos=0 rec=0 cost=3"
rm -f f.cgt*
"$BIN/cgrun" --time=calls -o f.cgt "$P/ends" forkexec "$P/calls" >/dev/null 2>&1
is "fork + exec: parent's file and the exec'd child's f.cgt.PID, nothing else" \
	"$(ls f.cgt* | sed 's/[0-9][0-9]*$/PID/' | tr '\n' ' ')" "f.cgt f.cgt.PID "

# vfork: the child's calls are not in the parent's tree.
rm -f v.cgt*
"$BIN/cgrun" --time=calls -o v.cgt "$P/ends" vfork >/dev/null 2>&1
is "vfork: the parent's tree has no in_child" "$(paths v.cgt)" "$KNOWN"
child=$(ls v.cgt.* 2>/dev/null)
is "vfork: the child's own file has its calls" "$(paths "$child" | grep in_child)" \
	"main/in_child calls=2 redos=0 rec=0 cost=2"

# dlclose: the plugin's functions keep their names.
"$BIN/cgrun" --time=calls -o d.cgt "$P/dl" "$P/libplugin.so" >/dev/null 2>&1
is "dlclose: the unloaded plugin is recorded" "$(grep -c "^object [0-9]* [^ ]* $P/libplugin.so\$" d.cgt)" 1
is "dlclose: its functions are named by the reader" \
	"$("$CG_BUILD/tests/test_cgtree" --dump d.cgt | grep -oE '^func plugin_[a-z]+ calls=[0-9]+' | sort)" \
"func plugin_fn calls=2
func plugin_leaf calls=4"

# ucontext coroutines: one shadow stack per context.
"$BIN/cgrun" --time=calls -o c.cgt "$P/coro" >/dev/null 2>&1
is "coroutines: each context has its own shadow stack" "$(paths c.cgt)" \
"main calls=1 redos=0 rec=0 cost=1
main/drive calls=1 redos=0 rec=0 cost=1
main/drive/producer calls=1 redos=0 rec=0 cost=1
main/drive/producer/produce_item calls=3 redos=0 rec=0 cost=3
main/drive/producer/yield calls=3 redos=0 rec=0 cost=3
main/drive/consumer_step calls=4 redos=0 rec=0 cost=4
main/after calls=2 redos=0 rec=0 cost=2"
ok "coroutines: no resync was needed" grep -q ' resyncs 0 ' c.cgt

done_testing
