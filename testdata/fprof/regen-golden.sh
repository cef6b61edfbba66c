#!/bin/sh
# Regenerates the stored goldens in golden/: fresh traces of the fpt_*.erl
# programs and fprof's analyses of them for four option sets (pids and
# timestamps change on every run; the tests compare our output with
# whatever fprof printed for the stored trace).  Needs erl/erlc.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
sh "$HERE/gen.sh" "$TMP"
mkdir -p "$HERE/golden"
for t in "$TMP"/*.trace; do
	case $t in *_verbose.trace) continue ;; esac   # keeps golden/ under 1 MB
	p=$(basename "$t" .trace)
	cp "$t" "$HERE/golden/"
	for o in callers-acc-nototals-details no_callers-own-totals-details \
		 callers-acc-totals-no_details callers-own-totals-details; do
		cp "$TMP/$p.$o.analysis" "$HERE/golden/"
	done
done
