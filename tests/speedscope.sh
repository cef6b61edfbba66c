# speedscope.sh — speedscope (npm, installed into .tools/ by
# scripts/install-deps.sh) in Debian's headless Chromium, for the tests
# that check what it shows of our files (convert-flamegraph.t,
# pprof-speedscope.t).  Sourced after lib.sh; leaves the test in $WORK.
# Files are loaded the way speedscope's own CLI does (a script calling
# speedscope.loadFileFromBase64, named by #localProfilePath=) and the
# page's DOM is read back.
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

# render_sandwich FILE HTML: the sandwich view's DOM in HTML.  A loaded
# machine can end chromium's virtual time before the table is drawn; one
# more try tells that apart from a table that is wrong.
render_sandwich() {
	render "$1" sandwich --dump-dom >"$2"
	[ -n "$(sandwich_rows "$2")" ] || render "$1" sandwich --dump-dom >"$2"
}
