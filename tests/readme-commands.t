#!/usr/bin/env bash
# The README's "Using it" commands run verbatim, in order, in a directory
# holding what they name: prog.c (the demo program), an fprof trace
# (fprof.trace, written by erl), a pprof file (cpu.pprof), and the call
# trees the CI lines compare (baseline.cgtree and new.cgtree, base.N.cgt
# and new.N.cgt, from runs of the same program in calls mode, so cgdiff
# must pass).  perf record runs for real (as root or with
# perf_event_paranoid allowing it).  Each command must exit 0
# and print or write something; a command the README shows but the tools
# no longer accept fails here.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool gcc perf go
cd "$WORK" || exit 1
export PATH=$BIN:$PATH
cp "$CG_TOP/testdata/demo/demo.c" prog.c
cp "$CG_TOP/testdata/fprof/golden/fpdemo.trace" fprof.trace
gcc -finstrument-functions -o ci-prog prog.c
cgrun --time=calls -o baseline.cgtree ./ci-prog >/dev/null 2>&1
cgrun --time=calls -o new.cgtree ./ci-prog >/dev/null 2>&1
# a pprof file as Go writes it (gzipped profile.proto), and five runs per
# side for the repeated-runs line (deterministic: the comparison passes)
cgconvert -t pprof -o cpu.pprof baseline.cgtree
for i in 1 2 3 4 5; do
	cgrun --time=calls -o base.$i.cgt ./ci-prog >/dev/null 2>&1
	cgrun --time=calls -o new.$i.cgt ./ci-prog >/dev/null 2>&1
done

block=$(awk '/^## Using it/ { on = 1 } on && /^```sh/ { inblock = 1; next }
	inblock && /^```/ { exit } inblock' "$CG_TOP/README.md")
n=$(printf '%s\n' "$block" | grep -cv '^\(#.*\)\?$')
like "README: the Using it block has its commands" "$n" '^[1-9][0-9]+$'
while IFS= read -r line; do
	case $line in ''|'#'*) continue ;; esac
	before=$(ls -l --time-style=+%s.%N | md5sum)
	out=$(bash -c "$line" 2>&1 </dev/null); rc=$?
	after=$(ls -l --time-style=+%s.%N | md5sum)
	if [ "$rc" -eq 0 ] && { [ -n "$out" ] || [ "$before" != "$after" ]; }; then
		_tap_result 0 "README: $line"
	else
		_tap_result 1 "README: $line"
		diag "exit $rc, output:" "$out" | head -20
	fi
done <<<"$block"
ok "README: the flame graph is an SVG file" grep -q '<svg ' prog.svg
ok "README: the Callgrind file of the fprof trace has one part" \
	test "$(grep -c '^events:' erl.callgrind)" -eq 1
done_testing
