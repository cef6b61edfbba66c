#!/bin/bash
# real-programs.sh [WORKDIR]: profile two programs nobody on this team wrote
# (bzip2 1.0.8 and Lua 5.4, Debian sources) with gprof and with our tools.
#
# Run from the repo root after `make`.  Needs network (apt-get source) and
# about 40 s of two cores; deliberately NOT part of `make check`.  Results: docs/real-programs.md.
#
# Each program is built three times from the same sources with the same
# optimisation flags (-O1 -fno-inline -fno-omit-frame-pointer, so no function
# disappears into a caller and both profiled builds have the same functions):
#   plain  no profiling (timing baseline)
#   pg     -pg                                  -> gprof / cgprof
#   fi     -finstrument-functions               -> cgrun (collector)
# and the same deterministic workload runs on each.  Then, per run ("case"):
#   1. gprof -b and cgprof -b on the pg build's gmon.out, byte-identical for
#      several option sets;
#   2. cgrun --time=calls, cgconvert -t callgrind, callgrind_annotate (plain
#      and --inclusive=yes) print no warning;
#   3. per-function call counts: gprof's flat profile "calls" column against
#      the collector's (cgconvert -t flat), for every function both list,
#      and every caller->callee arc count of the two call graphs
#      (functions entered only from outside the program are listed apart);
#   4. a collector run with the default --time=cpu: the same call counts,
#      and a Callgrind file callgrind_annotate reads without warning.
# Exit status: 0 when everything matched, 1 on any unexplained difference,
# 2 on a setup failure (download, build).
set -u
set -o pipefail
export LC_ALL=C

top=$PWD
work=${1:-/tmp/cg-real}
bin=$top/build/bin
for t in cgprof cgconvert cgrun; do
	[ -x "$bin/$t" ] || { echo "real-programs: $bin/$t missing (run make first)" >&2; exit 2; }
done
[ -e "$top/build/lib/libcgcollect.so" ] || { echo "real-programs: collector library missing" >&2; exit 2; }
for t in gprof callgrind_annotate apt-get gcc; do
	command -v $t >/dev/null || { echo "real-programs: $t not found" >&2; exit 2; }
done

mkdir -p "$work" || exit 2
work=$(cd "$work" && pwd)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
die() { echo "real-programs: $*" >&2; exit 2; }

OPT="-O1 -fno-inline -fno-omit-frame-pointer -g"
PG="-pg"
FI="-finstrument-functions -finstrument-functions-exclude-file-list=/usr/include"

# ---- sources ---------------------------------------------------------------
fetch() { # fetch SRCPKG ORIG-TARBALL-GLOB DIR-GLOB: unpacked upstream tree path on stdout
	local pkg=$1 targlob=$2 dirglob=$3 tarball dir
	mkdir -p "$work/src" && cd "$work/src" || exit 2
	tarball=$(ls $targlob 2>/dev/null | head -n1)
	if [ -z "$tarball" ]; then
		apt-get source --download-only "$pkg" >apt-$pkg.log 2>&1 ||
			die "apt-get source --download-only $pkg failed (see $work/src/apt-$pkg.log)"
		tarball=$(ls $targlob | head -n1)
	fi
	# Only the upstream tarball: the Debian patches change packaging, not
	# the functions profiled here.
	dir=$(ls -d $dirglob 2>/dev/null | head -n1)
	if [ -z "$dir" ]; then
		tar xf "$tarball" || die "cannot unpack $tarball"
		dir=$(ls -d $dirglob | head -n1)
	fi
	echo "$work/src/$dir"
	cd "$top"
}

build_bzip2() { # build_bzip2 SRC VARIANT EXTRA-CFLAGS
	local src=$1 v=$2 extra=$3 out=$work/bzip2/$2
	mkdir -p "$out"
	[ -x "$out/bzip2" ] && return 0
	# The bzip2 program's own Makefile objects: the library plus bzip2.c.
	gcc $OPT $extra -D_FILE_OFFSET_BITS=64 -o "$out/bzip2" \
		"$src"/{blocksort,huffman,crctable,randtable,compress,decompress,bzlib,bzip2}.c \
		>"$out/build.log" 2>&1 || die "bzip2 $v build failed (see $out/build.log)"
}

build_lua() { # build_lua SRC VARIANT EXTRA-CFLAGS
	local src=$1 v=$2 extra=$3 out=$work/lua/$2 files f
	mkdir -p "$out"
	[ -x "$out/lua" ] && return 0
	# The interpreter: every core and library file plus lua.c (not luac.c),
	# as src/Makefile's `linux` target builds it (no readline).
	files=()
	for f in "$src"/src/*.c; do
		case ${f##*/} in luac.c) ;; *) files+=("$f") ;; esac
	done
	# Lua randomises on purpose; pin it so every build makes the same calls:
	#  - the string-hash seed mixes time(NULL) and heap, stack and code
	#    addresses (hash collisions, hence getfreepos/mainposition calls);
	#  - table.sort's pivot randomisation uses clock() and time();
	#  - luaS_new's C-string cache is indexed by the C string's address,
	#    which differs between the -pg and the -finstrument-functions
	#    binary (their .rodata is laid out differently): one slot makes a
	#    hit depend on the strings' contents only.
	# (luaconf.h/llimits.h leave all four to the builder.)
	gcc -std=gnu99 $OPT $extra -DLUA_COMPAT_5_3 -DLUA_USE_LINUX \
		'-Dluai_makeseed(L)=0x2545f491u' '-Dl_randomizePivot()=(~0u)' \
		-DSTRCACHE_N=1 -DSTRCACHE_M=1 -o "$out/lua" \
		"${files[@]}" -Wl,-E -lm -ldl \
		>"$out/build.log" 2>&1 || die "lua $v build failed (see $out/build.log)"
}

# ---- workloads -------------------------------------------------------------
make_bzip2_input() { # a few MB, deterministic, mixed text and noise
	local f=$work/bzip2/input.dat
	[ -s "$f" ] && return 0
	awk 'BEGIN {
		srand(12345)
		for (i = 0; i < 90000; i++) {
			printf "line %d: the quick brown fox %d jumps over %x lazy dogs\n", i, i * 7 % 1000, i * 31
			if (i % 16 == 0) { s = ""; for (j = 0; j < 24; j++) s = s sprintf("%c", 33 + int(rand() * 90)); print s }
		}
	}' >"$f"
}

write_lua_script() {
	cat >"$work/lua/workload.lua" <<'EOF'
-- Deterministic workload: recursion, strings, tables, pcall/error, coroutines.
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local acc = 0
for i = 1, 25 do acc = acc + fib(i) end

local words = {}
for i = 1, 20000 do
  local s = string.format("w%05d-%s", (i * 7919) % 20000, string.rep("ab", i % 5))
  words[#words + 1] = s:upper():gsub("B", "b")
end
table.sort(words)
local joined = table.concat(words, ",", 1, 500)
local count = 0
for w in joined:gmatch("W(%d+)") do count = count + tonumber(w) % 3 end

local t = {}
for i = 1, 50000 do t[i % 997] = (t[i % 997] or 0) + i end
local keys = 0
for k, v in pairs(t) do keys = keys + 1 end

-- error() unwinds through Lua and C frames with longjmp.
local function thrower(n)
  if n == 0 then error({code = 42}) end
  return thrower(n - 1)
end
local caught = 0
for i = 1, 3000 do
  local ok, e = pcall(thrower, i % 20)
  if not ok and e.code == 42 then caught = caught + 1 end
end
local ok2, msg = pcall(function() local x = nil; return x.y end)

-- Coroutines: every yield longjmps out of the resumed coroutine.
local function gen(n)
  return coroutine.wrap(function()
    for i = 1, n do coroutine.yield(i) end
  end)
end
local sum = 0
for round = 1, 500 do
  for v in gen(200) do sum = sum + v end
end
local co = coroutine.create(function(a) local b = coroutine.yield(a + 1); error("boom " .. b) end)
local r1 = {coroutine.resume(co, 1)}
local r2 = {coroutine.resume(co, 5)}

collectgarbage()
print(acc, #words, count, keys, caught, ok2, sum, r1[2], r2[1])
EOF
}

# run_case NAME DIR CMD: run CMD in DIR for each variant, REPEAT times
# (default 3; timings are the fastest run's wall and its user CPU time),
# leaving DIR/NAME.time-{plain,pg,fi}, DIR/NAME.gmon and DIR/NAME.cgtree.
# CMD is evaluated with $V set to the variant's build directory and $v to
# the variant's name.
run_case() {
	local name=$1 dir=$2 cmd=$3 r t best
	local TIMEFORMAT='%R %U'
	for v in plain pg fi; do
		V=$dir/$v best=
		for ((r = 0; r < ${REPEAT:-3}; r++)); do
			rm -f "$dir/gmon.out"
			if [ $v = fi ]; then
				t=$( { time { (cd "$dir" && eval "$bin/cgrun --time=calls -o $dir/$name.cgtree -- $cmd") \
					>"$dir/$name.$v.out" 2>"$dir/$name.$v.err"; }; } 2>&1) ||
					{ fail "$name: collector run failed"; break; }
			else
				t=$( { time { (cd "$dir" && eval "$cmd") >"$dir/$name.$v.out" 2>"$dir/$name.$v.err"; }; } 2>&1) ||
					{ fail "$name: $v run failed"; break; }
			fi
			if [ -z "$best" ] || awk -v a="${t%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
				best=$t
			fi
		done
		echo "$best" >"$dir/$name.time-$v"
		if [ $v = pg ]; then mv "$dir/gmon.out" "$dir/$name.gmon" || fail "$name: no gmon.out"; fi
	done
}

# run_cpu_case NAME DIR CMD: one more collector run with the default
# --time=cpu (timer signals arriving during the hooks), DIR/NAME.cpu.cgtree.
# Same command line as the others: Lua's garbage collector paces itself
# by allocated bytes, so even argv[0]'s length changes its call counts.
run_cpu_case() {
	local name=$1 dir=$2 cmd=$3 v=fi V=$2/fi
	(cd "$dir" && eval "$bin/cgrun -o $dir/$name.cpu.cgtree -- $cmd") \
		>"$dir/$name.cpu.out" 2>"$dir/$name.cpu.err" || fail "$name: collector run (--time=cpu) failed"
}

# ---- checks ----------------------------------------------------------------
# gprof vs cgprof, byte for byte.
check_gprof() { # check_gprof NAME EXE GMON
	local name=$1 exe=$2 gmon=$3 opts o
	for opts in "" "-z" "-T" "-q" "-p" "-z -p" "-q -z"; do
		gprof -b $opts "$exe" "$gmon" >"$gmon.gprof" 2>&1; echo "rc=$?" >>"$gmon.gprof"
		"$bin/cgprof" -b $opts "$exe" "$gmon" >"$gmon.cgprof" 2>&1; echo "rc=$?" >>"$gmon.cgprof"
		if cmp -s "$gmon.gprof" "$gmon.cgprof"; then
			echo "  gprof -b $opts: identical ($(wc -l <"$gmon.gprof") lines)"
		else
			fail "$name: gprof -b $opts differs from cgprof"
			diff "$gmon.gprof" "$gmon.cgprof" | head -n 10
		fi
	done
}

# callgrind_annotate must read our Callgrind file without a complaint.
check_callgrind() { # check_callgrind NAME CGTREE
	local name=$1 tree=$2 inc
	"$bin/cgconvert" -t callgrind "$tree" -o "$tree.callgrind" 2>"$tree.convert.err" ||
		{ fail "$name: cgconvert -t callgrind failed: $(head -n1 "$tree.convert.err")"; return; }
	[ -s "$tree.convert.err" ] && fail "$name: cgconvert said: $(head -n1 "$tree.convert.err")"
	for inc in no yes; do
		if ! callgrind_annotate --inclusive=$inc "$tree.callgrind" >"$tree.annotate-$inc" 2>"$tree.annotate-$inc.err"; then
			fail "$name: callgrind_annotate --inclusive=$inc failed"
		# Its warnings go to stderr (malformed lines) or into the report
		# as "@@ WARNING @@" banners (source newer than profile, lines
		# beyond a file's end); a plain grep would hit Lua's luaE_warning.
		elif [ -s "$tree.annotate-$inc.err" ] || grep -q '^WARNING\|@@ WARNING @@' "$tree.annotate-$inc"; then
			fail "$name: callgrind_annotate --inclusive=$inc warned: $(cat "$tree.annotate-$inc.err" | head -n2)"
		else
			echo "  callgrind_annotate --inclusive=$inc: clean ($(grep -c . "$tree.annotate-$inc") lines)"
		fi
	done
}

# NAME CALLS for every function with a call count in a gprof-style flat
# profile (gprof -b -p -z, cgconvert -t flat): the lines with all seven
# columns; functions with time but no counted call have only four.
flat_calls() {
	awk '/^ *[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[^ ]/ { n = $7; for (i = 8; i <= NF; i++) n = n " " $i; print n, $4 }' "$1" | sort
}
flat_names() { # every function named in the flat profile, counted or not
	awk '/^ *[0-9.]+ +[0-9.]+ +[0-9.]+ / { print $NF }' "$1" | sort -u
}

# No function is excluded by name.  The one kind of difference by design,
# a function entered only from outside the program (main, from libc's
# start code: gprof's mcount drops arcs from outside the text range, the
# collector's tree has no caller for it), shows as "uncounted" on both
# sides: neither flat profile gives it a calls column.  Those are listed.
check_calls() { # check_calls NAME EXE GMON CGTREE
	local name=$1 exe=$2 gmon=$3 tree=$4
	gprof -b -p -z "$exe" "$gmon" >"$gmon.flat" 2>/dev/null || { fail "$name: gprof -p failed"; return; }
	"$bin/cgconvert" -t flat "$tree" -o "$tree.flat" || { fail "$name: cgconvert -t flat failed"; return; }
	flat_calls "$gmon.flat" >"$gmon.calls"
	flat_calls "$tree.flat" >"$tree.calls"
	# Two static functions may share a name (bzip2.c's and bzlib.c's
	# myfeof): both profiles list each, so a name maps to its sorted list
	# of counts.  Which count belongs to which is checked by the arcs.
	local compared=0 mism=0 gsum=0 csum=0 f gc cc dup
	declare -A G C
	while read -r f gc; do G[$f]=${G[$f]:+${G[$f]},}$gc gsum=$((gsum + gc)) compared=$((compared + 1)); done <"$gmon.calls"
	while read -r f cc; do C[$f]=${C[$f]:+${C[$f]},}$cc csum=$((csum + cc)); done <"$tree.calls"
	for f in $( (cut -d' ' -f1 "$gmon.calls"; cut -d' ' -f1 "$tree.calls") | sort -u); do
		gc=${G[$f]:-0} cc=${C[$f]:-0}
		if [ "$gc" != "$cc" ]; then
			mism=$((mism + 1))
			fail "$name: calls of $f: gprof $gc, collector $cc"
		fi
	done
	dup=$(cut -d' ' -f1 "$gmon.calls" | uniq -d | tr '\n' ' ')
	[ -n "$dup" ] && echo "  functions sharing a name (statics of different files): $dup"
	# Uncounted on both sides: entered only from outside the program.
	local unc
	unc=$(comm -12 <(comm -23 <(flat_names "$gmon.flat") <(cut -d' ' -f1 "$gmon.calls")) \
		<(comm -23 <(flat_names "$tree.flat") <(cut -d' ' -f1 "$tree.calls")) | tr '\n' ' ')
	echo "  calls: $compared functions compared, $mism mismatches; total calls gprof $gsum, collector $csum"
	echo "  run but uncounted on both sides (called only from outside the program): ${unc:-none}"
	echo "$name $compared $mism $gsum $csum ${unc:-none}" >>"$work/summary.calls"
}

# The call graphs: each function's "called" field (n+m: m its direct
# self-recursive calls, which the flat profile leaves out) and every
# caller->callee arc count, gprof -b -q against cgconvert -t graph.
graph_called() { # NAME CALLED for every primary line but cycles as a whole
	awk '/^\[[0-9]+\]/ && !/as a whole/ {
		c = "-"; s = 5; if ($5 ~ /^[0-9]+(\+[0-9]+)?$/) { c = $5; s = 6 }
		print $s, c }' "$1" | sort
}
graph_arcs() { # CALLER CALLEE COUNT from each entry's child lines
	# Cycle tags (<cycle N>) are dropped: the two sides may number cycles
	# differently, members and counts are what must agree.
	awk '/^-+$/ { prim = ""; next }
	/^\[[0-9]+\]/ {
		if ($0 ~ /as a whole/) { prim = ""; next }
		s = ($5 ~ /^[0-9]+(\+[0-9]+)?$/) ? 6 : 5
		prim = $s; next
	}
	prim != "" && /\[[0-9]+\]$/ {
		for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+(\/[0-9]+)?$/) break
		if (i >= NF - 1) next
		c = $i; sub(/\/.*/, "", c)
		print prim, $(i + 1), c
	}' "$1" | sort
}
graph_cycles() { # one line per cycle: its called field, then its sorted members
	# (cycle numbers are left out: gprof numbers them in its own order)
	awk '/^\[[0-9]+\]/ && /<cycle [0-9]+/ {
		match($0, /<cycle [0-9]+/); c = substr($0, RSTART + 7, RLENGTH - 7)
		if ($0 ~ /as a whole/) { called[c] = $5; next }
		s = ($5 ~ /^[0-9]+(\+[0-9]+)?$/) ? 6 : 5
		m[c] = m[c] " " $s
	}
	END { for (c in m) print called[c], m[c] }' "$1" |
	while read -r called members; do
		echo "$called $(tr ' ' '\n' <<<"$members" | sort | tr '\n' ' ')"
	done | sort
}
check_graph() { # check_graph NAME EXE GMON CGTREE
	local name=$1 exe=$2 gmon=$3 tree=$4 n d
	# -z: gprof leaves out an entry with no counted call and no sample
	# (main in a short run), and with it main's arcs to its callees.
	gprof -b -q -z "$exe" "$gmon" >"$gmon.graph" 2>/dev/null || { fail "$name: gprof -q failed"; return; }
	"$bin/cgconvert" -t graph "$tree" -o "$tree.graph" || { fail "$name: cgconvert -t graph failed"; return; }
	# Functions never entered (listed by -z) or entered only from outside
	# (main) have no called field: the flat check reports those.
	graph_called "$gmon.graph" | grep -v ' -$' >"$gmon.called"
	graph_called "$tree.graph" | grep -v ' -$' >"$tree.called"
	graph_arcs "$gmon.graph" >"$gmon.arcs"
	graph_arcs "$tree.graph" >"$tree.arcs"
	n=$(grep -c . "$gmon.called") d=$(diff "$gmon.called" "$tree.called" | grep -c '^[<>]')
	echo "  call graph: $n functions' called (n+m) fields, $d differing lines; $(grep -c + "$gmon.called") self-recursive"
	[ "$d" = 0 ] || { fail "$name: called fields differ"; diff "$gmon.called" "$tree.called" | head -n 10; }
	n=$(grep -c . "$gmon.arcs") d=$(diff "$gmon.arcs" "$tree.arcs" | grep -c '^[<>]')
	echo "  call graph: $n arcs (gprof), $(grep -c . "$tree.arcs") (collector), $d differing lines; arc calls gprof $(awk '{ s += $3 } END { print s + 0 }' "$gmon.arcs"), collector $(awk '{ s += $3 } END { print s + 0 }' "$tree.arcs")"
	[ "$d" = 0 ] || { fail "$name: arcs differ"; diff "$gmon.arcs" "$tree.arcs" | head -n 10; }
	local arcdiff=$d
	graph_cycles "$gmon.graph" >"$gmon.cycles"
	graph_cycles "$tree.graph" >"$tree.cycles"
	n=$(grep -c . "$gmon.cycles") d=$(diff "$gmon.cycles" "$tree.cycles" | grep -c '^[<>]')
	echo "  call graph: $n cycles (members and called field), $d differing lines"
	[ "$d" = 0 ] || { fail "$name: cycles differ"; diff "$gmon.cycles" "$tree.cycles" | head -n 10; }
	echo "$name $(grep -c . "$gmon.arcs") $((arcdiff + d)) $n" >>"$work/summary.arcs"
}

report_case() { # report_case NAME DIR EXE-BASENAME
	local name=$1 dir=$2 exe=$3
	echo "== $name: wall/user s: plain $(cat "$dir/$name.time-plain"), -pg $(cat "$dir/$name.time-pg"), collector $(cat "$dir/$name.time-fi")"
	echo "$name $(cat "$dir/$name.time-plain") $(cat "$dir/$name.time-pg") $(cat "$dir/$name.time-fi")" >>"$work/summary.times"
	check_gprof "$name" "$dir/pg/$exe" "$dir/$name.gmon"
	check_callgrind "$name" "$dir/$name.cgtree"
	check_calls "$name" "$dir/pg/$exe" "$dir/$name.gmon" "$dir/$name.cgtree"
	check_graph "$name" "$dir/pg/$exe" "$dir/$name.gmon" "$dir/$name.cgtree"
	echo "  collector with --time=cpu:"
	check_callgrind "$name(cpu)" "$dir/$name.cpu.cgtree"
	"$bin/cgconvert" -t flat "$dir/$name.cpu.cgtree" -o "$dir/$name.cpu.cgtree.flat" ||
		{ fail "$name: cgconvert -t flat (cpu) failed"; return; }
	flat_calls "$dir/$name.cpu.cgtree.flat" >"$dir/$name.cpu.cgtree.calls"
	if cmp -s "$dir/$name.gmon.calls" "$dir/$name.cpu.cgtree.calls"; then
		echo "  calls: the same $(grep -c . "$dir/$name.gmon.calls") counts as gprof's"
	else
		fail "$name: --time=cpu call counts differ from gprof's"
		diff "$dir/$name.gmon.calls" "$dir/$name.cpu.cgtree.calls" | head -n 10
	fi
}

# ---- main ------------------------------------------------------------------
rm -f "$work/summary.calls" "$work/summary.times" "$work/summary.arcs"

bzsrc=$(fetch bzip2 'bzip2_1.0.8*.orig.tar.*' 'bzip2-1.0.8') || exit 2
luasrc=$(fetch lua5.4 'lua5.4_5.4*.orig.tar.*' 'lua-5.4*') || exit 2

build_bzip2 "$bzsrc" plain ""
build_bzip2 "$bzsrc" pg "$PG"
build_bzip2 "$bzsrc" fi "$FI"
build_lua "$luasrc" plain ""
build_lua "$luasrc" pg "$PG"
build_lua "$luasrc" fi "$FI"

d=$work/bzip2
make_bzip2_input
run_case bzip2-compress "$d" '$V/bzip2 -9 -c input.dat > compressed.$v.bz2'
run_cpu_case bzip2-compress "$d" '$V/bzip2 -9 -c input.dat > compressed.cpu.bz2'
for v in plain pg fi; do
	cmp -s "$d/compressed.plain.bz2" "$d/compressed.$v.bz2" || fail "bzip2: $v build compressed differently"
done
run_case bzip2-decompress "$d" '$V/bzip2 -d -c compressed.plain.bz2 > roundtrip.$v'
run_cpu_case bzip2-decompress "$d" '$V/bzip2 -d -c compressed.plain.bz2 > roundtrip.cpu'
for v in plain pg fi; do
	cmp -s "$d/input.dat" "$d/roundtrip.$v" || fail "bzip2: $v build did not round-trip"
done
report_case bzip2-compress "$d" bzip2
report_case bzip2-decompress "$d" bzip2

d=$work/lua
write_lua_script
run_case lua-workload "$d" '$V/lua workload.lua'
run_cpu_case lua-workload "$d" '$V/lua workload.lua'
for v in pg fi; do
	cmp -s "$d/lua-workload.plain.out" "$d/lua-workload.$v.out" || fail "lua: $v build printed something else"
done
echo "lua workload printed: $(cat "$d/lua-workload.plain.out")"
report_case lua-workload "$d" lua

echo
echo "== summary"
awk '{ printf "%-18s %4d functions compared, %d mismatches, calls gprof %d collector %d; uncounted both sides:", $1, $2, $3, $4, $5
	for (i = 6; i <= NF; i++) printf " %s", $i; print "" }' "$work/summary.calls"
awk '{ printf "%-18s %4d arcs and %d cycles compared, %d differing\n", $1, $2, $4, $3 }' "$work/summary.arcs"
awk '{ printf "%-18s wall/user s: plain %s/%s  -pg %s/%s  collector %s/%s\n", $1, $2, $3, $4, $5, $6, $7 }' "$work/summary.times"
if [ $failures -ne 0 ]; then
	echo "$failures unexplained difference(s)"
	exit 1
fi
echo "all matched"
