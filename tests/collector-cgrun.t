#!/usr/bin/env bash
# cgrun's command line: help, version, usage errors (exit 2), a program
# that cannot run (127), an uninstrumented program (no profile, said so),
# the program's exit status passed through, %p in the output name.
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
done_testing
