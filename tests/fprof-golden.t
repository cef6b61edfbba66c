#!/bin/bash
# Stored goldens (no Erlang needed): traces recorded with fprof:apply and the
# analyses fprof:analyse printed for them (testdata/fprof/golden, made by
# testdata/fprof/regen-golden.sh; fpdemo and synth come from the spec's
# example set).  Our trace reader + analysis writer must print identical text.
. "$CG_TOP/tests/lib.sh"
G=$CG_TOP/testdata/fprof/golden
DRV=$CG_BUILD/tests/test_fprof

# file name part "callers-acc-nototals-details" -> our option list
opts_of() {
	echo "$1" | awk -F- '{ printf "%s,sort=%s,%s,%s", $1, $2, ($3 == "totals" ? "totals" : "no_totals"), $4 }'
}

n=0
for a in "$G"/*.analysis; do
	base=$(basename "$a" .analysis)
	prog=${base%%.*}
	set=${base#*.}
	"$DRV" trace "$G/$prog.trace" "$(opts_of "$set")" >"$WORK/out" 2>"$WORK/err"
	cmp_files "$prog [$set] identical to fprof:analyse" "$WORK/out" "$a"
	n=$((n + 1))
done
# the analysis reader: read fprof's text, write it again with the same options
for a in "$G"/*.analysis; do
	base=$(basename "$a" .analysis)
	set=${base#*.}
	"$DRV" analysis "$a" "$(opts_of "$set")" >"$WORK/out" 2>"$WORK/err"
	cmp_files "$base: analysis text read back and rewritten unchanged" "$WORK/out" "$a"
done
is "golden analyses found" "$([ $n -ge 20 ] && echo yes)" yes

# the tree agrees with the table: folded self costs sum to fprof's OWN total
for t in "$G"/*.trace; do
	prog=$(basename "$t" .trace)
	own=$("$DRV" trace "$t" | awk -F, '/^\[\{ totals,/ { gsub(/[ }\]]/, "", $4); printf "%.0f\n", $4 * 1000 }')
	fold=$("$DRV" folded "$t" | awk '{ s += $NF } END { printf "%.0f\n", s }')
	is "$prog: folded stacks sum to the OWN total" "$fold" "$own"
done
done_testing
