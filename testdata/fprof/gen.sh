#!/bin/sh
# Regenerates fprof traces and fprof's analyses of the test programs.
#   sh gen.sh OUTDIR [PROGRAM...]
# For each program P (default: every fpt_*.erl here): OUTDIR/P.trace from
# fprof:apply(P, run, []), then fprof:profile and fprof:analyse with all 16
# option sets: OUTDIR/P.<callers>-<sort>-<totals>-<details>.analysis, e.g.
# P.callers-acc-nototals-details.analysis (fprof's defaults).
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$1; shift
mkdir -p "$OUT"
[ $# -gt 0 ] || set -- $(cd "$HERE" && ls fpt_*.erl | sed 's/\.erl$//')
for p in "$@"; do
	erlc -o "$OUT" "$HERE/$p.erl"
done
cd "$OUT"
for p in "$@"; do
	erl -noshell -pa . -eval "
{module, _} = code:ensure_loaded($p),
_ = fprof:apply($p, run, [], [{file, \"$p.trace\"}]),
ok = fprof:profile([{file, \"$p.trace\"}]),
[ok = fprof:analyse([{dest, \"$p.\" ++ Name ++ \".analysis\"}, C, {sort, S}, {totals, T}, D])
 || {C, CN} <- [{callers, \"callers\"}, {no_callers, \"no_callers\"}],
    {S, SN} <- [{acc, \"acc\"}, {own, \"own\"}],
    {T, TN} <- [{false, \"nototals\"}, {true, \"totals\"}],
    {D, DN} <- [{details, \"details\"}, {no_details, \"no_details\"}],
    Name <- [CN ++ \"-\" ++ SN ++ \"-\" ++ TN ++ \"-\" ++ DN]],
halt()." >/dev/null
done
