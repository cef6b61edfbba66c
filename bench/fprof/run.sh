#!/bin/sh
# Benchmark: fprof:profile + fprof:analyse against our reader + writer on the
# same ~5M-call trace (the workload of fprof_bench_gen.erl beside this script).  Prints both times, the ratio and both peak RSS,
# and checks that both analyses are identical.
#
#   sh bench/fprof/run.sh            (from the repository root, after make)
#   BENCH_DIR=/scratch KEEP=1 ...    keep the ~880 MB trace afterwards
#   KEEP=1 REUSE_FPROF=1 ...          re-time only our side on a kept trace
#   REPEAT=5 ...                      time our side 5 times, report the median CPU
#
# Needs erl, erlc, GNU time (/usr/bin/time).
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
BUILD=${CG_BUILD:-$TOP/build}
BENCH_DIR=${BENCH_DIR:-${TMPDIR:-/tmp}/cg-fprof-bench}
mkdir -p "$BENCH_DIR"
trap '[ -n "$KEEP" ] || rm -f "$BENCH_DIR/bench.trace"' EXIT
cp "$HERE/fprof_bench_gen.erl" "$BENCH_DIR/"
cd "$BENCH_DIR"
erlc fprof_bench_gen.erl

# Our side: cgconvert when it knows fprof traces, else the test driver.
# ours OPTIONS OUTPUT TIMEFILE
ours() {
	if "$BUILD/bin/cgconvert" --help 2>&1 | grep -q fprof-trace; then
		/usr/bin/time -v "$BUILD/bin/cgconvert" -f fprof-trace -t fprof \
			--fprof-analyse="$1" bench.trace -o "$2" 2>"$3"
	else
		/usr/bin/time -v "$BUILD/tests/test_fprof" trace bench.trace "$1" >"$2" 2>"$3"
	fi
}

if [ ! -s bench.trace ]; then
	echo "tracing fprof_bench_gen:run(1) ..."
	erl -noshell -eval "
{module,_} = code:ensure_loaded(fprof_bench_gen),
R = fprof:apply(fprof_bench_gen, run, [1], [{file, \"bench.trace\"}]),
io:format(\"result ~p~n\", [R]), halt()." >/dev/null
fi
size=$(wc -c <bench.trace)
echo "trace: $size bytes"

if [ -n "$REUSE_FPROF" ] && [ -s time_fprof.txt ] && [ -s fprof.analysis ]; then
	echo "(reusing fprof's timing and analyses from an earlier run)"
else
	/usr/bin/time -v erl -noshell -eval '
ok = fprof:profile([{file, "bench.trace"}]),
ok = fprof:analyse([{dest, "fprof.analysis"}]),
ok = fprof:analyse([{dest, "fprof.analysis.totals"}, totals, no_details]),
halt().' >/dev/null 2>time_fprof.txt
fi

# our side REPEAT times (a shared machine is noisy): the run with the
# median CPU is the one reported
REPEAT=${REPEAT:-1}
i=0
: >cpu_ours.txt
while [ "$i" -lt "$REPEAT" ]; do
	i=$((i + 1))
	ours "" ours.analysis "time_ours1.$i.txt"
	awk -F': ' -v f="time_ours1.$i.txt" '/User time|System time/ { s += $2 } END { printf "%.3f %s\n", s, f }' \
		"time_ours1.$i.txt" >>cpu_ours.txt
done
median=$(sort -n cpu_ours.txt | awk '{ v[NR] = $2 } END { print v[int((NR + 1) / 2)] }')
cp "$median" time_ours1.txt
if [ "$REPEAT" -gt 1 ]; then
	echo "our CPU (user+sys) over $REPEAT runs: $(sort -n cpu_ours.txt | awk '{ printf "%s ", $1 }')"
fi
rm -f time_ours1.*.txt cpu_ours.txt
ours "totals,no_details" ours.analysis.totals time_ours2.txt

secs() {  # GNU time's "Elapsed (wall clock) time (h:mm:ss or m:ss): ..." -> seconds
	sed -n "s/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p" "$1" |
	awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }'
}
rss() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$1"; }
cpu() {  # user + system seconds
	awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f\n", s }' "$1"
}

# fprof: one VM doing profile + both analyses (the analyses take ~0.1 s);
# ours: one run = read the trace + write the default analysis.
tf=$(secs time_fprof.txt)
to=$(secs time_ours1.txt)
ro=$(rss time_ours1.txt); ro2=$(rss time_ours2.txt); [ "$ro2" -gt "$ro" ] && ro=$ro2
echo "fprof:profile + analyses: ${tf} s wall, peak RSS $(rss time_fprof.txt) KB"
echo "ours (read trace + write analysis): ${to} s wall, peak RSS $ro KB (2nd run, totals/no_details: $(secs time_ours2.txt) s)"
cf=$(cpu time_fprof.txt)
co=$(cpu time_ours1.txt)
of=""
[ "$REPEAT" -le 1 ] || of=" (median of $REPEAT)"
echo "CPU (user+sys): fprof ${cf} s, ours ${co} s$of"
awk -v a="$tf" -v b="$to" -v c="$cf" -v d="$co" 'BEGIN {
	if (b > 0) printf "ratio: %.1fx faster (wall), ", a / b
	if (d > 0) printf "%.1fx less CPU\n", c / d }'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (wall times on a shared machine are noisy)"
if cmp -s fprof.analysis ours.analysis && cmp -s fprof.analysis.totals ours.analysis.totals; then
	echo "analyses: identical"
else
	echo "analyses: DIFFERENT"
	diff fprof.analysis ours.analysis | head -20
	exit 1
fi
