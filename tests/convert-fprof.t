#!/usr/bin/env bash
# Erlang fprof inputs through cgconvert: a trace recorded here (several
# processes) and fprof's own analysis of it convert to Callgrind that
# callgrind_annotate reads without warning, and their XML image validates
# and converts back to byte-identical output in every format, fprof's
# analysis text included.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool erl erlc callgrind_annotate xmllint
sh "$CG_TOP/testdata/fprof/gen.sh" "$WORK" fpt_procs fpt_rec >"$WORK/gen.log" 2>&1 ||
	{ echo "Bail out! recording the fprof traces failed"; cat "$WORK/gen.log"; exit 1; }
schema=$CG_TOP/docs/xml-schema.rng
cd "$WORK" || exit 1
for p in fpt_procs fpt_rec; do
	for in in $p.trace $p.callers-acc-nototals-details.analysis; do
		ok "$in: converts to XML" "$BIN/cgconvert" -t xml -o x.xml "$in"
		ok "$in: XML validates" xmllint --noout --relaxng "$schema" x.xml
		for t in gprof callgrind dot folded xml fprof; do
			"$BIN/cgconvert" -t $t -o direct.$t "$in"
			"$BIN/cgconvert" -t $t -o via.$t x.xml
			cmp_files "$in -> xml -> $t is byte-identical" via.$t direct.$t
		done
		"$BIN/cgconvert" -t fprof --fprof-analyse='{totals,true}' -o direct.t "$in"
		"$BIN/cgconvert" -t fprof --fprof-analyse='{totals,true}' -o via.t x.xml
		cmp_files "$in -> xml -> fprof {totals,true} is byte-identical" via.t direct.t
		"$BIN/cgconvert" -t callgrind --merge-parts -o m.cg "$in"
		callgrind_annotate --inclusive=yes m.cg >m.ann 2>&1
		is "$in: callgrind_annotate reads the Callgrind output without warning" \
			"$(grep -ci -e warning -e uninitialized m.ann)" "0"
	done
done
done_testing
