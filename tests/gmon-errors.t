#!/bin/bash
# cgprof against gprof 2.40 on derived and broken inputs: BSD formats,
# version-0 headers, several histogram records, arcs or histogram alone,
# basic-block records, and every error gprof reports (missing, truncated,
# corrupt, mismatched files; bad options).  stdout, stderr (program name
# replaced) and exit status must all be gprof's.
. "$CG_TOP/tests/lib.sh"
require_tool gcc gprof python3 strip
D=$CG_TOP/testdata/gmon
# a private copy of the tool and its library: other builds in the same tree
# may relink build/lib while this (long) test runs
mkdir -p "$WORK/snap/bin" "$WORK/snap/lib"
cp "$BIN/cgprof" "$WORK/snap/bin/" && cp -P "$CG_BUILD"/lib/libcallgraph.so* "$WORK/snap/lib/"
CGPROF=$WORK/snap/bin/cgprof

if ! "$D/build.sh" "$WORK/b" cycles-O0-pie-g simple-O2-nopie >"$WORK/build.log" 2>&1; then
	echo "Bail out! building the -pg test programs failed"
	sed 's/^/# /' "$WORK/build.log" | tail -20
	exit 1
fi

check() {  # DIR ARGS...: same stdout, stderr and status as gprof
	local dir=$1; shift
	(cd "$dir" && gprof "$@" >"$WORK/g.out" 2>"$WORK/g.err"; echo $? >"$WORK/g.rc")
	(cd "$dir" && "$CGPROF" "$@" >"$WORK/c.out" 2>"$WORK/c.err"; echo $? >"$WORK/c.rc")
	sed -i "s|$CGPROF|gprof|g" "$WORK/c.err"
	local d="$(basename "$dir"): $*"
	if cmp -s "$WORK/g.out" "$WORK/c.out" && cmp -s "$WORK/g.err" "$WORK/c.err" &&
	   cmp -s "$WORK/g.rc" "$WORK/c.rc"; then
		_tap_result 0 "$d"
	else
		_tap_result 1 "$d"
		diag "exit: gprof $(cat "$WORK/g.rc") cgprof $(cat "$WORK/c.rc")"
		diff "$WORK/g.err" "$WORK/c.err" | head -6 | sed 's/^/# err /'
		diff "$WORK/g.out" "$WORK/c.out" | head -20 | sed 's/^/# /'
	fi
}

ops="bsd bsd44 bsd44rate v0 split reverse arcs hist header bb dimen abbrev scale
overlap badtag version trunc-hist-header trunc-bins trunc-arc short"
for dir in "$WORK"/b/*/; do
	for op in $ops; do
		python3 "$D/gmontool.py" "$op" "$dir/gmon.out" "$dir/x.$op"
		check "$dir" -b exe "x.$op"
	done
	check "$dir" -b -z exe x.header
	check "$dir" -b -T exe x.arcs
	check "$dir" -b -Ob exe x.bsd
	check "$dir" -b -O4 exe x.bsd44
	check "$dir" -b -Oa exe x.bsd44
	check "$dir" -b --file-format=magic exe gmon.out
	check "$dir" -b -Om exe x.bsd
	check "$dir" -b -O4 exe x.bsd
	check "$dir" -b -Op exe gmon.out
	check "$dir" -b -Ox exe gmon.out
	check "$dir" -b exe gmon.out x.bsd44rate
	check "$dir" -b exe x.bsd x.bsd
	check "$dir" -b exe x.bsd gmon.out
	check "$dir" -b exe gmon.out x.bsd44
	check "$dir" -b -i exe x.bsd gmon.out x.v0
	check "$dir" -b exe x.split gmon.out
	check "$dir" -b -p exe x.arcs
	check "$dir" -b -q exe x.hist
	check "$dir" -b -Q exe x.arcs
	check "$dir" -b exe nosuch.out
	check "$dir" -b nosuch gmon.out
	check "$dir" -b gmon.out gmon.out
	check "$dir" -b -r -R map exe
	check "$dir" -b --demangle=nosuch exe
	check "$dir" -i exe gmon.out gmon.2
	cp "$dir/exe" "$dir/stripped"
	strip "$dir/stripped"
	check "$dir" -b stripped gmon.out
	cp "$dir/exe" "$dir/nodebug"
	strip -g "$dir/nodebug"
	check "$dir" -b -z nodebug gmon.out
	# default file names: a.out and gmon.out
	cp "$dir/exe" "$dir/a.out"
	check "$dir" -b
	# @FILE response files
	printf -- '-b\n-z\nexe gmon.out\n' >"$dir/args"
	check "$dir" @args
	# a directory is not a profile
	check "$dir" -b exe .
	# broken executables
	head -c 3000 "$dir/exe" >"$dir/trunc.exe"
	: >"$dir/empty.exe"
	check "$dir" -b trunc.exe gmon.out
	check "$dir" -b empty.exe gmon.out
	check "$dir" -b /dev/null gmon.out
	# -S: symbols from an nm listing (also for a stripped executable)
	nm "$dir/exe" >"$dir/syms.txt"
	nm -n "$dir/exe" | head -5 >"$dir/few.txt"
	printf 'junk\n1000 t\n' >"$dir/bad.txt"
	check "$dir" -b -S syms.txt -z exe gmon.out
	check "$dir" -b -S syms.txt stripped gmon.out
	check "$dir" -b -S few.txt -z exe gmon.out
	check "$dir" -b --external-symbol-table=syms.txt -T -l exe gmon.out
	check "$dir" -b -S bad.txt exe gmon.out
	check "$dir" -b -S nosuch.txt exe gmon.out
done

# -s writes gmon.sum: the same bytes as gprof's (GNU format: after the
# 20-byte header, whose spare bytes gprof leaves uninitialised), and
# nothing on stdout unless asked
sum_check() {  # DIR SKIP ARGS...
	local dir=$1 skip=$2; shift 2
	rm -f "$dir/gmon.sum"
	(cd "$dir" && gprof "$@" >"$WORK/g.out" 2>&1)
	mv "$dir/gmon.sum" "$WORK/g.sum" 2>/dev/null
	(cd "$dir" && "$CGPROF" "$@" >"$WORK/c.out" 2>&1)
	sed -i "s|$CGPROF|gprof|g" "$WORK/c.out"
	mv "$dir/gmon.sum" "$WORK/c.sum" 2>/dev/null
	if [ -s "$WORK/g.sum" ] && cmp -s <(tail -c +$((skip + 1)) "$WORK/g.sum") <(tail -c +$((skip + 1)) "$WORK/c.sum") &&
	   cmp -s "$WORK/g.out" "$WORK/c.out"; then
		_tap_result 0 "$(basename "$dir"): $* writes gprof's gmon.sum"
	else
		_tap_result 1 "$(basename "$dir"): $* writes gprof's gmon.sum"
		cmp "$WORK/g.sum" "$WORK/c.sum" | sed 's/^/# /'
		diff "$WORK/g.out" "$WORK/c.out" | head -5 | sed 's/^/# /'
	fi
	rm -f "$WORK/g.sum" "$WORK/c.sum"
}
for dir in "$WORK"/b/*/; do
	sum_check "$dir" 20 -s exe gmon.out gmon.2
	sum_check "$dir" 20 -s -b -q exe gmon.out
	sum_check "$dir" 20 --sum -i exe gmon.2 gmon.out
	sum_check "$dir" 0 -s -Ob exe x.bsd x.bsd
	sum_check "$dir" 0 -s -O4 exe x.bsd44
	sum_check "$dir" 0 -s -Ob exe x.bsd44
done

# an unknown option: usage on stderr, exit 1 (our usage text is our own)
exit_status "unknown option exits 1" 1 "$CGPROF" --no-such-option
exit_status "-g is not an option (as in gprof)" 1 "$CGPROF" -g
exit_status "--help exits 0" 0 "$CGPROF" --help
exit_status "--version exits 0" 0 "$CGPROF" --version
out=$("$CGPROF" --help)
case $out in *Usage:*) _tap_result 0 "--help prints usage on stdout" ;; *) _tap_result 1 "--help prints usage on stdout" ;; esac
done_testing
