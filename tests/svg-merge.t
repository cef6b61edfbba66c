#!/bin/bash
# The SVG flame graph against its definition: the folded stacks of the
# same profile, sorted frame by frame and merged the way flamegraph.pl
# merges them (a box per run of stacks sharing a path; its width their
# summed cost), computed here in awk from `cgconvert -t folded`.  The
# writer itself never sees folded text (it walks the call tree), so this
# checks that walk: every drawn box's name, cost, depth and left edge,
# in the order written.  The inputs stress the merge: empty names (a
# stack's first empty frames vanish from its folded line, its last is
# dropped), names with ';' (folded as ':'), many functions of one name
# (siblings merge, and so do their subtrees), several parts (the part
# is the bottom frame), a part without a tree, and Callgrind parts.
. "$CG_TOP/tests/lib.sh"
cd "$WORK"

# Flame boxes from folded lines: "name<TAB>cost<TAB>depth<TAB>left" in
# the order they close, only those at least 0.1 pixel wide.
merge_folded() {
	awk '{ v = $NF; if (v + 0 <= 0) next; sub(/ [^ ]*$/, ""); gsub(/;/, "\001"); print $0 "\t" v }' "$1" |
	LC_ALL=C sort -t "$(printf '\t')" -k1,1 |
	awk -F '\t' '
	function close_to(k) {
		while (nopen > k) { box[++nbox] = name[nopen] "\t" nopen - 1 "\t" start[nopen] "\t" x; nopen-- }
	}
	{
		n = $1 == "" ? 0 : split($1, f, "\001")
		if (n > 0 && f[n] == "") n--          # the last frame, when empty, is none
		common = 0
		while (common < n && common < nopen && name[common + 1] == f[common + 1]) common++
		close_to(common)
		for (i = common + 1; i <= n; i++) { name[i] = f[i]; start[i] = x }
		nopen = n
		x += $2
	}
	END {
		close_to(0)
		scale = x > 0 ? 1180 / x : 0
		for (i = 1; i <= nbox; i++) {
			split(box[i], b, "\t")
			if ((b[4] - b[3]) * scale < 0.1) continue
			printf "%s\t%d\t%d\t%.2f\n", b[1], b[4] - b[3], b[2], 10 + b[3] * scale
		}
	}'
}

# The same four fields from the SVG's boxes.
svg_boxes() {
	awk -F '"' '/^<svg / { for (i = 1; i < NF; i++) if ($i ~ / height=$/) h = $(i + 1) }
	/^<g><title>/ {
		t = $0; sub(/^<g><title>/, "", t); sub(/<\/title>.*/, "", t)
		nm = t; sub(/ \([0-9-]+ .*$/, "", nm)
		v = substr(t, length(nm) + 3); sub(/ .*/, "", v)
		for (i = 1; i < NF; i++) if ($i ~ /<rect x=$/) { left = $(i + 1); y = $(i + 3); break }
		gsub(/&lt;/, "<", nm); gsub(/&gt;/, ">", nm); gsub(/&quot;/, "\"", nm); gsub(/&amp;/, "\\&", nm)
		printf "%s\t%s\t%d\t%s\n", nm, v, (h - 10 - y) / 16 - 1, left
	}' "$1"
}

# A generated call tree, its names edited in the XML image: every 7th
# function unnamed, the next "a;b", the next "dup"; then the part twice
# more, as "thread 1" and, without its tree, as "flat".
awk -v N=3000 -f "$CG_TOP/bench/scale/gen-cgtree.awk" > tree.cgt
"$BIN/cgconvert" -t xml -o tree.xml tree.cgt
awk '
/<function / && match($0, /id="[0-9]+"/) {
	id = substr($0, RSTART + 4, RLENGTH - 5) + 0
	if (id % 7 == 0) sub(/name="[^"]*"/, "name=\"\"")
	else if (id % 7 == 1) sub(/name="[^"]*"/, "name=\"a;b\"")
	else if (id % 7 == 2) sub(/name="[^"]*"/, "name=\"dup\"")
}
/<part / { inpart = 1 }
inpart { part = part $0 "\n" }
/<\/part>/ {
	inpart = 0
	printf "%s", part
	copy = part; sub(/name="thread 0"/, "name=\"thread 1\"", copy); printf "%s", copy
	n = split(part, line, "\n"); flat = ""; intree = 0
	for (i = 1; i < n; i++) {
		if (line[i] ~ /<tree/) intree = 1
		if (!intree) flat = flat line[i] "\n"
		if (line[i] ~ /<\/tree>/) intree = 0
	}
	sub(/name="thread 0"/, "name=\"flat\"", flat); printf "%s", flat
	next
}
!inpart { print }' tree.xml > parts.xml
# one part: the unnamed frames at the bottom of a stack vanish
awk '/<part / && seen++ { skip = 1 } !skip { print } /<\/part>/ && skip { skip = 0 }' parts.xml > one.xml
ok "edited inputs: three parts, and one" test "$(grep -c '<part ' parts.xml)" = 3 -a \
	"$(grep -c '<part ' one.xml)" = 1
cp "$CG_TOP/testdata/convert/twoparts.cg" twoparts.cg

for input in tree.cgt parts.xml one.xml twoparts.cg; do
	"$BIN/cgconvert" -t folded -o "$input.folded" "$input"
	"$BIN/cgconvert" -t svg -o "$input.svg" "$input"
	merge_folded "$input.folded" > "$input.want"
	svg_boxes "$input.svg" > "$input.got"
	ok "$input: boxes drawn ($(wc -l < "$input.got"))" test -s "$input.got"
	cmp_files "$input: the SVG's boxes are the folded stacks merged" "$input.got" "$input.want"
done
ok "the edited inputs have unnamed frames" grep -q ';;' parts.xml.folded
ok "... and, in one part, unnamed bottom frames (the root's)" grep -q '^a:b;dup' one.xml.folded
is "the picture's total is the folded lines' sum" \
	"$(sed -n 's/.*>total \([0-9]*\) .*/\1/p' parts.xml.svg)" \
	"$(awk '$NF > 0 { s += $NF } END { print s }' parts.xml.folded)"
done_testing
