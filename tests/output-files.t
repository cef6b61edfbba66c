#!/usr/bin/env bash
# Output files of the tools (cgconvert, cgdiff, cgprof -s): they appear
# whole or not at all, nobody can redirect them with a planted link, they
# keep the mode of the file they replace, a symlinked -o is written
# through, and a killed conversion leaves nothing behind.  Every check runs
# twice: with O_TMPFILE (the normal path) and with the named-temporary
# fallback (CG_OUTPUT_NAMED_TEMP=1).
. "${CG_TOP:-.}/tests/lib.sh"
require_tool gcc
cd "$WORK" || exit 1

# A small Callgrind profile, and a big one (a few seconds of work) to kill.
cat > small.cg <<'CG'
# callgrind format
events: Ir
fn=main
5
cfn=work
calls=2 0
0 7
fn=work
7
CG
awk 'BEGIN { print "# callgrind format"; print "events: Ir";
	for (i = 0; i < 250000; i++) { printf "fn=f%d\n1 %d\ncfn=f%d\ncalls=1 0\n0 1\n", i, i + 1, i + 1 } }' > big.cg

leftovers() {  # DIR: anything but the expected files
	find "$1" -name '*.tmp*' | head -5
}

for mode in tmpfile named; do
	if [ $mode = named ]; then export CG_OUTPUT_NAMED_TEMP=1; else unset CG_OUTPUT_NAMED_TEMP; fi
	d=$WORK/$mode; mkdir -p "$d"

	# The mode of the replaced file survives.
	echo old > "$d/priv.xml"; chmod 600 "$d/priv.xml"
	ok "$mode: cgconvert overwrites an existing output" "$BIN/cgconvert" -t xml -o "$d/priv.xml" small.cg
	is "$mode: a 0600 output stays 0600" "$(stat -c %a "$d/priv.xml")" 600
	echo old > "$d/grp.txt"; chmod 640 "$d/grp.txt"
	"$BIN/cgdiff" -o "$d/grp.txt" small.cg small.cg >/dev/null 2>&1
	is "$mode: cgdiff keeps a 0640 output 0640" "$(stat -c %a "$d/grp.txt")" 640
	(umask 027; "$BIN/cgconvert" -t xml -o "$d/new.xml" small.cg)
	is "$mode: a new output gets the umask's mode" "$(stat -c %a "$d/new.xml")" 640

	# -o through a symbolic link: the target is replaced, the link stays.
	mkdir -p "$d/real"; echo old > "$d/real/target.xml"
	ln -s real/target.xml "$d/link.xml"
	ok "$mode: -o a symlink converts" "$BIN/cgconvert" -t xml -o "$d/link.xml" small.cg
	ok "$mode: the link is still a link" test -L "$d/link.xml"
	ok "$mode: its target got the output" grep -q '<callgraph' "$d/real/target.xml"
	ln -s real/dangling.xml "$d/dangling.xml"
	ok "$mode: -o a dangling symlink creates its target" "$BIN/cgconvert" -t xml -o "$d/dangling.xml" small.cg
	ok "$mode: ... through the link" grep -q '<callgraph' "$d/real/dangling.xml"

	# Links planted where temporary files could be named are never followed.
	echo precious > "$d/precious"
	for s in 0000000000000000 tmp tmpXXXXXX 1 ffffffffffffffff; do
		ln -s precious "$d/out.xml.tmp$s"
	done
	ok "$mode: conversion with planted links beside the output" "$BIN/cgconvert" -t xml -o "$d/out.xml" small.cg
	is "$mode: the planted links' target is untouched" "$(cat "$d/precious")" precious
	rm -f "$d"/out.xml.tmp*

	# Not a regular file: written in place, never replaced.
	ok "$mode: -o /dev/null" "$BIN/cgconvert" -t xml -o /dev/null small.cg
	ok "$mode: /dev/null is still a character device" test -c /dev/null
	mkdir -p "$d/adir"
	exit_status "$mode: -o a directory: exit 3" 3 "$BIN/cgconvert" -t xml -o "$d/adir" small.cg
	like "$mode: ... saying so" "$("$BIN/cgconvert" -t xml -o "$d/adir" small.cg 2>&1)" 'adir: is a directory'

	# A conversion killed mid-write leaves no temporary file, and the
	# previous output intact.
	echo previous > "$d/big.xml"
	# Killed while reading and again while writing (once the output file
	# is open: a named temporary file exists, or the process holds an
	# unnamed one in the directory); SIGKILL can only be survived by the
	# unnamed file.
	sigs="INT TERM HUP"; [ $mode = tmpfile ] && sigs="$sigs KILL"
	for sig in $sigs; do
		for when in reading writing; do
			# (a background job of a script ignores SIGINT unless told not to)
			(trap - EXIT; exec env --default-signal=INT "$BIN/cgconvert" -t xml -o "$d/big.xml" big.cg) &
			pid=$!
			# the signal is meant for cgconvert, not the shell before its exec
			for _ in $(seq 200); do
				[ "$(cat /proc/$pid/comm 2>/dev/null)" = cgconvert ] && break
				sleep 0.01
			done
			if [ $when = writing ]; then
				for _ in $(seq 200); do
					ls -l /proc/$pid/fd 2>/dev/null | grep -q "$d/" && break
					sleep 0.02
				done
			fi
			kill -$sig $pid 2>/dev/null; wait $pid 2>/dev/null
			is "$mode: SIG$sig while $when leaves no temporary file" "$(leftovers "$d")" ""
			ok "$mode: ... and the output is the old file" grep -qx previous "$d/big.xml"
		done
	done
	is "$mode: no temporary file left anywhere" "$(leftovers "$d")" ""
done
unset CG_OUTPUT_NAMED_TEMP

# cgprof -s writes gmon.sum the same way.
cat > p.c <<'C'
int f(int x) { return x * 2; }
int main(void) { int s = 0; for (int i = 0; i < 1000; i++) s += f(i); return s == 0; }
C
gcc -pg -o p p.c && ./p
echo old > gmon.sum; chmod 600 gmon.sum
ok "cgprof -s writes gmon.sum" "$BIN/cgprof" -s -b p gmon.out
is "gmon.sum keeps its 0600 mode" "$(stat -c %a gmon.sum)" 600
done_testing
