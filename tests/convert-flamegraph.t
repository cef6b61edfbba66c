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
. "$CG_TOP/tests/speedscope.sh"

"$BIN/cgrun" --time=calls -o eh.cgt "$P/easyhard" >/dev/null 2>&1
"$BIN/cgrun" --time=calls -o rec.cgt "$P/recur" >/dev/null 2>&1
"$BIN/cgrun" --time=calls -o th.cgt "$P/threads" >/dev/null 2>&1
for p in eh rec th; do
	"$BIN/cgconvert" -t folded -o $p.folded $p.cgt
	render_sandwich $p.folded $p.html
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
