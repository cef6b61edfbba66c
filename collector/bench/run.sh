#!/bin/sh
# collector/bench/run.sh — cost per call of profilers on the same
# call-heavy workloads (bench.c: fib, tree walk, qsort callback):
# plain, -pg (gprof's mcount), empty -finstrument-functions hooks (the
# floor), hooks that only count the call depth (the least a hook following
# the call stack pays), hooks that keep the collector's shadow stack and
# nothing else (hooks_frame.c: its way of following the stack, without the
# tree), our collector in calls mode and in cpu mode, and
# uftrace record when installed.  Rounds are interleaved; the median of each is printed as ns
# per call (thread CPU time) and as a ratio to plain.
#   B=build CC=cc ROUNDS=9 sh collector/bench/run.sh
# BASELINE=path/to/libcgcollect.a adds that build of the collector as
# base-calls and base-cpu to the same interleaved rounds (before/after a
# change to the hooks; make bench-collector BASELINE=...).
set -eu
B=${B:-build}
CC=${CC:-cc}
ROUNDS=${ROUNDS:-9}
here=$(dirname "$0")
out=$B/bench/collector
mkdir -p "$out"
export LC_ALL=C
flags="-std=c11 -O2 -g -D_GNU_SOURCE -fno-pie -no-pie"

$CC $flags -o "$out/plain" "$here/bench.c"
$CC $flags -pg -o "$out/pg" "$here/bench.c"
$CC -std=c11 -O2 -c -o "$out/hooks_empty.o" "$here/hooks_empty.c"
$CC $flags -finstrument-functions -o "$out/fi-empty" "$here/bench.c" "$out/hooks_empty.o"
$CC -std=c11 -O2 -c -o "$out/hooks_depth.o" "$here/hooks_depth.c"
$CC $flags -finstrument-functions -o "$out/fi-depth" "$here/bench.c" "$out/hooks_depth.o"
$CC -std=c11 -O2 -c -o "$out/hooks_frame.o" "$here/hooks_frame.c"
$CC $flags -finstrument-functions -o "$out/fi-frame" "$here/bench.c" "$out/hooks_frame.o"
$CC $flags -finstrument-functions -o "$out/cgcollect" "$here/bench.c" "$B/lib/libcgcollect.a" -pthread
# The same hooks in a section of their own, with the collector's tick
# measure (sampler.c): the share of ticks that land in an empty hook or a
# depth counter, the floor of the collector's distortion figure.  Used for
# that figure only; the timed fi-empty and fi-depth above are unchanged.
$CC -std=c11 -O2 -c -o "$out/sampler.o" "$here/sampler.c"
for h in empty depth frame; do
	$CC -std=c11 -O2 -DHOOK_TEXT -c -o "$out/hooks_${h}_ticks.o" "$here/hooks_$h.c"
	$CC $flags -finstrument-functions -o "$out/fi-$h-ticks" "$here/bench.c" "$out/hooks_${h}_ticks.o" \
		"$out/sampler.o" -pthread
done

variants="plain pg fi-empty fi-depth fi-frame cgc-calls cgc-cpu"
if [ -n "${BASELINE:-}" ]; then
	$CC $flags -finstrument-functions -o "$out/cgcollect-base" "$here/bench.c" "$BASELINE" -pthread
	variants="$variants base-calls base-cpu"
fi
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
	fi-depth) "$out/fi-depth" ;;
	fi-frame) "$out/fi-frame" ;;
	cgc-calls) CGCOLLECT_TIME=calls CGCOLLECT_OUTPUT="$out/bench.cgt" "$out/cgcollect" ;;
	base-calls) CGCOLLECT_TIME=calls CGCOLLECT_OUTPUT="$out/base.cgt" "$out/cgcollect-base" ;;
	base-cpu) CGCOLLECT_TIME=cpu CGCOLLECT_OUTPUT="$out/base.cgt" "$out/cgcollect-base"
		awk -v r="$r" '$1 == "endthread" { for (i = 3; i < NF; i += 2) v[$i] += $(i + 1) }
			END { print "base-cpu", r, v["overhead"] + 0, v["samples"] + 0 }' "$out/base.cgt" >>"$out/distortion.txt" ;;
	cgc-cpu) CGCOLLECT_TIME=cpu CGCOLLECT_OUTPUT="$out/bench.cgt" "$out/cgcollect"
		# The collector's own distortion figure: ticks that landed in
		# its code / all ticks (endthread records of the file).
		awk -v r="$r" '$1 == "endthread" { for (i = 3; i < NF; i += 2) v[$i] += $(i + 1) }
			END { print "cgc-cpu", r, v["overhead"] + 0, v["samples"] + 0 }' "$out/bench.cgt" >>"$out/distortion.txt"
		# The same measure on the empty, depth-counting and frame hooks.
		for h in empty depth frame; do
			: >"$out/ticks.txt"
			BENCH_TICKS="$out/ticks.txt" "$out/fi-$h-ticks" >/dev/null
			awk -v h="fi-$h" -v r="$r" '{ print h, r, $1, $2 }' "$out/ticks.txt" >>"$out/distortion.txt"
		done ;;
	uftrace) uftrace record -d "$out/uftrace.data" "$out/pg" 2>/dev/null; rm -rf "$out/uftrace.data" ;;
	esac
}

: >"$out/raw.txt"
: >"$out/distortion.txt"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	for v in $variants; do
		run_variant "$v" | awk -v v="$v" -v r="$r" '{ print v, r, $1, $2, $3 }' >>"$out/raw.txt"
	done
	r=$((r + 1))
done

# Per round: ns/call of each (variant, phase), and its cost over plain as a
# multiple of that round's empty-hook floor (fi-empty - plain): rounds are
# interleaved, so a ratio taken within a round cancels most of the load a
# shared machine puts on all variants alike.  Printed: the median over
# rounds of ns/call, of the ratio to plain and of that multiple (xfloor,
# the figure issue 12 sets at <= 1.5); the distortion, the share of the
# run's CPU time that is the profiler's (1 - plain/variant over the three
# phases), comparable across -pg, uftrace and us; and our own figure in cpu
# mode (collector ticks / all ticks, from the file; median of rounds).
awk -v dist="$out/distortion.txt" '
{ v = $1; r = $2; p = $3; ns[v, p, r] = $5 / $4; calls[p] = $4; rounds[r] = 1
  if (!(v in seen)) { seen[v] = 1; names[++nv] = v } }
function median(a, m,   i, j, t) {
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
END {
	split("fib tree qsort", ph, " ")
	for (i = 1; i <= nv; i++) for (p = 1; p <= 3; p++) {
		v = names[i]; m = 0; split("", a); split("", b); split("", c); split("", d)
		for (r in rounds) {
			pl = ns["plain", ph[p], r]; fl = ns["fi-empty", ph[p], r] - pl
			a[++m] = ns[v, ph[p], r]; b[m] = a[m] / pl; c[m] = (a[m] - pl) / fl
			d[m] = 1 - pl / a[m]
		}
		med[v, p] = median(a, m); xpl[v, p] = median(b, m); xfl[v, p] = median(c, m)
	}
	printf "%-10s", "variant"
	for (p = 1; p <= 3; p++) printf " %9s %6s %6s", ph[p] " ns", "xplain", "xfloor"
	printf " %10s\n", "distortion"
	for (i = 1; i <= nv; i++) {
		v = names[i]; printf "%-10s", v
		tv = 0; tp = 0
		for (p = 1; p <= 3; p++) {
			printf " %9.2f %6.2f", med[v, p], xpl[v, p]
			if (v == "plain") printf " %6s", "-"; else printf " %6.2f", xfl[v, p]
			tv += med[v, p] * calls[ph[p]]; tp += med["plain", p] * calls[ph[p]]
		}
		if (v == "plain") printf " %10s\n", "-"; else printf " %9.1f%%\n", 100 * (1 - tp / tv)
	}
	printf "calls per phase: fib %d, tree %d, qsort %d\n", calls["fib"], calls["tree"], calls["qsort"]
	for (i = 1; i <= nv; i++) {
		v = names[i]
		if (v !~ /^(cgc-|base-|fi-depth|fi-frame)/) continue
		printf "%-9s cost per call over the empty-hook floor: fib %.2fx, tree %.2fx, qsort %.2fx %s\n",
			v, xfl[v, 1], xfl[v, 2], xfl[v, 3], v ~ /^cgc-/ ? "(goal <= 1.5x)" : v ~ /^base-/ ? "(baseline build)" : v == "fi-frame" ? "(reference: the collector'"'"'s shadow stack only)" : "(reference: depth counter only)"
	}
	while ((getline line < dist) > 0) {
		split(line, f, " ")
		if (f[4] > 0) { nd[f[1]]++; dv[f[1], nd[f[1]]] = f[3] / f[4] }
	}
	if (nd["cgc-cpu"]) {
		printf "self-measured distortion (ticks in the hooks / all ticks, 1 kHz CPU-time timer, median of %d runs):\n", nd["cgc-cpu"]
		split("fi-empty fi-depth fi-frame cgc-cpu base-cpu", dn, " ")
		for (i = 1; i <= 5; i++) {
			m = 0; split("", e)
			for (j = 1; j <= nd[dn[i]]; j++) e[++m] = dv[dn[i], j]
			what = " (a depth counter)"
			if (dn[i] == "fi-frame") what = " (the collector'"'"'s shadow stack, no tree)"
			if (dn[i] == "fi-empty") what = " (hooks that only return: the floor of this figure)"
			if (dn[i] == "cgc-cpu") what = " (the collector'"'"'s own figure: overhead / samples in its file)"
			if (dn[i] == "base-cpu") what = " (the same, baseline build)"
			if (m) printf "  %-9s %5.1f%%%s\n", dn[i], 100 * median(e, m), what
		}
	}
	print "xfloor: (variant - plain) / (fi-empty - plain) per call, median of the rounds'"'"' ratios;"
	print "  fi-depth (a thread-local depth counter, nothing else) is what following the stack costs at least;"
	print "  fi-frame (the collector'"'"'s shadow-stack push and pop, no tree) is what its way of following it costs"
	print "distortion: share of the three phases'"'"' CPU time spent in the profiler, 1 - plain/variant"
}' "$out/raw.txt" | tee "$out/summary.txt"
echo "(median of $ROUNDS interleaved rounds; thread CPU time per instrumented call; raw data in $out/raw.txt)"
