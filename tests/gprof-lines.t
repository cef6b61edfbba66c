#!/bin/bash
# Line-level reports (-l, -A, -C, --inline-file-names) against GNU gprof
# 2.40, live, on programs built here with -pg -g: inline functions from a
# header in two units, -O0 and -O2, DWARF 5 and 4, several units, C++.
# cgprof answers from the line map (symbols/linemap.c), gprof from BFD;
# test_linemap also compares the two address by address.
. "$CG_TOP/tests/lib.sh"
require_tool gcc g++ gprof
DRV=$CG_BUILD/tests/test_linemap
cd "$WORK" || exit 1

build() {  # name compiler flags sources...
	local name=$1 cc=$2 flags=$3; shift 3
	# shellcheck disable=SC2086
	ok "build and run $name" sh -c "$cc -pg -g $flags -o $name $* && ./$name >/dev/null && mv gmon.out $name.gmon"
}
L=$CG_TOP/testdata/gprof/lines
G=$CG_TOP/testdata/gprof
M=$CG_TOP/testdata/gmon/src
build inl-O2 gcc "-O2" "$L/main.c" "$L/other.c"
build inl-O0 gcc "-O0" "$L/main.c" "$L/other.c"
build inl-O2-nopie gcc "-O2 -no-pie" "$L/main.c" "$L/other.c"
build inl-O3-dwarf4 gcc "-O3 -gdwarf-4" "$L/main.c" "$L/other.c"
build statics gcc "-O2" "$G/statics_main.c" "$G/statics_a.c" "$G/statics_b.c"
build cycles gcc "-O1" "$G/cycles.c"
build multi gcc "-O2" "$M/multi/main.c" "$M/multi/a.c" "$M/multi/b.c"
build cxx g++ "-O2" "$M/cxx.cc"

programs="inl-O2 inl-O0 inl-O2-nopie inl-O3-dwarf4 statics cycles multi cxx"
for p in $programs; do
	for o in "-b -l -p" "-b -l -q" "-b -l" "-b -l --inline-file-names -p" "-b -l -A" \
		 "-b -A" "-b -l -C" "-b -l -p -q -A -C"; do
		# shellcheck disable=SC2086
		gprof $o "$p" "$p.gmon" > want.txt 2> want.err
		# shellcheck disable=SC2086
		"$BIN/cgprof" $o "$p" "$p.gmon" > got.txt 2> got.raw
		# messages name the program: gprof's "gprof:", ours its path
		sed "s|^$BIN/cgprof:|gprof:|" got.raw > got.err
		if cmp -s want.txt got.txt && cmp -s want.err got.err; then
			_tap_result 0 "$o on $p"
		else
			_tap_result 1 "$o on $p"
			diff want.txt got.txt | head -10 | sed 's/^/# /'
			diff want.err got.err | head -5 | sed 's/^/# /'
		fi
	done
done

# symbol specifications name line symbols too: FILE:LINE picks single
# lines out of a function's, a name or a file all of them; a FILE:LINE
# matching a function symbol (other.c:5, main.c:15) covers, as gprof
# looks its tables up by address, the whole function and its lines
for p in inl-O2 inl-O0; do
	for o in "-b -l -p -phelper.h:5" "-b -l -p -Phelper.h:5 -z" "-b -l -p -pother.c:7" \
		 "-b -l -p -Pother.c:7 -z" "-b -l -p -Pother" "-b -l -Qwork -p -z" \
		 "-b -l -q -qwork" "-b -l -p -Pmain.c -z" "-b -l -p -pother.c:5 -pmain.c:11" \
		 "-b -l -q -qother.c:5" "-b -l -Qother.c:5" "-b -l -k other.c:5/" \
		 "-b -l -nother.c:5 -q" "-b -l -Nother.c:5" "-b -l -eother.c:5 -q" \
		 "-b -l -Fother.c:5" "-b -l -Fmain.c:15"; do
		# shellcheck disable=SC2086
		gprof $o "$p" "$p.gmon" > want.txt 2>&1
		# shellcheck disable=SC2086
		"$BIN/cgprof" $o "$p" "$p.gmon" > got.txt 2>&1
		if cmp -s want.txt got.txt; then
			_tap_result 0 "$o on $p"
		else
			_tap_result 1 "$o on $p"
			diff want.txt got.txt | head -10 | sed 's/^/# /'
		fi
	done
done

# address by address: every .text byte, twice, after the function symbols
# shellcheck disable=SC2086
out=$("$DRV" $programs 2>&1)
like "line map answers like BFD at every address" "$out" '^1\.\.'
if printf '%s\n' "$out" | grep -q '^not ok'; then
	_tap_result 1 "line map: no address answered differently"
	printf '%s\n' "$out" | grep -E '^(not ok|# 0x)' | head -20 | sed 's/^/# /'
else
	_tap_result 0 "line map: no address answered differently"
fi
done_testing
