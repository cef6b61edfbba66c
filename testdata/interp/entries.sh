#!/bin/sh
# entries.sh CGTREE [KEYS [FILE]]: entries per function of a calls-mode cgtree,
# one "KEY COUNT" line per function, read with awk only (independently of
# libcallgraph).  A function's entries are the sum of its nodes' cost
# (calls + recursive entries + calls through recursion links) plus, when
# the interpreter counts a resumption as a call (Python), its redos.
# KEYS says how a function is named on the line:
#   lua     C functions "C:NAME", Lua functions the part of NAME after '@'
#   python  "NAME" (module.qualname, or the C function's name); redos added
#   prolog  "NAME CALLS REDOS RECURSIVE" (calls through recursion links
#           are calls), as SWI-Prolog's profile_data/1 counts them
# FILE, when given, keeps only the functions defined in that file.
set -e
LC_ALL=C awk -v keys="${2:-lua}" -v only="${3:-}" '
function unesc(s,   out, i, c) {
	out = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "%") { out = out sprintf("%c", hex(substr(s, i + 1, 2))); i += 2 } else out = out c
	}
	return out
}
function hex(h,   v, i) { h = tolower(h); v = 0
	for (i = 1; i <= 2; i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return v }
$1 == "func" && $3 == "name" {
	n = unesc($4); f = unesc($5)
	if (keys == "lua") key[$2] = (f == "[C]") ? "C:" n : substr(n, index(n, "@") + 1)
	else key[$2] = n
	if (only != "" && f != only) skip[$2] = 1
	next
}
($1 == "node" || $1 == "link") && ($4 in skip) { next }
$1 == "node" { k = key[$4]; cost[k] += $8; redo[k] += $6; calls[k] += $5; rec[k] += $7; seen[k] = 1 }
$1 == "link" { calls[key[$4]] += $5 }
END {
	for (k in seen) {
		if (keys == "python") print k, cost[k] + redo[k]
		else if (keys == "prolog") print k, calls[k], redo[k], rec[k]
		else print k, cost[k]
	}
}' "$1" | sort
