#!/bin/bash
# bench/pprof/run.sh — reading pprof and perf script, next to the tools
# that produce and read them, on the same inputs:
#  - a pprof profile of $PPROF_SAMPLES samples (default 1000000; made by
#    our writer from generated folded stacks): `go tool pprof -raw` and
#    `-top` against `cgconvert -t folded` / `-t flat` reading it, and
#    `go tool pprof -proto` against `cgconvert -t pprof` writing one;
#  - `perf script` text of a perf record -g of testdata/perf/spin.c
#    ($PERF_ROUNDS rounds, default 3000): `perf script` printing it and
#    `perf report --no-children` against `cgconvert -t flat` reading it.
# Prints wall time, CPU time and peak memory of each, and the ratio.
# Timings are what this machine gives; nothing is asserted about them.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${CG_BUILD:=$top/build}"
: "${PPROF_SAMPLES:=1000000}"
: "${PERF_ROUNDS:=3000}"
bin=$CG_BUILD/bin
OUT=$CG_BUILD/bench-pprof
mkdir -p "$OUT"
export LC_ALL=C GOCACHE=$OUT/gocache PPROF_TMPDIR=$OUT/pprof-tmp
cd "$OUT"

measure() {  # LABEL OUT CMD... -> one table row; "wall cpu" in $last
	local label=$1 out=$2; shift 2
	/usr/bin/time -f '%e %U %S %M' -o time.txt "$@" >"$out" 2>/dev/null
	last=$(awk '{ print $1, $2 + $3 }' time.txt)
	awk -v l="$label" '{
		printf "  %-44s %7.2fs wall %7.2fs cpu %8.1f MB peak\n", l, $1, $2 + $3, $4 / 1024 }' time.txt
}
ratio() {  # "THEIR_WALL THEIR_CPU" "OUR_WALL OUR_CPU"
	echo "$1 $2" | awk '{
		printf "  ratio: %s faster (wall), %s (cpu)\n",
			($3 > 0) ? sprintf("%.1fx", $1 / $3) : "(too fast to measure)",
			($4 > 0) ? sprintf("%.1fx", $2 / $4) : "(too fast to measure)" }'
}

echo "pprof, $PPROF_SAMPLES samples:"
if [ ! -s big.pb.gz ] || [ "$(cat big.samples 2>/dev/null)" != "$PPROF_SAMPLES" ]; then
	echo "# generating the profile (once; cached in $OUT)" >&2
	python3 "$top/bench/pprof/gen_folded.py" "$PPROF_SAMPLES" 1 >big.folded
	"$bin/cgconvert" -t pprof -o big.pb.gz big.folded
	echo "$PPROF_SAMPLES" >big.samples
fi
ls -l big.pb.gz | awk '{ printf "  %-44s %8.1f MB\n", $NF, $5 / 1048576 }'
measure "go tool pprof -raw (reads, prints samples)" /dev/null go tool pprof -raw big.pb.gz
t_go=$last
measure "cgconvert -t folded (reads, prints stacks)" /dev/null "$bin/cgconvert" -t folded big.pb.gz
ratio "$t_go" "$last"
measure "go tool pprof -top" /dev/null go tool pprof -top big.pb.gz
t_go=$last
measure "cgconvert -t flat" /dev/null "$bin/cgconvert" -t flat big.pb.gz
ratio "$t_go" "$last"
measure "go tool pprof -proto (reads, writes pprof)" /dev/null go tool pprof -proto -output=go-out.pb.gz big.pb.gz
t_go=$last
measure "cgconvert -t pprof (reads, writes pprof)" /dev/null "$bin/cgconvert" -t pprof -o our-out.pb.gz big.pb.gz
ratio "$t_go" "$last"

echo "perf script, spin.c x $PERF_ROUNDS rounds:"
if [ ! -s perf.data ] || [ "$(cat perf.rounds 2>/dev/null)" != "$PERF_ROUNDS" ]; then
	echo "# recording (once; cached in $OUT)" >&2
	gcc -O0 -g -fno-omit-frame-pointer -fno-inline -o spin "$top/testdata/perf/spin.c"
	perf record -q -g -F 10000 -o perf.data ./spin "$PERF_ROUNDS" >/dev/null 2>&1
	echo "$PERF_ROUNDS" >perf.rounds
fi
measure "perf script (prints the text)" perf.txt perf script -i perf.data
ls -l perf.txt | awk '{ printf "  %-44s %8.1f MB\n", $NF, $5 / 1048576 }'
t_script=$last
measure "perf report --no-children --stdio" /dev/null perf report -i perf.data --no-children --stdio
t_report=$last
measure "cgconvert -t flat perf.txt" /dev/null "$bin/cgconvert" -t flat perf.txt
printf "  against perf script:"; ratio "$t_script" "$last"
printf "  against perf report:"; ratio "$t_report" "$last"
