#!/usr/bin/env bash
# cgrun's command line: help, version, usage errors (exit 2), a program
# that cannot run (127), an uninstrumented program (no profile, said so),
# the program's exit status passed through, %p in the output name; the
# one-line summary (--quiet silences it), write failures reported as such
# (/dev/full, a directory, RLIMIT_FSIZE), signals sent to cgrun forwarded
# to the program, whose ending cgrun reports and reproduces.
. "${CG_TOP:-.}/tests/lib.sh"
P=$CG_BUILD/tests/collector
cd "$WORK" || exit 1

ok "--help" sh -c "'$BIN/cgrun' --help | grep -q '^Usage: cgrun'"
is "--version" "$("$BIN/cgrun" --version)" "cgrun (callgraph) 0.1.0"
exit_status "no program: usage error" 2 "$BIN/cgrun"
exit_status "--time=bogus: usage error" 2 "$BIN/cgrun" --time=bogus true
exit_status "--hz=0: usage error" 2 "$BIN/cgrun" --hz=0 true
exit_status "unknown option: usage error" 2 "$BIN/cgrun" --frobnicate true
exit_status "a program that cannot run: 127" 127 "$BIN/cgrun" ./no-such-program
err=$("$BIN/cgrun" ./no-such-program 2>&1)
is "a program that cannot run: one-line message" "$err" \
	"cgrun: ./no-such-program: cannot run: No such file or directory"
err=$("$BIN/cgrun" -o u.cgt true 2>&1); rc=$?
is "an uninstrumented program: exit 0, no profile, and why" "$rc:$(test -e u.cgt; echo $?):$err" \
	"0:1:cgrun: no profile written: true made no instrumented calls (build it with -finstrument-functions)"
exit_status "the program's exit status is passed through" 3 "$BIN/cgrun" sh -c 'exit 3'
"$BIN/cgrun" --time=calls -o 'p.%p.cgt' "$P/calls" >/dev/null 2>&1
ok "%p in the output name becomes the pid" sh -c 'ls | grep -qE "^p\.[0-9]+\.cgt$"'
"$BIN/cgrun" --time=calls -- "$P/calls" >/dev/null 2>&1
ok "default output cgtree.out in the current directory, after --" test -s cgtree.out
exit_status "a missing collector library: usage error" 2 env CGRUN_LIBRARY=/nonexistent "$BIN/cgrun" true
exit_status "--interval=0: usage error" 2 "$BIN/cgrun" --interval=0 true
exit_status "--interval=x: usage error" 2 "$BIN/cgrun" --interval=x true

err=$("$BIN/cgrun" --time=calls -o s.cgt "$P/calls" 2>&1 >/dev/null)
is "the summary: one line, file, calls, ending" "$err" \
	"cgrun: profile written to $PWD/s.cgt (16 calls); $P/calls exited with status 0"
is "--quiet: nothing on stderr" "$("$BIN/cgrun" --quiet --time=calls -o s.cgt "$P/calls" 2>&1 >/dev/null)" ""
err=$("$BIN/cgrun" --hz=100 -o cpu.cgt "$P/calls" 2>&1 >/dev/null)
ok "cpu mode: the summary has samples, overhead and lost ticks" \
	sh -c "printf '%s\n' '$err' | grep -qE '^cgrun: profile written to .*cpu.cgt \([0-9]+ calls(, [0-9]+ samples, collector overhead [0-9]+ \([0-9.]+%\), lost [0-9]+)?\); '"
err=$("$BIN/cgrun" --time=calls -o e.cgt "$P/ends" _exit 4 2>&1 >/dev/null); rc=$?
is "_exit: status and summary" "$rc:$err" \
	"4:cgrun: profile written to $PWD/e.cgt (10 calls); $P/ends exited with status 4"
err=$(ulimit -c 0; "$BIN/cgrun" --time=calls -o e.cgt "$P/ends" segv 2>&1 >/dev/null); rc=$?
is "a program killed by a signal: named, and the profile still reported" "$rc:$err" \
	"139:cgrun: profile written to $PWD/e.cgt (10 calls); $P/ends was killed by signal 11 (SIGSEGV)"

# Write failures are write failures, with the path and the error.
err=$("$BIN/cgrun" --time=calls -o /dev/full "$P/calls" 2>&1 >/dev/null); rc=$?
is "-o /dev/full: the write failed, said so" "$rc:$err" \
	"0:cgrun: the profile could not be written: /dev/full: No space left on device (errno 28); $P/calls exited with status 0"
mkdir adir
err=$("$BIN/cgrun" --time=calls -o adir "$P/calls" 2>&1 >/dev/null)
is "-o DIRECTORY: the write failed, said so" "$err" \
	"cgrun: the profile could not be written: $PWD/adir: Is a directory (errno 21); $P/calls exited with status 0"
err=$(ulimit -f 1; "$BIN/cgrun" --time=calls -o big.cgt "$P/fanout" 2>&1 >/dev/null); rc=$?
is "RLIMIT_FSIZE: the write failed with EFBIG, the program was not killed" "$rc:$err" \
	"0:cgrun: the profile could not be written: $PWD/big.cgt: File too large (errno 27); $P/fanout exited with status 0"
is "RLIMIT_FSIZE: no file and no temporary left" "$(ls -a | grep -c 'big')" 0
err=$(env CGCOLLECT_OUTPUT=/dev/full CGCOLLECT_TIME=calls LD_PRELOAD="$CG_BUILD/lib/libcgcollect.so" "$P/calls" 2>&1 >/dev/null)
is "without cgrun the collector says so itself" "$err" \
	"libcgcollect: cannot write the profile /dev/full: errno 28 (ENOSPC)"

# Signals sent to cgrun go to the program, which writes its profile; cgrun
# waits for it and ends the same way (as a shell would see it: 128+N).
wait_for() { local i=0; while [ ! -e "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done; }
for sig in TERM INT HUP; do
	rm -f ready f.cgt
	env --default-signal=INT "$BIN/cgrun" --time=calls -o f.cgt "$P/ends" wait ready >/dev/null 2>"$sig.err" &
	job=$!
	wait_for ready
	kill -"$sig" $job
	wait $job
	rc=$?
	n=$(kill -l $sig)
	is "SIG$sig to cgrun: forwarded; cgrun exits like the program ($((128 + n)))" "$rc" "$((128 + n))"
	is "SIG$sig to cgrun: the program wrote its profile" "$(grep '^ended' f.cgt)" "ended signal $n SIG$sig"
	is "SIG$sig to cgrun: the summary names the signal" "$(cat "$sig.err")" \
		"cgrun: profile written to $PWD/f.cgt (12 calls); $P/ends was killed by signal $n (SIG$sig)"
done
rm -f ready f.cgt
"$BIN/cgrun" --time=calls -o f.cgt "$P/ends" handler ready >/dev/null 2>/dev/null &
job=$!
wait_for ready
kill -TERM $job
wait $job
is "SIGTERM to cgrun, the program handles it and exits 7: cgrun exits 7" "$?" 7
done_testing
