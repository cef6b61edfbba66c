#!/bin/sh
# Benchmark: a trace whose one spawn record holds an argument nested DEPTH
# deep (default 9,000; testdata/fprof/deep/deep_spawn.erl), analysed by
# fprof:profile + fprof:analyse and by cgconvert (run with a 1 MB stack, as
# the term layer must not recurse on nesting).  Prints both times, the
# ratio and both peak RSS, and checks that both analyses are identical.
#
#   sh bench/fprof/deep.sh              (from the repository root, after make)
#   DEPTH=50000 sh bench/fprof/deep.sh
#
# Needs erl, erlc, GNU time (/usr/bin/time).
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
BUILD=${CG_BUILD:-$TOP/build}
DEPTH=${DEPTH:-9000}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/cg-fprof-deep.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
cd "$DIR"
erlc "$TOP/testdata/fprof/deep/deep_spawn.erl"
erl -noshell -pa . -eval "
_ = fprof:apply(deep_spawn, run, [deep_spawn:lists($DEPTH), x], [{file, \"deep.trace\"}]),
halt()." >/dev/null
echo "trace: $(wc -c <deep.trace) bytes, one spawn argument nested $DEPTH deep"
/usr/bin/time -f "%e %U %S %M" -o time_fprof.txt erl -noshell -eval '
ok = fprof:profile([{file, "deep.trace"}]),
ok = fprof:analyse([{dest, "fprof.analysis"}]),
halt().' >/dev/null
( ulimit -s 1024 && exec /usr/bin/time -f "%e %U %S %M" -o time_ours.txt \
	"$BUILD/bin/cgconvert" -t fprof -o ours.analysis deep.trace )
read -r fw fu fs fm <time_fprof.txt
read -r ow ou os om <time_ours.txt
echo "fprof:profile + analyse: $fw s wall, $(echo "$fu $fs" | awk '{ printf "%.2f", $1 + $2 }') s CPU, peak RSS $fm KB"
echo "ours (1 MB stack):       $ow s wall, $(echo "$ou $os" | awk '{ printf "%.2f", $1 + $2 }') s CPU, peak RSS $om KB"
awk -v a="$fw" -v b="$ow" 'BEGIN { if (b > 0) printf "ratio: %.1fx faster (wall)\n", a / b;
	else print "ratio: ours under the timer resolution" }'
if cmp -s fprof.analysis ours.analysis; then
	echo "analyses: identical"
else
	echo "analyses: DIFFERENT"
	exit 1
fi
