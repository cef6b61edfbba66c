#!/bin/sh
# collector/bench/run.sh — cost per call of profilers on the same
# call-heavy workloads (bench.c: fib, tree walk, qsort callback):
# plain, -pg (gprof's mcount), empty -finstrument-functions hooks, our
# collector in calls mode and in cpu mode, and uftrace record when
# installed.  Rounds are interleaved; the median of each is printed as ns
# per call (thread CPU time) and as a ratio to plain.
#   B=build CC=cc ROUNDS=5 sh collector/bench/run.sh
set -eu
B=${B:-build}
CC=${CC:-cc}
ROUNDS=${ROUNDS:-5}
here=$(dirname "$0")
out=$B/bench/collector
mkdir -p "$out"
export LC_ALL=C
flags="-std=c11 -O2 -g -D_GNU_SOURCE -fno-pie -no-pie"

$CC $flags -o "$out/plain" "$here/bench.c"
$CC $flags -pg -o "$out/pg" "$here/bench.c"
$CC -std=c11 -O2 -c -o "$out/hooks_empty.o" "$here/hooks_empty.c"
$CC $flags -finstrument-functions -o "$out/fi-empty" "$here/bench.c" "$out/hooks_empty.o"
$CC $flags -finstrument-functions -o "$out/cgcollect" "$here/bench.c" "$B/lib/libcgcollect.a" -pthread

variants="plain pg fi-empty cgc-calls cgc-cpu"
have_uftrace=0
if command -v uftrace >/dev/null 2>&1; then
	have_uftrace=1
	variants="$variants uftrace"
else
	echo "uftrace: not installed (apt-get install uftrace), left out"
fi

run_variant() {  # name -> "phase calls ns" lines on stdout
	case $1 in
	plain) "$out/plain" ;;
	pg) (cd "$out" && ./pg && rm -f gmon.out) ;;
	fi-empty) "$out/fi-empty" ;;
	cgc-calls) CGCOLLECT_TIME=calls CGCOLLECT_OUTPUT="$out/bench.cgt" "$out/cgcollect" ;;
	cgc-cpu) CGCOLLECT_TIME=cpu CGCOLLECT_OUTPUT="$out/bench.cgt" "$out/cgcollect" ;;
	uftrace) uftrace record -d "$out/uftrace.data" "$out/pg" 2>/dev/null; rm -rf "$out/uftrace.data" ;;
	esac
}

: >"$out/raw.txt"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	for v in $variants; do
		run_variant "$v" | awk -v v="$v" -v r="$r" '{ print v, r, $1, $2, $3 }' >>"$out/raw.txt"
	done
	r=$((r + 1))
done

# Median ns/call per (variant, phase); ratio of medians to plain.
awk '
{ key = $1 " " $3; n[key]++; x[key, n[key]] = $5 / $4; calls[$3] = $4; seen[$1] = ++order[$1] == 1 ? ++nv : seen[$1]; if (order[$1] == 1) names[nv] = $1 }
END {
	split("fib tree qsort", ph, " ")
	for (k in n) {
		m = n[k]
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (x[k, j] < x[k, i]) { t = x[k, i]; x[k, i] = x[k, j]; x[k, j] = t }
		med[k] = m % 2 ? x[k, (m + 1) / 2] : (x[k, m / 2] + x[k, m / 2 + 1]) / 2
	}
	printf "%-10s", "variant"
	for (p = 1; p <= 3; p++) printf " %9s %7s", ph[p] " ns", "xplain"
	printf "\n"
	for (i = 1; i <= nv; i++) {
		v = names[i]; printf "%-10s", v
		for (p = 1; p <= 3; p++) { k = v " " ph[p]; printf " %9.2f %7.2f", med[k], med[k] / med["plain " ph[p]] }
		printf "\n"
	}
	printf "calls per phase: fib %d, tree %d, qsort %d\n", calls["fib"], calls["tree"], calls["qsort"]
}' "$out/raw.txt" | tee "$out/summary.txt"
echo "(median of $ROUNDS interleaved rounds; thread CPU time per instrumented call; raw data in $out/raw.txt)"
