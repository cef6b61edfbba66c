#!/bin/bash
# Differential test against the real fprof (Erlang/OTP): fresh traces of the
# programs in testdata/fprof (one process; many processes with messages;
# heavy GC; deep self and mutual recursion and a tail-call cycle; long
# tail-call chains; exceptions, a crashing process, quoted and non-Latin-1
# atoms; spawn arguments of many shapes; plus a verbose and a cpu_time
# trace) are profiled by
# fprof:profile and analysed by fprof:analyse with all 16 option sets; our
# reader + writer must print the identical text for the same trace.
. "$CG_TOP/tests/lib.sh"
require_tool erl erlc
DRV=$CG_BUILD/tests/test_fprof
if ! sh "$CG_TOP/testdata/fprof/gen.sh" "$WORK/gen" >"$WORK/gen.log" 2>&1; then
	echo "Bail out! tracing the Erlang test programs failed"
	sed 's/^/# /' "$WORK/gen.log" | tail -20
	exit 1
fi
opts_of() {
	echo "$1" | awk -F- '{ printf "%s,sort=%s,%s,%s", $1, $2, ($3 == "totals" ? "totals" : "no_totals"), $4 }'
}
for t in "$WORK"/gen/*.trace; do
	prog=$(basename "$t" .trace)
	same=0 total=0
	for a in "$WORK/gen/$prog".*.analysis; do
		set=${a#"$WORK/gen/$prog."}
		set=${set%.analysis}
		total=$((total + 1))
		if "$DRV" trace "$t" "$(opts_of "$set")" >"$WORK/out" 2>"$WORK/err" &&
		   cmp -s "$WORK/out" "$a"; then
			same=$((same + 1))
		else
			diag "$prog [$set] differs:"
			diff "$a" "$WORK/out" | head -10 | sed 's/^/# /'
		fi
	done
	is "$prog: all $total fprof:analyse option sets identical" "$same/$total" "16/16"
done
is "all programs traced" "$(ls "$WORK"/gen/*.trace | wc -l | tr -d ' ')" \
	"$(( $(ls "$CG_TOP"/testdata/fprof/fpt_*.erl | wc -l) + 2 ))"
done_testing
