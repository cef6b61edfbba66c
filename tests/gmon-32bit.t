#!/bin/bash
# 32-bit executables: 4-byte addresses in GNU and BSD profiles (header
# sizes, arc layouts), checked against gprof on a small i386 program built
# with the assembler and linker alone and hand-made profiles.
. "$CG_TOP/tests/lib.sh"
require_tool as ld gprof python3
D=$CG_TOP/testdata/gmon/x32
# a private copy of the tool and its library: other builds in the same tree
# may relink build/lib while this (long) test runs
mkdir -p "$WORK/snap/bin" "$WORK/snap/lib"
cp "$BIN/cgprof" "$WORK/snap/bin/" && cp -P "$CG_BUILD"/lib/libcallgraph.so* "$WORK/snap/lib/"
CGPROF=$WORK/snap/bin/cgprof
cd "$WORK" || exit 1
if ! as --32 -o x.o "$D/x.s" || ! ld -m elf_i386 -o x32 x.o || ! python3 "$D/mk.py"; then
	echo "Bail out! cannot build the 32-bit test program"
	exit 1
fi
check() {
	rm -f gmon.sum
	gprof "$@" >g.out 2>g.err; echo $? >g.rc
	[ -f gmon.sum ] && mv gmon.sum g.sum
	"$CGPROF" "$@" >c.out 2>c.err; echo $? >c.rc
	[ -f gmon.sum ] && mv gmon.sum c.sum
	sed -i "s|$CGPROF|gprof|g" c.err
	if cmp -s g.out c.out && cmp -s g.err c.err && cmp -s g.rc c.rc; then
		_tap_result 0 "32-bit: $*"
	else
		_tap_result 1 "32-bit: $*"
		diff g.out c.out | head -20 | sed 's/^/# /'
		diff g.err c.err | head -5 | sed 's/^/# /'
	fi
}
for opts in "-b" "-b -z" "-b -T" "-b -a" "-b -l -z" "-b -C" "-b -i" "-b -s -p"; do
	# shellcheck disable=SC2086
	check $opts x32 gmon.out
done
check -b x32 bsd.out
check -b -z x32 bsd44.out
check -b -i x32 gmon.out bsd.out
check -b x32 bsd44.out gmon.out
check -s x32 gmon.out
if cmp -s <(tail -c +21 g.sum) <(tail -c +21 c.sum); then
	_tap_result 0 "32-bit: gmon.sum like gprof's"
else
	_tap_result 1 "32-bit: gmon.sum like gprof's"
fi
check -s -Ob x32 bsd.out
cmp_files "32-bit: BSD gmon.sum like gprof's" c.sum g.sum
done_testing
