#!/usr/bin/env bash
# speedscope (npm, run in headless Chromium exactly as
# tests/convert-flamegraph.t does) imports the pprof files we write: no
# import error, and its sandwich table (total and self per function)
# equals what the same call tree's folded stacks add up to.  A corrupt
# pprof file is the negative control.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool chromium base64 timeout
speedscope=$CG_TOP/.tools/node_modules/speedscope
page=$speedscope/dist/release/index.html
[ -f "$page" ] || { echo "Bail out! speedscope missing: $speedscope (run scripts/install-deps.sh)"; exit 1; }
P=$CG_BUILD/tests/collector
cd "$WORK" || exit 1

# speedscope reports an unreadable file with alert(), which would block a
# headless page; record the message in the DOM instead.
loader() {  # FILE -> FILE.js
	{
		echo 'window.alert = function (m) { var p = document.createElement("pre");'
		echo '  p.id = "cg-alert"; p.textContent = "ALERT: " + m; document.body.appendChild(p); };'
		printf 'speedscope.loadFileFromBase64("%s", "%s");\n' "$1" "$(base64 -w0 "$1")"
	} >"$1.js"
}

# render FILE VIEW [extra chromium flags...]: prints the DOM after the
# page has settled (virtual time, so no waiting on the wall clock).
render() {
	local f=$1 view=$2; shift 2
	loader "$f"
	timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$(mktemp -d "$WORK/chrome.XXXXXX")" \
		--window-size=1200,1600 --virtual-time-budget=5000 "$@" \
		"file://$page#localProfilePath=$WORK/$f.js&view=$view" 2>>chromium.log
}

# The sandwich table as "TOTAL SELF NAME" lines, sorted.
sandwich_rows() {
	sed 's/<tr/\n<tr/g' "$1" | grep -E '^<tr.*<td.*<td.*<td' |
		sed -E 's/<td[^>]*>/\t/g; s/<[^>]*>//g; s/&gt;/>/g; s/&lt;/</g; s/&amp;/\&/g' |
		awk -F'\t' '{ t = $2; s = $3; sub(/ \(.*/, "", t); sub(/ \(.*/, "", s)
			gsub(/,/, "", t); gsub(/,/, "", s); print t, s, $4 }' | sort
}

# What the folded lines add up to: a function's total counts each stack
# once however often it recurs there, its self is the stacks it ends.
folded_sums() {
	awk '{ w = $NF; st = $0; sub(/ [0-9]+$/, "", st); n = split(st, f, ";")
		delete seen
		for (i = 1; i <= n; i++) if (!(f[i] in seen)) { seen[f[i]] = 1; tot[f[i]] += w }
		self[f[n]] += w }
		END { for (k in tot) print tot[k] + 0, self[k] + 0, k }' "$1" | sort
}


for prog in easyhard recur; do
	"$BIN/cgrun" --time=calls -o $prog.cgt "$P/$prog" >/dev/null 2>&1
	"$BIN/cgconvert" -t folded -o $prog.folded $prog.cgt
	"$BIN/cgconvert" -t pprof -o $prog.pb.gz $prog.cgt
	render $prog.pb.gz sandwich --dump-dom >$prog.html
	# A loaded machine can end chromium's virtual time before the table is
	# drawn; one more try tells that apart from a table that is wrong.
	[ -n "$(sandwich_rows $prog.html)" ] || render $prog.pb.gz sandwich --dump-dom >$prog.html
	is "$prog: speedscope shows the pprof file's name" \
		"$(grep -o '<title>[^<]*' $prog.html | sed 's/<title>//')" "$prog.pb.gz - speedscope"
	is "$prog: no import error" "$(grep -c 'cg-alert\|Something went wrong' $prog.html)" "0"
	is "$prog: sandwich table = the call tree's totals and selfs" \
		"$(sandwich_rows $prog.html)" "$(folded_sums $prog.folded)"
done
# Negative control: a pprof file cut inside its gzip header and first
# deflate block (a cut further on can still hold every sample: deflate
# puts the small sample table early, and speedscope decodes what it has).
head -c 20 easyhard.pb.gz >bad.pb.gz
render bad.pb.gz sandwich --dump-dom >bad.html
is "a truncated pprof file: speedscope shows no profile" "$(grep -c '<title>speedscope</title>' bad.html)" "1"
done_testing
