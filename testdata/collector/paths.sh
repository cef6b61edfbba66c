#!/bin/sh
# paths.sh CGTREE [THREAD]: prints a cgtree file's tree as one line per node,
#   PATH calls=C redos=R rec=N cost=X      (node)
#   PATH -> TARGETPATH calls=C             (recursion link)
# with C functions of the executable (object 0) named through nm, so tests
# can check the collector without libcallgraph.  THREAD defaults to 0.
# Only stdlib tools: it reads the format independently of our reader.
set -e
f=$1
thread=${2:-0}
exe=$(awk '$1 == "object" && $2 == "0" { print $4; exit }' "$f")
{
	nm --defined-only "$exe" 2>/dev/null | awk '{ printf "sym %s %s\n", $1, $3 }'
	cat "$f"
} | LC_ALL=C awk -v want="$thread" '
function hexval(h,   i, c, v) {
	h = tolower(h); sub(/^0x/, "", h); v = 0
	for (i = 1; i <= length(h); i++) { c = index("0123456789abcdef", substr(h, i, 1)) - 1; v = v * 16 + c }
	return v
}
$1 == "sym" { sym[hexval($2)] = $3; next }
$1 == "func" && $3 == "addr" {
	name[$2] = ($4 == "0" && (hexval($5) in sym)) ? sym[hexval($5)] : $4 ":" $5; next
}
$1 == "func" && $3 == "name" { name[$2] = $4; next }
$1 == "thread" { cur = $2; next }
cur != want { next }
$1 == "node" { path[$2] = ($3 == 0 ? "" : path[$3] "/") name[$4]
	print path[$2], "calls=" $5, "redos=" $6, "rec=" $7, "cost=" $8; next }
$1 == "link" { p = ($3 == 0 ? "" : path[$3] "/") name[$4]
	print p, "->", path[$6], "calls=" $5; next }
$1 == "endthread" { cur = "" }
'
