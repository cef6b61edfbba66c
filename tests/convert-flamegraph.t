#!/usr/bin/env bash
# Folded output renders in a flame-graph tool installed from a package
# registry: speedscope (npm, installed into .tools/ by
# scripts/install-deps.sh) running in Debian's headless Chromium.  The
# folded stacks of real programs run under the collector are loaded the
# way speedscope's own CLI does (a script calling
# speedscope.loadFileFromBase64, named by #localProfilePath=), and the
# page's DOM is read back: the profile's name in the title, no import
# error, and the sandwich view's table (total, self, name per function)
# equal to what the folded lines add up to.  Malformed files are the
# negative control: speedscope reports them as an unrecognized format.
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

"$BIN/cgrun" --time=calls -o eh.cgt "$P/easyhard" >/dev/null 2>&1
"$BIN/cgrun" --time=calls -o rec.cgt "$P/recur" >/dev/null 2>&1
"$BIN/cgrun" --time=calls -o th.cgt "$P/threads" >/dev/null 2>&1
for p in eh rec th; do
	"$BIN/cgconvert" -t folded -o $p.folded $p.cgt
	render $p.folded sandwich --dump-dom >$p.html
	# A loaded machine can end chromium's virtual time before the table is
	# drawn; one more try tells that apart from a table that is wrong.
	[ -n "$(sandwich_rows $p.html)" ] || render $p.folded sandwich --dump-dom >$p.html
	is "$p: speedscope shows the profile's name" \
		"$(grep -o '<title>[^<]*' $p.html | sed 's/<title>//')" "$p.folded - speedscope"
	is "$p: no import error" "$(grep -c 'cg-alert\|Something went wrong' $p.html)" "0"
	is "$p: sandwich table = the folded stacks' totals and selfs" \
		"$(sandwich_rows $p.html)" "$(folded_sums $p.folded)"
done
is "easyhard: the known call tree in speedscope's table" "$(sandwich_rows eh.html)" \
"1000 1000 step
1001 1 hard
1002 2 work
1005 1 main
3 1 easy"

# Negative controls: speedscope rejects what is not collapsed stacks, and
# then shows no profile at all.
printf 'this is not a profile\n' >bad1.folded
printf 'main;easy;work twelve\nmain;hard 3x\n' >bad2.folded
for b in bad1 bad2; do
	render $b.folded sandwich --dump-dom >$b.html
	is "$b: speedscope reports an unrecognized format" \
		"$(grep -o 'ALERT: Unrecognized format' $b.html)" "ALERT: Unrecognized format"
	is "$b: no profile shown" "$(grep -c '<title>speedscope</title>' $b.html)" "1"
done

# A picture of the flame chart, for people to look at (kept when
# CG_FLAME_PNG names a file); the test only checks it was drawn.
render eh.folded left-heavy --screenshot="$WORK/eh.png" >/dev/null
ok "left-heavy flame chart screenshot written" test -s eh.png
[ -n "${CG_FLAME_PNG:-}" ] && cp eh.png "$CG_FLAME_PNG"
done_testing
