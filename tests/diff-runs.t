#!/bin/bash
# cgdiff over repeated runs (BASE... -- NEW...): medians and the
# Mann-Whitney U test.
#  - the p-values equal SciPy's (Debian python3-scipy): an exact
#    exact Mann-Whitney distribution (no ties), an exact permutation test
#    of the midrank sum (ties), mannwhitneyu's asymptotic test above 40 runs;
#  - on real programs: prog.c timed by cgrun's cpu samples (unchanged runs
#    pass, target() made slower fails) and pool.c's nondeterministic
#    polling counts (unchanged runs pass, an added call fails);
#  - too few runs to reach the false-alarm rate is an error (exit 2).
. "$CG_TOP/tests/lib.sh"
require_tool gcc /usr/bin/python3
/usr/bin/python3 -c 'import scipy' 2>/dev/null ||
	{ echo "Bail out! python3-scipy is missing (run scripts/install-deps.sh)"; exit 1; }

cd "$WORK" || exit 1

# ---- p-values against SciPy -------------------------------------------------------
# cases: "op|base values|new values"
cases='>|11 12 13|16 17 18
<>|11 12 13|16 17 18
>|5 5 6 7|6 7 7 8
<>|5 5 6 7 9|6 7 7 8 2
>|10 10 10 11 12 12 13|10 11 12 12 12 14 15 16
>|100 103 98 101 99 102 100 97 104 100|104 108 103 106 109 105 104 107 110 103
<>|1 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30 32 34 36 38|3 5 7 9 11 13 15 17 19 21 23 25 27 29 31 33 35 37 39 41
>|101 103 105 107 109 111 113 115 117 119 121 123 125 127 129 131 133 135 137 139|108 110 112 114 116 118 120 122 124 126 128 130 132 134 136 138 140 142 144 146
>|1 2 2 3 3 3 4 4 4 4 5 5 5 5 5 6 6 6 7 9 3 4 5 6 7|2 3 3 4 4 5 5 5 6 6 6 6 7 7 7 8 8 9 9 9 5 6 7 8 9
<>|50 52 49 51 53 48 50 52 51 49 50 52 49 51 53 48 50 52 51 49 50 52 49 51 53|50 53 52 51 54 49 50 55 51 52 50 53 52 51 54 49 50 55 51 52 51 50 52 56 53'
xml_profile() {  # file value
	printf '<?xml version="1.0" encoding="UTF-8"?>\n<callgraph version="1" xmlns="urn:x-callgraph:profile:1">\n <event name="ticks" unit-seconds="0.01"/>\n <function id="0" name="f"/>\n <part name="p"><self fn="0" costs="%s"/></part>\n</callgraph>\n' "$2" >"$1"
}
n=0
while IFS='|' read -r op base new; do
	n=$((n + 1))
	rm -f c*.xml
	bs=() ns=()
	i=0; for v in $base; do i=$((i + 1)); xml_profile "cb$i.xml" "$v"; bs+=("cb$i.xml"); done
	i=0; for v in $new; do i=$((i + 1)); xml_profile "cn$i.xml" "$v"; ns+=("cn$i.xml"); done
	got=$("$BIN/cgdiff" --alpha=0.99 --fail "self(f)${op}0" -t xml "${bs[@]}" -- "${ns[@]}" |
		sed -n 's/.* p-value="\([^"]*\)".*/\1/p')
	want=$(/usr/bin/python3 - "$op" "$base" "$new" <<'EOF'
import sys
import numpy as np
from scipy import stats
op, b, n = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
alt = "greater" if op == ">" else "two-sided"
if len(set(b + n)) == len(b + n) and len(b) + len(n) <= 40:
    # no ties: SciPy's exact Mann-Whitney distribution
    print(repr(float(stats.mannwhitneyu(n, b, alternative=alt, method="exact").pvalue)))
elif len(b) + len(n) <= 20:
    # ties: every way of splitting the pooled runs, statistic the new runs' midrank sum
    def stat(x, y):
        return stats.rankdata(np.concatenate([x, y]))[len(x):].sum()
    # SciPy's two-sided permutation p doubles the smaller tail, as cgdiff does
    r = stats.permutation_test((b, n), stat, permutation_type="independent",
                               alternative="greater" if alt == "greater" else "two-sided",
                               n_resamples=np.inf)
    print(repr(float(r.pvalue)))
else:
    print(repr(float(stats.mannwhitneyu(n, b, alternative=alt, method="asymptotic").pvalue)))
EOF
)
	close=$(/usr/bin/python3 -c "import sys; g, w = float(sys.argv[1] or 'nan'), float(sys.argv[2]); print(int(abs(g - w) <= 1e-9 * max(w, 1e-300) + 1e-15))" "$got" "$want")
	is "p-value of case $n ($op, $(echo $base | wc -w)+$(echo $new | wc -w) runs) equals SciPy's ($want)" "$close" 1
	[ "$close" = 1 ] || diag "cgdiff: $got"
done <<<"$cases"

# ---- timed runs of a real program --------------------------------------------------------
cp "$CG_TOP/testdata/diff/prog.c" prog.c
gcc -finstrument-functions -O1 -g -DSCALE=3000000UL -o prog prog.c &&
gcc -finstrument-functions -O1 -g -DSCALE=3000000UL -DSLOW=2 -o slow prog.c ||
	{ echo "Bail out! cannot build prog.c"; exit 1; }
# Runs interleaved, as the recipe advises: a machine whose load drifts
# between a batch of base runs and a batch of new runs shifts them all.
for i in $(seq 1 6); do
	"$BIN/cgrun" -q --time=cpu -o "base$i.cgt" ./prog >/dev/null
	"$BIN/cgrun" -q --time=cpu -o "slow$i.cgt" ./slow >/dev/null
	"$BIN/cgrun" -q --time=cpu -o "base$((i + 6)).cgt" ./prog >/dev/null
done
out=$("$BIN/cgdiff" --fail 'self>10%' base{1..6}.cgt -- base{7..12}.cgt)
is "cpu samples, 6 unchanged runs against 6: exit 0" "$?" 0
like "... the table says it compares medians" "$out" "^runs: 6 base, 6 new \(values are medians"
"$BIN/cgdiff" --fail 'self>10%' -t tap base{1..6}.cgt -- slow{1..6}.cgt >slow.tap
is "cpu samples, target() twice as slow: exit 1" "$?" 1
is "... target is what fails" "$(failing_names <slow.tap)" "function target;"
grep -q 'Mann-Whitney p=' slow.tap
is "... with the test's p-value as the reason" "$?" 0
out=$("$BIN/cgdiff" --fail 'self>10%' base1.cgt base2.cgt base3.cgt -- slow1.cgt slow2.cgt slow3.cgt 2>&1)
is "3 runs a side cannot reach the false-alarm rate: exit 2" "$?" 2
like "... saying how many runs it needs" "$out" "use at least [0-9]+ runs per side"
# One run a side is judged by the Poisson bound, not Mann-Whitney: fixed
# sample counts, since how many samples a timed run gets follows the
# machine (a loaded CI run gave target() too few to pass the bound).
xml_profile one-base.xml 100
xml_profile one-slow.xml 300
xml_profile one-noise.xml 115
exit_status "a single run of each side keeps the Poisson test: 100 -> 300 samples fails" 1 \
	"$BIN/cgdiff" --fail 'self>10%' one-base.xml one-slow.xml
exit_status "... 100 -> 115 samples is over the limit but within the noise bound" 0 \
	"$BIN/cgdiff" --fail 'self>10%' one-base.xml one-noise.xml
exit_status "repeated runs cannot be combined with --parts" 2 \
	"$BIN/cgdiff" --parts base1.cgt base2.cgt -- base3.cgt base4.cgt

# ---- a thread pool's varying call counts ------------------------------------------------------------
gcc -finstrument-functions -O1 -g -pthread -o pool "$CG_TOP/testdata/diff/pool.c" &&
gcc -finstrument-functions -O1 -g -pthread -DEXTRA=1 -o pool-extra "$CG_TOP/testdata/diff/pool.c" ||
	{ echo "Bail out! cannot build pool.c"; exit 1; }
for i in $(seq 1 6); do
	for k in 0 6 12; do "$BIN/cgrun" -q --time=calls -o "pool$((i + k)).cgt" ./pool >/dev/null; done
	"$BIN/cgrun" -q --time=calls -o "extra$i.cgt" ./pool-extra >/dev/null
done
pass=0
for k in 0 6; do
	"$BIN/cgdiff" -q pool$((1 + k)).cgt pool$((2 + k)).cgt pool$((3 + k)).cgt pool$((4 + k)).cgt \
		pool$((5 + k)).cgt pool$((6 + k)).cgt -- pool{13..18}.cgt && pass=$((pass + 1))
done
is "the pool: unchanged 6 runs against 6 pass (2 of 2 sets)" "$pass" 2
"$BIN/cgdiff" -t tap pool{13..18}.cgt -- extra{1..6}.cgt >extra.tap
is "the pool with one more job() call: exit 1" "$?" 1
is "... job and checksum -> job fail, exactly (not the polling)" "$(failing_names <extra.tap)" \
	"arc checksum -> job;function job;"
done_testing
