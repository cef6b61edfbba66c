#!/bin/bash
# Endless and binary inputs fail at once with bounded memory: /dev/zero (or
# any NUL byte) named as a text format, an endless line from a pipe, and
# FIFOs or devices named as executables.  Each must give exit 3 (cgprof:
# gprof's exit 1) with a one-line message naming the file and where, and
# never hang (the `timeout` below only turns a hang into a failure) or grow
# (peak RSS from GNU time, against the 100 MB the reliability guide states).
. "$CG_TOP/tests/lib.sh"
require_tool timeout gcc
[ -x /usr/bin/time ] || { echo "Bail out! GNU time (/usr/bin/time) is missing"; exit 1; }
cd "$WORK"

# run_bounded LIMIT_KB CMD...: sets $rc, $err (stderr) and $rss (KB).
run_bounded() {
	local limit=$1; shift
	timeout 60 /usr/bin/time -o rss.txt -f '%M' "$@" >/dev/null 2>err.txt
	rc=$?
	err=$(cat err.txt)
	rss=$(tail -1 rss.txt 2>/dev/null)
	case $rss in ''|*[!0-9]*) rss=999999999 ;; esac
	[ "$rss" -le "$limit" ]
}

for f in callgrind cgtree fprof-analysis xml; do
	run_bounded 102400 "$BIN/cgconvert" -f $f -t xml -o out.xml /dev/zero
	ok_rss=$?
	is "/dev/zero as $f: exit 3" "$rc" 3
	like "/dev/zero as $f: says where and what" "$err" \
		'^cgconvert: /dev/zero(:1)?: NUL byte at byte offset 0: binary data, not a text profile$'
	is "/dev/zero as $f: peak memory under 100 MB" "$ok_rss" 0
	ok "/dev/zero as $f: no output file" test ! -e out.xml
done

# The same through a pipe (read as a stream, never reopened).
for f in callgrind cgtree fprof-analysis xml; do
	run_bounded 102400 "$BIN/cgconvert" -f $f -t xml - < <(head -c 50000000 /dev/zero)
	is "zeros through a pipe as $f: exit 3" "$rc" 3
	like "zeros through a pipe as $f: names <stdin>" "$err" '^cgconvert: <stdin>(:1)?: NUL byte at byte offset 0'
done

# A NUL byte in the middle of an otherwise good file: its line and offset.
printf '# callgrind format\nevents: Ir\nfn=main\n1 5\nfn=wo\0rk\n2 3\n' > nul.cg
run_bounded 102400 "$BIN/cgconvert" -t xml nul.cg
is "NUL inside a Callgrind file: exit 3" "$rc" 3
is "... names line 5 and byte offset 47" "$err" \
	'cgconvert: nul.cg:5: NUL byte at byte offset 47: binary data, not a text profile'
printf 'cgtree 1\n\0' > nul.cgt
run_bounded 102400 "$BIN/cgconvert" -f cgtree -t xml - < nul.cgt
like "NUL inside a cgtree stream: its byte offset" "$err" 'NUL byte at byte offset 9'

# An endless line without NUL bytes: refused at the line limit (16 MiB).
run_bounded 204800 "$BIN/cgconvert" -f callgrind -t xml - < <(head -c 100000000 /dev/zero | tr '\0' a)
ok_rss=$?
is "an endless line: exit 3" "$rc" 3
is "... saying so" "$err" 'cgconvert: <stdin>:1: line longer than 16777216 bytes: not a text profile'
is "... with bounded memory" "$ok_rss" 0
# Just under the limit is still a line (a long name is not an error).
{ printf '# callgrind format\nevents: Ir\nfn='; head -c 1000000 /dev/zero | tr '\0' f; printf '\n1 5\n'; } > long.cg
ok "a 1 MB function name is read" "$BIN/cgconvert" -t xml -o long.xml long.cg
like "... and kept" "$(grep -c 'ffffffffff' long.xml)" '^[1-9]'

# Executables that are not regular files are never opened for reading.
printf 'int main(void) { return 0; }\n' > t.c
gcc -pg -o t t.c && ./t
mkfifo fifo
run_bounded 102400 "$BIN/cgprof" -b fifo gmon.out
is "cgprof with a FIFO as executable: exit 1, as gprof for a non-executable" "$rc" 1
like "... in gprof's words" "$err" 'cgprof: fifo: not in executable format$'
run_bounded 102400 "$BIN/cgprof" -b /dev/zero gmon.out
is "cgprof with /dev/zero as executable: exit 1 (gprof says the same)" "$rc" 1
run_bounded 102400 "$BIN/cgconvert" -t xml --exe fifo gmon.out
is "cgconvert --exe FIFO: exit 3" "$rc" 3
like "... naming it" "$err" 'fifo: not in executable format$'

done_testing
