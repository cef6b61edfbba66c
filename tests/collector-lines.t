#!/usr/bin/env bash
# Line-level samples end to end: a program with two hot loops in one
# function (the second runs three times the iterations of the same body),
# profiled in cpu mode, converted to Callgrind and annotated by the real
# callgrind_annotate.  The per-line ticks must sit on the loops' lines and
# add up to the function's self cost; the second loop's share must be
# about what gprof -l (the same source built with -pg) measures.  Then the
# collector's bounds: a table too small for the addresses keeps every tick
# on its context (counted as unplaced), and CGCOLLECT_LINES=0 writes none.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool gprof callgrind_annotate cc
cd "$WORK" || exit 1
src=$CG_TOP/testdata/collector/lines/twoloops.c
cp "$src" twoloops.c
ok "build with -finstrument-functions" cc -std=c11 -O0 -g -finstrument-functions -pthread -o tl-fi twoloops.c
ok "build with -pg" cc -std=c11 -O0 -g -pg -pthread -o tl-pg twoloops.c
n=200000000
ok "run under cgrun in cpu mode" "$BIN/cgrun" -q --time=cpu -o tl.cgt ./tl-fi $n
ok "run under gprof" sh -c "./tl-pg $n >/dev/null && test -s gmon.out"

# The file: addresses follow their node and never add up to more than it.
like "the tree carries instruction addresses" "$(grep -c '^at ' tl.cgt)" '^[1-9]'
is "addresses add up to at most their node's ticks" "$(awk '
	/^node / { if (id != "" && sum > cost) bad++; id = $2; cost = $8; sum = 0 }
	/^at / { if ($2 != id) bad++; sum += $5 }
	END { if (sum > cost) bad++; print bad + 0 }' tl.cgt)" 0
like "endthread says how many ticks had no room" "$(grep '^endthread' tl.cgt)" ' unplaced [0-9]+ '

# The node records do not depend on `at`: a reader skipping them (as
# readers older than the record do) sees the same costs.
grep -v '^at ' tl.cgt >noat.cgt
"$BIN/cgconvert" -t gprof -o with-at.txt tl.cgt
"$BIN/cgconvert" -t gprof -o without-at.txt noat.cgt
cmp_files "the same gprof report without the 'at' records" with-at.txt without-at.txt

ok "to Callgrind" "$BIN/cgconvert" -t callgrind -o tl.callgrind tl.cgt
like "the Callgrind file has instruction and line positions" "$(grep '^positions:' tl.callgrind)" \
	'^positions: instr line$'
callgrind_annotate --auto=yes tl.callgrind >annotated.txt
# From callgrind_annotate's function list, the self cost of work() and of
# all functions of twoloops.c (main may have a tick or two, in libc);
# from the annotated source (COUNT (PCT)  SOURCE; call lines "=>" left
# out) the ticks per line.
func_self() {  # FILE REGEX -> the summed self cost of the matching functions
	awk -v re="$2" '/^-- Auto-annotated source:/ { exit }
		/file:function/ { on = 1; next } on { for (i = 2; i <= NF; i++) if ($i ~ re) {
			c = $1; gsub(",", "", c); s += c } } END { print s + 0 }' "$1"
}
line_ticks() {  # FILE -> "loop1 loop2 other all": ticks on twoloops.c's lines
	awk '/^-- Auto-annotated source:/ { on = /twoloops\.c/ } on && /^ *[0-9][0-9,]* / && !/=>/ && !/events annotated/ {
		c = $1; gsub(",", "", c); n = c + 0; line = $0; sub(/^ *[0-9][0-9,]* (\([^)]*\))? */, "", line)
		kind = line ~ /LOOP1/ ? "loop1" : line ~ /LOOP2/ ? "loop2" : "other"; sum[kind] += n; all += n }
		END { printf "%d %d %d %d\n", sum["loop1"], sum["loop2"], sum["other"], all }' "$1"
}
self=$(func_self annotated.txt '^twoloops\.c:work$')
file_self=$(func_self annotated.txt '^twoloops\.c:')
like "callgrind_annotate lists work() with its self ticks" "$self" '^[1-9][0-9]*$'
read -r loop1 loop2 other all <<END
$(line_ticks annotated.txt)
END
note "per-line ticks: loop 1 $loop1, loop 2 $loop2, other lines $other; work() self $self, all functions $file_self"
is "the per-line ticks of the source add up to its functions' self costs" "$all" "$file_self"
# 4 ticks of 1,350 were missing from the lines once, in a full suite run
# beside other tests, and never in 22 runs alone or beside CPU hogs:
# keep what showed it for the next time
if [ "$all" != "$file_self" ]; then
	mkdir -p "$CG_BUILD/test-artifacts/collector-lines"
	cp tl.cgt tl.callgrind annotated.txt tl-fi "$CG_BUILD/test-artifacts/collector-lines/"
	diag "kept tl.cgt, tl.callgrind, annotated.txt and tl-fi in $CG_BUILD/test-artifacts/collector-lines"
fi
ok "the loops' lines hold nearly all of it (>= 90%)" test $(((loop1 + loop2) * 10)) -ge $((self * 9))
ok "both loops' lines have ticks" test "$loop1" -gt 0 -a "$loop2" -gt 0

# gprof -l on the -pg build: seconds per line of work().
gprof -b -l -p tl-pg gmon.out >gprof-l.txt
awk 'NR == FNR { if (/LOOP1/) kind[FNR] = 1; else if (/LOOP2/) kind[FNR] = 2; next }
	/ work \(twoloops\.c:[0-9]+ @/ { match($0, /twoloops\.c:[0-9]+/); l = substr($0, RSTART + 11, RLENGTH - 11)
	s[kind[l] + 0] += $3 }
	END { printf "%.2f %.2f\n", s[1], s[2] }' twoloops.c gprof-l.txt >gprof-lines.txt
read -r g1 g2 <gprof-lines.txt
note "gprof -l: loop 1 ${g1}s, loop 2 ${g2}s"
share() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b / (a + b) }'; }
ours=$(share "$loop1" "$loop2")
theirs=$(share "$g1" "$g2")
note "second loop's share: ours $ours, gprof -l $theirs (3/4 expected)"
ok "our second-loop share is about 3/4 (0.6 to 0.9)" awk -v s="$ours" 'BEGIN { exit !(s >= 0.6 && s <= 0.9) }'
ok "gprof -l agrees with it (within 0.15)" awk -v a="$ours" -v b="$theirs" \
	'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.15) }'

# Two threads running work() at once: each thread's tree has its own
# addresses, and the summed Callgrind file still adds up per line.
ok "run two threads" "$BIN/cgrun" -q -o th.cgt ./tl-fi 30000000 2
is "both worker threads have addresses" "$(awk '/^thread/ { t = $2 } /^at/ { seen[t] = 1 }
	END { print (1 in seen) + (2 in seen) }' th.cgt)" 2
ok "to Callgrind" "$BIN/cgconvert" -t callgrind -o th.callgrind th.cgt
callgrind_annotate --auto=yes th.callgrind >th.txt
like "work() has ticks in the threads" "$(func_self th.txt '^twoloops\.c:work$')" '^[1-9][0-9]*$'
read -r th_loop1 th_loop2 th_other th_all <<END
$(line_ticks th.txt)
END
note "two threads, per-line ticks: loop 1 $th_loop1, loop 2 $th_loop2, other lines $th_other"
is "the per-line ticks add up to the self costs over both threads" "$th_all" \
	"$(func_self th.txt '^twoloops\.c:')"

# Inlined code: hot() is inlined into main at -O2, its hooks stay, so its
# node is current at main's addresses; DWARF's inlined copy places them.
ok "build the inlined program" cc -std=c11 -O2 -g -finstrument-functions -o inl \
	"$CG_TOP/testdata/collector/lines/inlined.c"
ok "hot() has no code of its own in the loop: the ticks land in main's" sh -c \
	"'$BIN/cgrun' -q -o inl.cgt ./inl 300000000 >/dev/null"
ok "to Callgrind" "$BIN/cgconvert" -t callgrind -o inl.callgrind inl.cgt
callgrind_annotate --auto=yes inl.callgrind >inl.txt
inl_self=$(func_self inl.txt 'inlined\.c:hot$')
inl_loop=$(awk '/^-- Auto-annotated source:/ { on = /inlined\.c/ } on && /^ *[0-9][0-9,]* / && /LOOP/ {
	c = $1; gsub(",", "", c); s += c } END { print s + 0 }' inl.txt)
note "inlined hot(): self $inl_self, on its loop lines $inl_loop"
like "hot() has ticks" "$inl_self" '^[1-9][0-9]*$'
ok "the inlined loop's lines hold nearly all of them (>= 90%)" test $((inl_loop * 10)) -ge $((inl_self * 9))

# The same in C++: DWARF names the inlined copy by its linkage name, the
# profile by the demangled symbol; the reader must see they are the same.
ok "build the inlined C++ program" c++ -O2 -g -finstrument-functions -o inlxx \
	"$CG_TOP/testdata/collector/lines/inlined.cc"
ok "C++: run it" sh -c "'$BIN/cgrun' -q -o inlxx.cgt ./inlxx 300000000 >/dev/null"
ok "C++: to Callgrind" "$BIN/cgconvert" -t callgrind -o inlxx.callgrind inlxx.cgt
callgrind_annotate --auto=yes inlxx.callgrind >inlxx.txt
# (the name has a space: match the whole line, not one field)
xx_self=$(awk '/^-- Auto-annotated source:/ { exit }
	/file:function/ { on = 1; next } on && /inlined\.cc:accum::Sum::hot\(unsigned long\)( \[|$)/ {
		c = $1; gsub(",", "", c); s += c } END { print s + 0 }' inlxx.txt)
xx_loop=$(awk '/^-- Auto-annotated source:/ { on = /inlined\.cc/ } on && /^ *[0-9][0-9,]* / && /LOOP/ {
	c = $1; gsub(",", "", c); s += c } END { print s + 0 }' inlxx.txt)
note "inlined accum::Sum::hot(): self $xx_self, on its loop lines $xx_loop"
like "C++: hot() has ticks" "$xx_self" '^[1-9][0-9]*$'
ok "C++: the inlined loop's lines hold nearly all of them (>= 90%)" test $((xx_loop * 10)) -ge $((xx_self * 9))

# A one-slot table: the first address takes it, every other tick is
# unplaced, and still counted on its context.
ok "run with a one-slot address table" sh -c \
	"CGCOLLECT_LINES=1 '$BIN/cgrun' -o small.cgt ./tl-fi 20000000 >/dev/null 2>small.err"
unplaced=$(awk '/^endthread/ { for (i = 2; i < NF; i++) if ($i == "unplaced") print $(i + 1) }' small.cgt)
like "ticks without room are counted as unplaced" "$unplaced" '^[1-9][0-9]*$'
like "cgrun's summary says how many" "$(cat small.err)" ", $unplaced without an address "
is "one address is kept" "$(grep -c '^at ' small.cgt)" 1
is "no tick is lost: the nodes hold all samples" "$(awk '/^node/ { s += $8 }
	/^endthread/ { for (i = 2; i < NF; i++) if ($i == "samples" || $i == "overhead" || $i == "lost") t[$i] = $(i + 1) }
	END { print (s == t["samples"] - t["overhead"] - t["lost"]) ? "yes" : s " of " t["samples"] }' small.cgt)" yes
ok "its Callgrind file converts" "$BIN/cgconvert" -t callgrind -o small.callgrind small.cgt
ok "and its costs still add up per function" sh -c "callgrind_annotate --auto=yes small.callgrind >small.txt"
ok "CGCOLLECT_LINES=0: no addresses" env CGCOLLECT_LINES=0 "$BIN/cgrun" -q -o none.cgt ./tl-fi 1000000
is "none written" "$(grep -c '^at \| unplaced ' none.cgt)" 0
done_testing
