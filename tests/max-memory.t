#!/bin/bash
# --max-memory: a reader that needs more than the budget fails cleanly
# (exit 3, one line naming the file and the limit, no output file left),
# and the same input reads fine without the small limit.  One generated
# input per text format family (Callgrind, cgtree, XML, folded), and
# cgdiff on two profiles.
. "$CG_TOP/tests/lib.sh"
cd "$WORK"

# 60k functions in a call chain: some 20 MB of model, far above 4 MB.
awk -v n=60000 'BEGIN { print "# callgrind format"; print "events: Ir"
	for (i = 0; i < n; i++) printf "fn=f%d\n1 %d\ncfn=f%d\ncalls=1 0\n0 1\n", i, i + 1, i + 1 }' > big.cg
awk -v N=100000 -f "$CG_TOP/bench/scale/gen-cgtree.awk" > big.cgt
"$BIN/cgconvert" -t xml -o big.xml big.cg
"$BIN/cgconvert" -t folded -o big.folded big.cgt
ok "inputs generated" test -s big.xml -a -s big.folded

limit='exceeds the memory limit of 4 MB \(--max-memory\)$'
for input in big.cg big.cgt big.xml big.folded; do
	"$BIN/cgconvert" --max-memory=4 -t callgrind -o out.cg "$input" >/dev/null 2>err.txt
	is "$input, --max-memory=4: exit 3" "$?" 3
	like "$input, --max-memory=4: one line naming the file and the limit" "$(cat err.txt)" \
		"^cgconvert: $input: $limit"
	is "$input, --max-memory=4: one line" "$(wc -l < err.txt)" 1
	ok "$input, --max-memory=4: no output file" test ! -e out.cg
	ok "$input, --max-memory=4: no temporary file" test -z "$(ls -A | grep '^\.\?out\.cg')"
	"$BIN/cgconvert" -t callgrind -o out.cg "$input" 2>err.txt
	is "$input, default limit: exit 0" "$?" 0
	ok "$input, default limit: output written" test -s out.cg
	"$BIN/cgconvert" --max-memory=0 -t callgrind -o out0.cg "$input" 2>err.txt
	is "$input, --max-memory=0 (no limit): exit 0" "$?" 0
	cmp_files "$input: the limit does not change the output" out.cg out0.cg
	rm -f out.cg out0.cg
done

# A limit in other units.
"$BIN/cgconvert" --max-memory=4096K -t callgrind -o out.cg big.cg 2>err.txt
is "--max-memory=4096K is 4 MB: exit 3" "$?" 3
like "--max-memory=4096K: says 4 MB" "$(cat err.txt)" "$limit"
"$BIN/cgconvert" --max-memory=1G -t callgrind -o out.cg big.cg 2>err.txt
is "--max-memory=1G: exit 0" "$?" 0
for bad in -1 x 12Q ''; do
	"$BIN/cgconvert" --max-memory="$bad" -t callgrind -o out2.cg big.cg 2>err.txt
	is "--max-memory='$bad': usage error, exit 2" "$?" 2
	like "--max-memory='$bad': says what is wrong" "$(cat err.txt)" "^cgconvert: --max-memory: '$bad' is not a size"
done

# cgdiff: the budget covers both profiles and the comparison.
awk -v n=60000 'BEGIN { print "# callgrind format"; print "events: Ir"
	for (i = 0; i < n; i++) printf "fn=f%d\n1 %d\ncfn=f%d\ncalls=1 0\n0 1\n", i, i + 2, i + 1 }' > other.cg
"$BIN/cgdiff" --max-memory=4 -q big.cg other.cg 2>err.txt
is "cgdiff --max-memory=4: exit 3" "$?" 3
like "cgdiff --max-memory=4: names the first file" "$(cat err.txt)" "^cgdiff: big.cg: $limit"
"$BIN/cgdiff" -o report.txt big.cg other.cg 2>err.txt
rc=$?
ok "cgdiff without the small limit: compares (exit 0 or 1, got $rc)" test "$rc" -le 1
ok "cgdiff without the small limit: report written" test -s report.txt
"$BIN/cgdiff" --max-memory=4 -o report2.txt big.cg other.cg 2>/dev/null
ok "cgdiff --max-memory=4: no report left" test ! -e report2.txt

# Position tables (Callgrind "positions: line", one entry per line and
# per call site) take from the budget and give back when freed: six
# copies merged need the memory of about two (the merged profile and
# the one being read), not of six.
awk -v n=50000 'BEGIN { print "# callgrind format"; print "positions: line"; print "events: Ir"
	print "fn=f"; for (i = 1; i <= n; i++) printf "%d %d\n", i, i % 7 + 1
	print "fn=g"; for (i = 1; i <= n; i++) printf "%d %d\ncfn=f\ncalls=1 %d\n%d 1\n", i, i % 5 + 1, i, i }' > pos.cg
rm -f out.cg
"$BIN/cgconvert" --max-memory=4 -t callgrind -o out.cg pos.cg 2>err.txt
is "positions, --max-memory=4: exit 3" "$?" 3
like "positions, --max-memory=4: one line naming the file and the limit" "$(cat err.txt)" "^cgconvert: pos.cg: $limit"
ok "positions, --max-memory=4: no output file" test ! -e out.cg
six="pos.cg pos.cg pos.cg pos.cg pos.cg pos.cg"
"$BIN/cgconvert" --max-memory=40 -t callgrind -o out.cg $six 2>err.txt
rc=$?
is "positions, six copies merged in 40 MB: exit 0 ($(cat err.txt))" "$rc" 0
"$BIN/cgconvert" --max-memory=0 -t callgrind -o out0.cg $six
cmp_files "positions, six copies: the limit does not change the output" out.cg out0.cg
rm -f out.cg out0.cg

# libxml2's own buffers count (the tools give it a counting allocator):
# a 9 MB comment, which the reader skips, takes some 36 MB inside
# libxml2 and nothing in the profile.
"$BIN/cgconvert" -t xml -o small.xml "$CG_TOP/testdata/convert/twoparts.cg"
awk 'NR == 3 { printf "<!--"; for (i = 0; i < 90000; i++) printf "%0100d", 0; print "-->" } { print }' \
	small.xml > comment.xml
"$BIN/cgconvert" --max-memory=4 -t callgrind -o out.cg comment.xml 2>err.txt
is "XML with a 9 MB comment, --max-memory=4: exit 3" "$?" 3
like "XML with a 9 MB comment: one line naming the file and the limit" "$(cat err.txt)" \
	"^cgconvert: comment.xml: $limit"
ok "XML with a 9 MB comment: no output file" test ! -e out.cg
"$BIN/cgconvert" -t callgrind -o out.cg comment.xml 2>err.txt
is "XML with a 9 MB comment, default limit: exit 0" "$?" 0
"$BIN/cgconvert" -t callgrind -o small.cg small.xml
cmp_files "XML with a 9 MB comment: the comment changes nothing" out.cg small.cg
# (the big side first: cgdiff reads the two in parallel, and reports the
# first side's error first)
"$BIN/cgdiff" --max-memory=4 -q comment.xml small.xml 2>err.txt
is "cgdiff, XML with a 9 MB comment, --max-memory=4: exit 3" "$?" 3
like "cgdiff, XML with a 9 MB comment: names the file" "$(cat err.txt)" "^cgdiff: comment.xml: $limit"
"$BIN/cgdiff" -q small.xml comment.xml 2>err.txt
is "cgdiff, XML with a 9 MB comment, default limit: same profiles, exit 0" "$?" 0

done_testing
