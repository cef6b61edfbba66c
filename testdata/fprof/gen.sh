#!/bin/sh
# Regenerates fprof traces and fprof's analyses of the test programs.
#   sh gen.sh OUTDIR [PROGRAM...]
# For each program P (default: every fpt_*.erl here, plus a verbose and a
# cpu_time trace): OUTDIR/P.trace from fprof:apply(P, run, []), then fprof:profile and fprof:analyse with all 16
# option sets: OUTDIR/P.<callers>-<sort>-<totals>-<details>.analysis, e.g.
# P.callers-acc-nototals-details.analysis (fprof's defaults).
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$1; shift
mkdir -p "$OUT"
ALL=
[ $# -gt 0 ] || { ALL=1; set -- $(cd "$HERE" && ls fpt_*.erl | sed 's/\.erl$//'); }
for p in "$@"; do
	erlc -o "$OUT" "$HERE/$p.erl"
done
cd "$OUT"
# NAME MODULE EXTRA-TRACE-OPTIONS: the programs as given, plus (when all are
# traced) a verbose trace (argument lists, send/receive messages) and a
# cpu_time trace.
runs=""
for p in "$@"; do runs="$runs $p:$p:"; done
[ -n "$ALL" ] && runs="$runs fpt_procs_verbose:fpt_procs:verbose fpt_args_cputime:fpt_args:cpu_time"
for run in $runs; do
	p=${run%%:*}; rest=${run#*:}; m=${rest%%:*}; extra=${rest#*:}
	[ -n "$extra" ] && extra=", $extra"
	erl -noshell -pa . -eval "
{module, _} = code:ensure_loaded($m),
_ = fprof:apply($m, run, [], [{file, \"$p.trace\"}$extra]),
ok = fprof:profile([{file, \"$p.trace\"}]),
[ok = fprof:analyse([{dest, \"$p.\" ++ Name ++ \".analysis\"}, C, {sort, S}, {totals, T}, D])
 || {C, CN} <- [{callers, \"callers\"}, {no_callers, \"no_callers\"}],
    {S, SN} <- [{acc, \"acc\"}, {own, \"own\"}],
    {T, TN} <- [{false, \"nototals\"}, {true, \"totals\"}],
    {D, DN} <- [{details, \"details\"}, {no_details, \"no_details\"}],
    Name <- [CN ++ \"-\" ++ SN ++ \"-\" ++ TN ++ \"-\" ++ DN]],
halt()." >/dev/null
done
