#!/usr/bin/env bash
# pprof (profile.proto): what we write is read by the real `go tool pprof`
# with the same per-function flat and cumulative values and the same stacks
# as ours; what Go itself writes (runtime/pprof) reads into numbers equal
# to `go tool pprof -top`, and on into Callgrind that callgrind_annotate
# takes without a warning; cgtree -> pprof -> folded equals cgtree ->
# folded; gmon -> pprof keeps gprof's flat profile; bad input gives one
# line naming the file and the byte offset.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool go gcc gprof valgrind callgrind_annotate python3 timeout
P=$CG_BUILD/tests/collector
tops=$CG_TOP/testdata/pprof/tops.py
cd "$WORK" || exit 1
export GOCACHE=$WORK/gocache GOPATH=$WORK/gopath GOFLAGS=-mod=mod GO111MODULE=auto
export PPROF_TMPDIR=$WORK/pprof HOME=$WORK
pprof_top() {  # FILE [pprof options...]: go tool pprof -top, every node
	local f=$1; shift
	go tool pprof -top -nodecount=1000000 -nodefraction=0 -edgefraction=0 "$@" "$f" 2>/dev/null
}
# pprof -traces as folded stacks (root first): equal stacks summed (pprof
# lists samples, which may differ in addresses only), zero values left out
# (folded stacks have none), sorted
traces_folded() {
	go tool pprof -traces "$@" 2>/dev/null | folded_from_traces
}
folded_from_traces() {
	awk '
		/^-----------\+/ { if (n) { s = f[n]; for (i = n - 1; i >= 1; i--) s = s ";" f[i]; sum[s] += v }; n = 0; next }
		/^ +[0-9]+ +[^ ]/ && n == 0 { v = $1; sub(/^ +[0-9]+ +/, ""); f[++n] = $0; next }
		n > 0 && /^ +[^ ]/ { sub(/^ +/, ""); f[++n] = $0 }
		END { for (s in sum) if (sum[s]) print s, sum[s] }' | LC_ALL=C sort
}

# ---- call trees of real programs (collector, deterministic calls mode)
for prog in easyhard recur threads fanout; do
	"$BIN/cgrun" --time=calls -o $prog.cgt "$P/$prog" >/dev/null 2>&1
	"$BIN/cgconvert" -t pprof -o $prog.pb.gz $prog.cgt
	"$BIN/cgconvert" -t folded -o $prog.folded $prog.cgt
	"$BIN/cgconvert" -t folded -o $prog.back.folded $prog.pb.gz
	cmp_files "$prog: cgtree -> pprof -> folded equals cgtree -> folded" $prog.back.folded $prog.folded
done
for prog in easyhard recur fanout; do
	pprof_top $prog.pb.gz >$prog.top
	is "$prog: go tool pprof -top flat and cum per function equal ours" \
		"$(python3 "$tops" top $prog.top)" "$(python3 "$tops" folded $prog.folded)"
	is "$prog: go tool pprof -traces gives our stacks" \
		"$(traces_folded $prog.pb.gz)" "$(awk '{ v = $NF; sub(/ [0-9]+$/, ""); s[$0] += v } END { for (k in s) print k, s[k] }' $prog.folded | LC_ALL=C sort)"
done
calls_top=$(pprof_top easyhard.pb.gz -sample_index=calls | python3 "$tops" top /dev/stdin)
like "call counts are a sample type: work called twice, step 1000 times" \
	"$(echo "$calls_top" | tr '\n' ' ')" '(^| )step 1000 1000 .*work 2 1002'
is "several parts: a thread label per part" \
	"$(go tool pprof -tags threads.pb.gz 2>/dev/null | sed -n 's/.*: \(thread [0-9]*\)$/\1/p' | sort | tr '\n' ' ')" \
	"thread 0 thread 1 thread 2 "

# ---- a tree big enough that the writer compresses its message in
# several pieces (it deflates every 1 MB it encodes): one gzip stream
# that go tool pprof reads whole, every stack in it
awk -v N=30000 -f "$CG_TOP/bench/scale/gen-cgtree.awk" >big.cgt
"$BIN/cgconvert" -t pprof -o big.pb.gz big.cgt
"$BIN/cgconvert" -t folded -o big.folded big.cgt
ok "big tree: the message is over 2 MB before compression ($(gunzip -c big.pb.gz | wc -c) bytes)" \
	test "$(gunzip -c big.pb.gz | wc -c)" -gt 2097152
# (the event is CPU time in ms: -unit=ms keeps pprof from scaling it)
is "big tree: go tool pprof -traces gives our stacks" \
	"$(go tool pprof -traces -unit=ms big.pb.gz 2>/dev/null | sed -E 's/^( +[0-9]+)ms /\1 /' |
		folded_from_traces | md5sum)" \
	"$(awk '{ v = $NF; sub(/ [0-9]+$/, ""); s[$0] += v } END { for (k in s) print k, s[k] }' big.folded | LC_ALL=C sort | md5sum)"
is "big tree: go tool pprof's total is the folded stacks' sum" \
	"$(go tool pprof -top -nodecount=1 -unit=ms big.pb.gz 2>/dev/null |
		awk '/^Showing nodes/ { v = $(NF-1); sub(/ms$/, "", v); print v }')" \
	"$(awk '{ s += $NF } END { print s }' big.folded)"

# ---- a profile Go itself writes
go build -o cpuburn "$CG_TOP/testdata/pprof/cpuburn.go"
./cpuburn go.pb.gz 1500
pprof_top go.pb.gz -sample_index=samples >go.top
"$BIN/cgconvert" -t folded -o go.folded go.pb.gz
is "Go CPU profile: our flat and cum per function equal go tool pprof -top" \
	"$(python3 "$tops" folded go.folded)" "$(python3 "$tops" top go.top)"
# a difference here was seen once in many runs and never reproduced: keep
# the profile that showed it, so that the next occurrence can be studied
if [ "$(python3 "$tops" folded go.folded)" != "$(python3 "$tops" top go.top)" ]; then
	mkdir -p "$CG_BUILD/test-artifacts"
	cp go.pb.gz go.top go.folded "$CG_BUILD/test-artifacts/"
	diag "kept go.pb.gz, go.top and go.folded in $CG_BUILD/test-artifacts"
fi
like "Go CPU profile: main.leaf was sampled (the profile is not empty)" \
	"$(python3 "$tops" folded go.folded)" '^main\.leaf [1-9]'
pprof_top go.pb.gz -sample_index=cpu -unit=ns >go.cpu.top
"$BIN/cgconvert" -t folded --event cpu -o go.cpu.folded go.pb.gz
is "Go CPU profile: the cpu (nanoseconds) sample type too" \
	"$(python3 "$tops" folded go.cpu.folded)" "$(python3 "$tops" top go.cpu.top)"
"$BIN/cgconvert" -t callgrind -o go.callgrind go.pb.gz
annotate=$(callgrind_annotate go.callgrind 2>&1)
is "Go CPU profile -> Callgrind: callgrind_annotate has no warning" \
	"$(echo "$annotate" | grep -ci 'uninitialized\|warning\|error')" "0"
is "Go CPU profile -> Callgrind: totals equal go tool pprof's" \
	"$(echo "$annotate" | sed -n 's/ *(100.0%) *PROGRAM TOTALS//p' | tr -d ', ' | sed 's/(100.0%)/ /')" \
	"$(awk '/^Showing nodes/ { print $(NF-1) }' go.top)$(awk '/^Showing nodes/ { v = $(NF-1); sub(/ns$/, "", v); print " " v }' go.cpu.top)"
"$BIN/cgconvert" -t pprof -o go2.pb.gz go.pb.gz
is "Go CPU profile -> our pprof: go tool pprof -top unchanged" \
	"$(pprof_top go2.pb.gz -sample_index=samples | python3 "$tops" top /dev/stdin)" \
	"$(python3 "$tops" top go.top)"
is "Go CPU profile -> our pprof: the same stacks in -traces" \
	"$(traces_folded -sample_index=samples go2.pb.gz)" "$(traces_folded -sample_index=samples go.pb.gz)"
gunzip -c go.pb.gz >go.pb
"$BIN/cgconvert" -t folded -o go.raw.folded go.pb
cmp_files "uncompressed protobuf is detected and read the same" go.raw.folded go.folded

# ---- arcs only (gmon): flat profile kept, no stacks invented
gcc -pg -O0 -fno-inline -o demo "$CG_TOP/testdata/demo/demo.c"
./demo >/dev/null
gprof -b -p demo gmon.out >gprof.flat
"$BIN/cgconvert" -t pprof --exe demo -o demo.pb.gz gmon.out
is "gmon -> pprof: go tool pprof -top flat equals gprof's flat profile (in samples)" \
	"$(pprof_top demo.pb.gz -sample_index=samples | python3 "$tops" top /dev/stdin --flat)" \
	"$(python3 "$tops" gprof gprof.flat)"
like "gmon -> pprof: the file says it has no call stacks" \
	"$(go tool pprof -top demo.pb.gz 2>/dev/null)" 'knows arcs, not call stacks'
is "gmon -> pprof: call counts as (callee, caller) samples: ping called 102000 times" \
	"$(pprof_top demo.pb.gz -sample_index=calls | python3 "$tops" top /dev/stdin | grep '^ping ')" \
	"ping 102000 202000"

# ---- arcs only (Callgrind): callgrind_annotate's self cost per function
gcc -O1 -g -o spin "$CG_TOP/testdata/perf/spin.c"
valgrind --tool=callgrind --callgrind-out-file=spin.callgrind ./spin 2 >/dev/null 2>&1
"$BIN/cgconvert" -t pprof -o spin.pb.gz spin.callgrind
is "Callgrind -> pprof: go tool pprof -top flat equals callgrind_annotate's Ir per function" \
	"$(pprof_top spin.pb.gz | python3 "$tops" top /dev/stdin --flat)" \
	"$(callgrind_annotate --threshold=100 --auto=no spin.callgrind 2>/dev/null | awk '
		/file:function/ { on = 1; next }
		on && /^ *[0-9,]+ / { v = $1; gsub(",", "", v); n = $0; sub(/^ *[0-9,]+ +\([^)]*\) +/, "", n)
			sub(/ \[.*\]$/, "", n); sub(/^.*:/, "", n); s[n] += v }
		END { for (k in s) print k, s[k] }' | LC_ALL=C sort)"
is "Callgrind -> pprof: the program's own object is pprof's File" \
	"$(go tool pprof -top spin.pb.gz 2>/dev/null | sed -n 's/^File: //p')" "spin"

# ---- bad input: one line, file and byte offset, exit 3, no output file
head -c 200 go.pb >trunc.pb
exit_status "truncated protobuf: exit 3" 3 "$BIN/cgconvert" -f pprof -t folded -o out.folded trunc.pb
like "truncated protobuf: names the file and the byte offset" \
	"$("$BIN/cgconvert" -f pprof -t folded trunc.pb 2>&1)" '^cgconvert: trunc\.pb: byte offset [0-9]+: [a-z]'
is "truncated protobuf: one line" "$("$BIN/cgconvert" -f pprof -t folded trunc.pb 2>&1 | wc -l)" "1"
ok "truncated protobuf: no output file" test ! -e out.folded
head -c 100 go.pb.gz >trunc.pb.gz
like "truncated gzip: file and byte offset" \
	"$("$BIN/cgconvert" -t folded trunc.pb.gz 2>&1)" '^cgconvert: trunc\.pb\.gz: byte offset [0-9]+: gzip data ends early$'
printf '\x0a\x04\x08\x01\x10\x02\x32\x00' >nostrings.pb
like "string index out of range" \
	"$("$BIN/cgconvert" -f pprof -t folded nostrings.pb 2>&1)" 'nostrings\.pb: byte offset 2: string index out of range'
# /dev/zero named as this format fails at once (the timeout only turns a
# hang into a failure), as every text reader does (tests/bounded-input.t)
like "/dev/zero as pprof: one line, where and what" \
	"$(timeout 60 "$BIN/cgconvert" -f pprof -t xml /dev/zero 2>&1)" '^cgconvert: /dev/zero: byte offset 0: not a pprof profile'
exit_status "/dev/zero as pprof: exit 3" 3 timeout 60 "$BIN/cgconvert" -f pprof -t xml /dev/zero
done_testing
