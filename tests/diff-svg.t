#!/usr/bin/env bash
# cgdiff -t svg, the differential flame graph, on real programs profiled
# with cgrun (testdata/diff/prog.c made slower, with a call moved; pool.c
# with a function dropped; recurse.c with work moved inside a cycle) and
# under Callgrind (no call tree: one row of functions):
#  - well-formed (xmllint), self-contained (no script, nothing fetched);
#  - every box where the folded stacks of the two profiles put it: the
#    path rebuilt from the geometry, width = new cost / total x 1180 px,
#    the tooltip's base/new inclusive and self costs = the stacks' sums
#    (testdata/diff/svg_boxes.py); Callgrind's boxes = callgrind_annotate;
#  - colours: the function made slower is red, faster blue, unchanged grey;
#    a new call path dashed, a removed call absent and named;
#  - in headless Chromium: the DOM has every box, the screenshot shows each
#    one where the file says (testdata/convert/png_boxes.py).  The
#    screenshot of the slower build is kept as
#    $CG_BUILD/test-artifacts/diff-svg-slow.png.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool gcc xmllint python3 chromium timeout valgrind callgrind_annotate
BOXES=$CG_TOP/testdata/diff/svg_boxes.py
cd "$WORK" || exit 1
build() {  # name cflags...
	local name=$1; shift
	gcc -finstrument-functions -O1 -g -pthread "$@" -o "$name" "$CG_TOP/testdata/diff/${SRC:-prog.c}"
}
profile() {  # name: name.cgt and name.folded
	"$BIN/cgrun" -q --time=calls -o "$1.cgt" "./$1" >/dev/null &&
		"$BIN/cgconvert" -t folded -o "$1.folded" "$1.cgt"
}
{ build base -DSCALE=1000UL && profile base &&
  build slow -DSCALE=1000UL -DSLOW=8 && profile slow &&
  build extra -DSCALE=1000UL -DEXTRA=1 && profile extra &&
  build moved -DSCALE=1000UL -DMOVED=1 && profile moved &&
  SRC=recurse.c build rec && profile rec && SRC=recurse.c build recm -DMOVE && profile recm &&
  SRC=pool.c build pool && profile pool && SRC=pool.c build drop -DDROP=1 && profile drop; } ||
	{ echo "Bail out! cannot build or profile the test programs"; exit 1; }

shoot() {  # SVG PNG: a screenshot as tall as the picture
	local h
	h=$(sed -n 's/.*<svg [^>]* height="\([0-9]*\)".*/\1/p' "$1")
	timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$(mktemp -d "$WORK/chrome.XXXXXX")" --hide-scrollbars \
		--force-device-scale-factor=1 --window-size=1200,"$((h + 40))" --screenshot="$WORK/$2" \
		"file://$WORK/$1" >/dev/null 2>>chromium.log
}
dom() {  # SVG: the document Chromium parsed
	timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$(mktemp -d "$WORK/chrome.XXXXXX")" --dump-dom "file://$WORK/$1" 2>>chromium.log
}
fill() {  # SVG NAME: the fill of every box of that function, one per line
	sed -n "s/^<g><title>$2: .*fill=\"rgb(\([0-9,]*\))\".*/\1/p" "$1"
}

# ---- a function made slower ------------------------------------------------------------
"$BIN/cgdiff" -t svg -o slow.svg base.cgt slow.cgt 2>err.txt
is "base -> slow: exit 1 (limits exceeded), the picture written" "$? $(cat err.txt)" "1 "
ok "well-formed XML (xmllint)" xmllint --noout slow.svg
is "self-contained: no script, no link, nothing fetched" \
	"$(grep -ciE '<script|href|url\(|@import|<image|<foreign' slow.svg)" "0"
like "the title names both files" "$(grep -o 'Differential flame graph: [^<]*' slow.svg)" \
	'^Differential flame graph: base\.cgt -&gt; slow\.cgt$'
like "the subtitle names the event and both totals" "$(grep -o 'event csc.*' slow.svg)" \
	"^event csc \(call-sequence count\): total $(awk '{ s += $NF } END { print s }' base.folded) -&gt; $(awk '{ s += $NF } END { print s }' slow.folded) "
is "every box = its context in the folded stacks (path, width, base/new inclusive and self)" \
	"$(python3 "$BOXES" slow.svg base.folded slow.folded)" "boxes 5 paths 5 bad 0"
is "step (8x the calls) is full red" "$(fill slow.svg step)" "255,40,40"
is "main, target, steady, helper (self cost unchanged) are grey" \
	"$(for f in main target steady helper; do fill slow.svg $f; done | sort -u)" "221,221,221"
is "a legend for the colours" "$(grep -c '<g id="legend">' slow.svg) $(grep -o 'grew 2x or more\|shrank to half or less\|unchanged' slow.svg | wc -l)" "1 3"

# the browser: every box in the parsed document, and drawn where the file says
dom slow.svg >slow.dom
is "Chromium parses it: the DOM has every box and no parser error" \
	"$(grep -c '<g><title>' slow.dom) $(grep -c parsererror slow.dom)" "5 0"
shoot slow.svg slow.png
is "Chromium draws every box where the SVG says, in its colour" \
	"$(python3 "$CG_TOP/testdata/convert/png_boxes.py" slow.png slow.svg)" "boxes 5 checked 5 missing 0"
mkdir -p "$CG_BUILD/test-artifacts" && cp slow.png "$CG_BUILD/test-artifacts/diff-svg-slow.png"
# negative controls: a box moved in the file, a broken file
perl -pe 's/<rect x="([\d.]+)" y="([\d.]+)" width/sprintf("<rect x=\"%.2f\" y=\"$2\" width", $1 + 40)/ge' slow.svg >moved-box.svg
like "a picture that does not match its file is caught" \
	"$(python3 "$CG_TOP/testdata/convert/png_boxes.py" slow.png moved-box.svg)" 'missing [1-9]'
sed 's/<\/g>//' slow.svg >broken.svg
like "a broken file is caught by Chromium's parser" "$(dom broken.svg | grep -c parsererror)" '^[1-9]'
sed 's/width="1045.02"/width="1000.02"/' slow.svg >wide.svg
like "a box of the wrong width is caught" "$(python3 "$BOXES" wide.svg base.folded slow.folded)" 'WIDTH main;target;step'

# ---- the other way round, a small change, no change ---------------------------------------
"$BIN/cgdiff" -t svg -o fast.svg slow.cgt base.cgt
is "slow -> base: step is full blue" "$(fill fast.svg step)" "40,40,255"
is "... every box at its context" "$(python3 "$BOXES" fast.svg slow.folded base.folded)" "boxes 5 paths 5 bad 0"
"$BIN/cgdiff" -t svg -o extra.svg base.cgt extra.cgt
like "base -> extra: helper (+10% calls) light red" "$(fill extra.svg helper)" '^255,(1[5-9][0-9]|20[0-9]),\1$'
is "... the tooltip: base, new, delta and percent" \
	"$(grep -o '<title>helper: [^<]*' extra.svg)" "<title>helper: inclusive 10 -&gt; 11 csc (+1, +10.0%); self 10 -&gt; 11 (+1, +10.0%)"
"$BIN/cgdiff" -t svg -o same.svg base.cgt base.cgt
is "base -> base: exit 0, every box grey" "$? $(sed -n 's/^<g><title>.*fill="rgb(\([0-9,]*\))".*/\1/p' same.svg | sort -u)" "0 221,221,221"

# ---- a call moved, a function dropped, recursion --------------------------------------------
"$BIN/cgdiff" -t svg -o moved.svg base.cgt moved.cgt
is "base -> moved: every box at its context (main;steady has none)" \
	"$(python3 "$BOXES" moved.svg base.folded moved.folded)" "boxes 5 paths 5 bad 0"
like "... the new call path target -> steady dashed and red" "$(grep '<title>steady:' moved.svg)" \
	'call path new in NEW</title>.*fill="rgb\(255,40,40\)" stroke="#000" stroke-width="1.2" stroke-dasharray'
like "... the removed call named in its caller's tooltip" "$(grep -o '<title>main: [^<]*' moved.svg)" \
	'; calls gone from NEW: steady \(base 10\)$'
"$BIN/cgdiff" -t svg -o rec.svg rec.cgt recm.cgt
is "recurse -> work moved inside the cycle: every box at its context" \
	"$(python3 "$BOXES" rec.svg rec.folded recm.folded)" "boxes 6 paths 6 bad 0"
"$BIN/cgdiff" -t svg -o drop.svg pool.cgt drop.cgt
is "pool -> checksum dropped: no checksum box, named in the header and main's tooltip" \
	"$(grep -c '<title>checksum' drop.svg) $(grep -o '>gone from NEW: [^<]*' drop.svg) $(grep -o 'calls gone from NEW: checksum (base 1)' drop.svg)" \
	"0 >gone from NEW: checksum calls gone from NEW: checksum (base 1)"
"$BIN/cgdiff" -t svg -o undrop.svg drop.cgt pool.cgt
is "... the other way: checksum listed as new" "$(grep -o 'new in NEW: [^<]*' undrop.svg)" "new in NEW: checksum"

# ---- no call tree: Callgrind --------------------------------------------------------------------
# one executable path for both builds, so the functions match by identity
gcc -O1 -g -DSCALE=1000UL -o cprog "$CG_TOP/testdata/diff/prog.c" &&
	valgrind -q --tool=callgrind --callgrind-out-file=base.cg ./cprog >/dev/null &&
	gcc -O1 -g -DSCALE=1000UL -DSLOW=8 -o cprog "$CG_TOP/testdata/diff/prog.c" &&
	valgrind -q --tool=callgrind --callgrind-out-file=slow.cg ./cprog >/dev/null ||
	{ echo "Bail out! cannot run the program under Callgrind"; exit 1; }
# (functions matched by name, as callgrind_annotate is read below)
"$BIN/cgdiff" --ignore-object --ignore-file -t svg -o cg.svg base.cg slow.cg
ok "Callgrind: well-formed" xmllint --noout cg.svg
like "... the subtitle says there is no call tree" "$(cat cg.svg)" 'no call tree: one box per function'
is "... one row of boxes" "$(grep '^<g><title>' cg.svg | sed 's/.*<rect x="[0-9.]*" y="\([0-9.]*\)".*/\1/' | sort -u | wc -l)" "1"
# callgrind_annotate's self cost per function of the new profile (summed
# by name: a name in two objects is two boxes), against the tooltips and
# widths
callgrind_annotate --auto=no --threshold=100 slow.cg |
	awk '/PROGRAM TOTALS/ { t = $1; gsub(/,/, "", t) }
	     /^ *[0-9,]+ .*:/ && !/PROGRAM TOTALS/ { v = $1; gsub(/,/, "", v); n = $0; sub(/ \[.*/, "", n); sub(/^[^:]*:/, "", n)
		s[n] += v }
	     END { for (k in s) if (s[k] / t * 1180 >= 0.1) print k "\t" s[k]; print "TOTAL\t" t }' | LC_ALL=C sort >annotate.txt
total=$(sed -n 's/^TOTAL\t//p' annotate.txt)
sed -n 's/^<g><title>\([^:]*\): self [0-9]* -&gt; \([0-9]*\) Ir.*<rect x="[0-9.]*" y="[0-9.]*" width="\([0-9.]*\)".*/\1\t\2\t\3/p' cg.svg >boxes.txt
is "... each box's new self cost = callgrind_annotate's, and the total" \
	"$(awk -F'\t' '{ n = $1; sub(/ \(.*/, "", n); s[n] += $2 } END { for (k in s) print k "\t" s[k] }' boxes.txt |
		LC_ALL=C sort; grep -o 'total [0-9]* -&gt; [0-9]*' cg.svg | sed 's/.* /TOTAL\t/')" \
	"$(grep -v '^TOTAL' annotate.txt; grep '^TOTAL' annotate.txt)"
is "... each box's width = that cost / total x 1180 px" \
	"$(awk -F'\t' -v t="$total" '{ d = $3 - $2 / t * 1180; if (d < 0) d = -d; if (d > 0.006) print }' boxes.txt)" ""
is "... target (8x the work) is red" "$(fill cg.svg target)" "255,40,40"

# ---- names that are not text ------------------------------------------------------------------
# bytes that are not UTF-8, a control character, and a multibyte name cut
# to fit its box: still well-formed, in both flame graphs
printf 'main;\377\376bad\001name 10\nmain;%s 3\nmain;x 100\n' "$(printf '\303\274n\303\257c\303\266d\303\251_%.0s' 1 2 3 4 5)" >h1.folded
sed 's/name 10$/name 20/' h1.folded >h2.folded
"$BIN/cgdiff" -f folded -t svg -o hostile.svg h1.folded h2.folded
ok "hostile names: cgdiff -t svg is well-formed" xmllint --noout hostile.svg
"$BIN/cgconvert" -f folded -t svg -o hostile1.svg h1.folded
ok "hostile names: cgconvert -t svg is well-formed" xmllint --noout hostile1.svg
like "... the bad bytes shown as '?'" "$(grep -o '<title>[^:]*bad[^:]*:' hostile.svg)" '^<title>\?\?bad\?name:$'

# ---- errors ---------------------------------------------------------------------------------------
printf 'events: A B\nfn=f\n1 5 3\n' >two.cg
printf 'events: A B\nfn=f\n1 5 0\n' >zero.cg
"$BIN/cgdiff" -t svg -E B -o zero.svg two.cg zero.cg >/dev/null 2>err.txt
is "nothing to draw in NEW for the event: exit 3, said, no file left" \
	"$? $(cat err.txt) $(ls zero.svg 2>&1 | grep -c 'No such')" \
	"3 cgdiff: zero.svg: svg: the new profile has no B cost to draw a flame graph with 1"
like "--help lists svg" "$("$BIN/cgdiff" --help)" 'bmf, svg'
done_testing
