#!/bin/bash
# cgdiff on Erlang fprof traces (microseconds: a measured event, no noise
# model) and per process (--parts).
. "$CG_TOP/tests/lib.sh"
require_tool xmllint

g=$CG_TOP/testdata/fprof/golden
cd "$WORK" || exit 1
exit_status "a trace against itself: no change anywhere, per process too" 0 \
	"$BIN/cgdiff" --parts --fail 'self<>0' --fail 'inclusive<>0' --fail 'calls<>0' \
	--fail 'arcs<>0' --fail 'total<>0' "$g/fpdemo.trace" "$g/fpdemo.trace"
"$BIN/cgdiff" -t xml -o d.xml "$g/fpt_args.trace" "$g/fpt_args2.trace"
is "two different programs: exit 1" "$?" 1
is "microseconds are a measured event" \
	"$(xmllint --xpath 'string(/cgdiff/event[@name="us"]/@kind)' d.xml)" measured
is "measured events get no noise bound" \
	"$(xmllint --xpath 'count(/cgdiff/finding[@noise-bound!="0"])' d.xml)" 0
exit_status "a time limit in microseconds on a measured event" 0 \
	"$BIN/cgdiff" --fail 'self>1s' "$g/fpt_args.trace" "$g/fpt_args2.trace"
exit_status "...and one the change exceeds" 1 \
	"$BIN/cgdiff" --fail 'self>10us' "$g/fpt_args.trace" "$g/fpt_args2.trace"
done_testing
