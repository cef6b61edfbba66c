#!/usr/bin/env bash
# Malformed Callgrind and XML inputs: cgconvert exits 3 with one line
# naming the file and the line and saying what is wrong (expected text
# in testdata/convert/bad/NAME.err), and leaves no output file behind.
# Usage errors exit 2.
. "${CG_TOP:-.}/tests/lib.sh"
bad=$CG_TOP/testdata/convert/bad
cd "$bad" || exit 1
for f in *.cg *.xml; do
	case $f in *.cg) fmt=callgrind ;; *) fmt=xml ;; esac
	out=$WORK/out.$f
	"$BIN/cgconvert" -f $fmt -t xml -o "$out" "$f" 2>"$WORK/err"
	rc=$?
	is "$f: exit 3, message with line number" "$rc $(cat "$WORK/err")" "3 $(cat "$f.err")"
	is "$f: no output file left" "$(ls "$WORK" | grep -c "^out\.")" "0"
done
cd "$WORK" || exit 1
exit_status "no -t: usage error" 2 "$BIN/cgconvert" "$bad/empty.cg"
exit_status "unknown output format: usage error" 2 "$BIN/cgconvert" -t png "$bad/empty.cg"
exit_status "unknown input format: usage error" 2 "$BIN/cgconvert" -f png -t xml "$bad/empty.cg"
exit_status "missing input file: exit 3" 3 "$BIN/cgconvert" -t xml "$WORK/nonexistent"
printf 'just some text\n' >"$WORK/text"
"$BIN/cgconvert" -t xml "$WORK/text" 2>"$WORK/err"
is "undetectable input: says to use -f" "$(cat "$WORK/err")" \
	"cgconvert: $WORK/text: unknown profile format (use -f to name it)"
exit_status "inputs of two kinds are not merged" 3 \
	"$BIN/cgconvert" -t xml "$CG_TOP/testdata/convert/wrapper-arcs.cg" "$CG_TOP/testdata/fuzz/xml/cycle.xml"
# an existing output file is not touched by a failed conversion
echo keep >"$WORK/existing"
"$BIN/cgconvert" -f callgrind -t xml -o "$WORK/existing" "$bad/bad-number.cg" 2>/dev/null
is "a failed conversion leaves an existing output untouched" "$(cat "$WORK/existing")" "keep"
done_testing
