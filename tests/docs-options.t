#!/usr/bin/env bash
# Every tool documents the same options in two places: each option its
# --help names is described in its man page's OPTIONS section (a tag
# line), and each option described there appears in --help.  Every tool
# also answers -V and --version with "NAME (callgraph) VERSION" on stdout
# and exit 0, and -h/--help with exit 0.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool man col
version=$(cat "$CG_TOP/VERSION")

# The options a text names: -x, --long (an attached SPEC dropped)
options_in() {
	grep -oE -- '(^|[^A-Za-z0-9-])--?[A-Za-z][-A-Za-z0-9]*' | sed 's/^[^-]*//; s/SPEC$//' | sort -u
}
# The man page's OPTIONS section, tag lines only (body text may quote
# other programs' options, such as gcc -pg)
man_options() {
	MANWIDTH=250 man -l "$1" 2>/dev/null | col -b |
		awk '/^OPTIONS/ { on = 1; next } on && /^[A-Z][A-Z ]+$/ { on = 0 } on && /^       -/' |
		options_in
}

for tool in cgprof cgconvert cgdiff cgrun; do
	page=$CG_TOP/docs/$tool.1
	help=$("$BIN/$tool" --help 2>&1); rc=$?
	is "$tool --help: exit 0" "$rc" 0
	# (the compiler's options a help text mentions are not the tool's)
	helpopts=$(printf '%s\n' "$help" | options_in | grep -vx -- '-finstrument-functions')
	manopts=$(man_options "$page")
	like "$tool: the man page's OPTIONS section has tag lines" "$(echo "$manopts" | wc -l)" '^[1-9][0-9]+$'
	is "$tool: every option in --help is in $tool.1" \
		"$(comm -23 <(echo "$helpopts") <(echo "$manopts") | tr '\n' ' ')" ""
	is "$tool: every option in $tool.1 is in --help" \
		"$(comm -13 <(echo "$helpopts") <(echo "$manopts") | tr '\n' ' ')" ""
	for v in -V --version; do
		out=$("$BIN/$tool" $v 2>&1); rc=$?
		is "$tool $v: exit 0, 'NAME (callgraph) VERSION' first" "$rc $(echo "$out" | head -1)" \
			"0 $tool (callgraph) $version"
	done
	exit_status "$tool -h: exit 0" 0 "$BIN/$tool" -h
done
# cgprof keeps gprof's -v
is "cgprof -v: gprof's version option still works" "$("$BIN/cgprof" -v | head -1)" \
	"cgprof (callgraph) $version"
done_testing
