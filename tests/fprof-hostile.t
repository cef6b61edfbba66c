#!/bin/bash
# Hostile fprof traces: what binary_to_term cannot decode is an error at
# the byte at fault (exit 3, no output file), never a message skipped
# with a warning; and an endless input (/dev/zero, named or through a
# pipe) stops at its first bad record instead of reading forever.
. "$CG_TOP/tests/lib.sh"
CV=$BIN/cgconvert
G=$CG_TOP/testdata/fprof/golden
cd "$WORK" || exit 1
size=$(stat -c %s "$G/synth.trace")

# record PAYLOAD-BYTES...: a trace-port record (tag 0, big-endian size).
record() {
	local n=$#
	printf '\000'
	printf "\\$(printf %03o $((n >> 24 & 255)))\\$(printf %03o $((n >> 16 & 255)))"
	printf "\\$(printf %03o $((n >> 8 & 255)))\\$(printf %03o $((n & 255)))"
	local b
	for b in "$@"; do printf "\\$(printf %03o "$b")"; done
}

# expect_error NAME FILE OFFSET WHAT: exit 3, the message, no output.
expect_error() {
	"$CV" -f fprof-trace -t fprof -o "$1.out" "$2" 2>err
	is "$1: exit 3" "$?" 3
	is "$1: one error naming the file, what and the byte offset" \
		"$(cat err)" "cgconvert: $2: undecodable term: $4 at byte offset $3 (record $5)"
	is "$1: no output file" "$([ -e "$1.out" ] && echo exists || echo none)" none
}

nrec() {  # records in a trace: walk the 5-byte headers
	od -An -v -tu1 "$1" | tr -s ' ' '\n' | sed '/^$/d' | awk '
		{ b[n++] = $1 } END { i = 0; r = 0
		  while (i + 5 <= n) { s = b[i+1]*16777216 + b[i+2]*65536 + b[i+3]*256 + b[i+4]; i += 5 + s; r++ }
		  print r }'
}
r=$(nrec "$G/synth.trace")

# a compressed term (tag 80) after the good records
{ cat "$G/synth.trace"; record 131 80 0 0 0 9 120 156 1 2 3; } >compressed.trace
expect_error compressed compressed.trace $((size + 6)) "compressed term (tag 80)" $((r + 1))
# first, before anything else
{ record 131 80 0 0 0 9 120 156 1 2 3; cat "$G/synth.trace"; } >compressed-first.trace
expect_error compressed-first compressed-first.trace 6 "compressed term (tag 80)" 1
# a list claiming 2^32 - 1 elements inside a {trace_ts, ...} tuple
{ cat "$G/synth.trace"; record 131 104 2 119 8 116 114 97 99 101 95 116 115 108 255 255 255 255 106; } >huge.trace
expect_error huge huge.trace $((size + 5 + 1 + 2 + 10)) \
	"term header claims more elements than the data holds" $((r + 1))
# a whole term followed by stray bytes: binary_to_term accepts it (the
# term is [], a message of no known kind), so it is skipped as before
{ cat "$G/synth.trace"; record 131 106 1 2; } >trailing.trace
"$CV" -f fprof-trace -t fprof -o trailing.out trailing.trace 2>err
is "trailing bytes after a term: converts" "$?" 0
like "trailing bytes after a term: skipped with a warning" "$(cat err)" "kind fprof does not know"
# (the records before the bad one are fine on their own)
"$CV" -f fprof-trace -t fprof -o good.out "$G/synth.trace"
is "the good records alone convert" "$?" 0

# endless input: fails at its first record (a timeout only guards a hang,
# and outside sanitizer builds a memory limit guards the machine)
[ -n "${CG_SANFLAGS:-}" ] || ulimit -v 4000000
timeout 60 "$CV" -f fprof-trace -t fprof -o zero.out /dev/zero 2>err
is "/dev/zero named: exit 3" "$?" 3
is "/dev/zero named: message" "$(cat err)" \
	"cgconvert: /dev/zero: corrupt record: payload does not start with version byte 131 at byte offset 0 (record 1)"
timeout 60 sh -c "cat /dev/zero | \"\$0\" -f fprof-trace -t fprof -o zero.out -" "$CV" 2>err
is "/dev/zero through a pipe: exit 3" "$?" 3
like "/dev/zero through a pipe: message" "$(cat err)" \
	'^cgconvert: .*: corrupt record: payload does not start with version byte 131 at byte offset 0 \(record 1\)$'
is "/dev/zero: no output file" "$([ -e zero.out ] && echo exists || echo none)" none
done_testing
