#!/bin/bash
# real-programs.sh WORKDIR — cgprof against gprof on programs nobody here
# wrote, as Debian ships their sources: zlib's examples (enough: deep
# recursion; minigzip, gun: real compression work), libpng's pngtest, and
# googletest's samples (C++, ~1,600-line call graph).  Needs zlib1g-dev,
# libpng-dev and googletest installed.  Prints one line per program with
# how many option sets gave identical reports.
here=$(cd "$(dirname "$0")" && pwd)
CG=${CG:-$here/../../build/bin/cgprof}
set -u
mkdir -p "$1" && cd "$1" || exit 2
cp /usr/share/doc/zlib1g-dev/examples/enough.c /usr/share/doc/zlib1g-dev/examples/minigzip.c \
   /usr/share/doc/zlib1g-dev/examples/gun.c . || exit 2
cmp_all() {  # dir exe
	local d=$1 e=$2 n=0 bad=0
	for o in "-b" "" "-b -z" "-b -T" "-b -a" "-b -T -z" "-b --no-demangle" "-b -w 120 -z" "-b -L --inline-file-names" "-b -D -z" "-b -C" "-b -A" "-b -i" "-b -p" "-b -q" "-b -l" "-b -l -z"; do
		n=$((n+1))
		(cd $d && gprof $o $e gmon.out > g.txt 2>g.err; cd .. ) 
		(cd $d && $CG $o $e gmon.out > c.txt 2>c.err)
		if [ -z "$o" ]; then
			python3 $here/strip-blurbs.py < $d/g.txt > $d/g.s; python3 $here/strip-blurbs.py < $d/c.txt > $d/c.s
			cmp -s $d/g.s $d/c.s || { bad=$((bad+1)); echo "  DIFF [$o]"; }
		else
			cmp -s $d/g.txt $d/c.txt || { bad=$((bad+1)); echo "  DIFF [$o]"; diff $d/g.txt $d/c.txt | head -5; }
		fi
	done
	echo "$d: $((n-bad))/$n option sets identical ($(wc -l < $d/g.txt) lines in the last report, $(grep -c . $d/g.err) stderr lines)"
}
mkdir -p enough && gcc -pg -O2 -g -o enough/enough enough.c && (cd enough && ./enough 280 12 > /dev/null) && cmp_all enough enough
mkdir -p minigzip && gcc -pg -O2 -g -o minigzip/minigzip minigzip.c -lz && (cd minigzip && cat /usr/bin/gprof /usr/lib/x86_64-linux-gnu/libbfd-2.40-system.so > in && for i in 1 2 3; do ./minigzip -9 < in > in.gz; ./minigzip -d < in.gz > out; done; cmp in out) && cmp_all minigzip minigzip
mkdir -p gun && gcc -pg -O0 -g -o gun/gun gun.c -lz && (cd gun && cat /usr/bin/gprof /usr/bin/gprof > in && gzip -9 < in > in.gz && ./gun < in.gz > out && cmp in out) && cmp_all gun gun
mkdir -p pngtest && gcc -pg -O1 -g -o pngtest/pngtest /usr/share/doc/libpng-dev/examples/pngtest.c -lpng -lz -lm && (cd pngtest && cp /usr/share/doc/libpng-dev/examples/pngtest.png . && for i in 1 2 3 4 5 6 7 8; do ./pngtest pngtest.png out.png >/dev/null; done) && cmp_all pngtest pngtest
G=/usr/src/googletest/googletest
mkdir -p gtest && g++ -pg -O1 -g -std=c++14 -I$G/include -I$G -o gtest/gtest $G/src/gtest-all.cc $G/samples/sample1.cc $G/samples/sample1_unittest.cc $G/samples/sample2.cc $G/samples/sample2_unittest.cc $G/samples/sample3_unittest.cc $G/samples/sample4.cc $G/samples/sample4_unittest.cc $G/samples/sample5_unittest.cc $G/src/gtest_main.cc -lpthread && (cd gtest && ./gtest > /dev/null) && cmp_all gtest gtest
