#!/usr/bin/env bash
# How the collector creates its file (issue 16): a symlink planted at any
# temporary name cannot redirect the write, an overwritten profile keeps its
# mode, `-o` through a symlink writes the link's target, non-regular
# targets and read-only directories are written in place, and nothing
# named *.tmp* is ever left behind.  Both the O_TMPFILE path and the
# O_EXCL fallback (CGCOLLECT_NO_TMPFILE=1) are run.
. "${CG_TOP:-.}/tests/lib.sh"
P=$CG_BUILD/tests/collector
LIB=$CG_BUILD/lib/libcgcollect.so
cd "$WORK" || exit 1
tmpleft() { find "$WORK" -name '*.tmp*' | sed "s|$WORK/||" | sort | tr '\n' ' '; }

for fallback in 0 1; do
	export CGCOLLECT_NO_TMPFILE=$fallback
	t="(fallback=$fallback)"
	rm -rf d && mkdir d && cd d || exit 1
	echo secret >victim && chmod 600 victim
	# The old collector wrote OUT.tmp.PID; the pid after `exec` is $$, so
	# links can be planted at every name it could have used, and at the
	# hidden variant.
	sh -c 'for n in out.cgt.tmp.$$ .out.cgt.tmp.$$ out.cgt.tmp .out.cgt.tmp; do ln -s victim $n; done
	       exec env CGCOLLECT_TIME=calls CGCOLLECT_OUTPUT=out.cgt LD_PRELOAD="$0" "$1"' \
		"$LIB" "$P/calls" >/dev/null
	is "planted symlinks do not redirect the write $t" "$(cat victim):$(stat -c %a victim)" "secret:600"
	ok "the profile was written $t" grep -qx end out.cgt
	is "the profile is a regular file $t" "$(stat -c %F out.cgt)" "regular file"
	rm -f out.cgt.tmp* .out.cgt.tmp*

	chmod 600 out.cgt
	"$BIN/cgrun" --time=calls -o out.cgt "$P/calls" >/dev/null 2>&1
	is "a 0600 profile stays 0600 when overwritten $t" "$(stat -c %a out.cgt)" 600
	chmod 640 out.cgt
	"$BIN/cgrun" --time=calls -o out.cgt "$P/calls" >/dev/null 2>&1
	is "a 0640 profile stays 0640 $t" "$(stat -c %a out.cgt)" 640
	rm -f new.cgt
	(umask 077 && "$BIN/cgrun" --time=calls -o new.cgt "$P/calls" >/dev/null 2>&1)
	is "a new profile follows the umask $t" "$(stat -c %a new.cgt)" 600

	mkdir real && echo old >real/target.cgt && chmod 604 real/target.cgt
	ln -s real/target.cgt link.cgt
	"$BIN/cgrun" --time=calls -o link.cgt "$P/calls" >/dev/null 2>&1
	is "-o through a symlink: the link stays a link $t" "$(stat -c %F link.cgt)" "symbolic link"
	ok "-o through a symlink: the target holds the profile $t" grep -qx end real/target.cgt
	is "-o through a symlink: the target keeps its mode $t" "$(stat -c %a real/target.cgt)" 604
	ln -s real/dangling.cgt dangle.cgt
	"$BIN/cgrun" --time=calls -o dangle.cgt "$P/calls" >/dev/null 2>&1
	ok "a dangling symlink: its target is created $t" grep -qx end real/dangling.cgt

	"$BIN/cgrun" --time=calls -o /dev/null "$P/calls" >/dev/null 2>&1
	is "/dev/null is written in place, not replaced $t" "$(stat -c %F /dev/null)" "character special file"

	mkdir ro && echo old >ro/p.cgt && chmod 666 ro/p.cgt && chmod 555 ro
	if [ "$(id -u)" = 0 ]; then
		# root writes anywhere: run as nobody, who can write the file but
		# not the directory.
		chmod 711 "$WORK" && chmod 777 . && setpriv --reuid=nobody --regid=nogroup --clear-groups \
			env CGCOLLECT_TIME=calls CGCOLLECT_OUTPUT="$PWD/ro/p.cgt" LD_PRELOAD="$LIB" \
			"$P/calls" >/dev/null 2>&1
	else
		env CGCOLLECT_TIME=calls CGCOLLECT_OUTPUT="$PWD/ro/p.cgt" LD_PRELOAD="$LIB" "$P/calls" >/dev/null 2>&1
	fi
	ok "a read-only directory: the writable file is overwritten in place $t" grep -qx end ro/p.cgt
	chmod 755 ro
	cd "$WORK" || exit 1
	is "no *.tmp* file anywhere $t" "$(tmpleft)" ""
done
unset CGCOLLECT_NO_TMPFILE

done_testing
