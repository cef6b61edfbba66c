#!/bin/sh
# build.sh OUTDIR [VARIANT...] — builds the -pg test programs of
# testdata/gmon/src in their variants and runs each one, so that
# OUTDIR/VARIANT/ holds `exe`, `gmon.out` (first run) and `gmon.2` (a
# second run, for summing several files).  Profiles are sampled: every
# build is a fresh measurement, compare tools on the same files.
#
# Variants: PROGRAM-OPT-LINK[-g], e.g. simple-O0-pie-g, cycles-O2-nopie.
# With no VARIANT arguments all of them are built.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$1; shift
mkdir -p "$out"

all_variants="
simple-O0-pie-g simple-O2-nopie
cycles-O0-pie-g cycles-O2-pie-g cycles-O0-nopie-g
multi-O0-pie-g multi-O2-nopie-g multi-O0-nopie
cxx-O0-pie-g cxx-O2-pie
big-O0-nopie
"
[ $# -gt 0 ] || set -- $all_variants

for v in "$@"; do
	prog=${v%%-*}
	rest=${v#*-}
	opt=${rest%%-*}
	rest=${rest#*-}
	link=${rest%%-*}
	flags="-pg -$opt"
	case $rest in *-g) flags="$flags -g" ;; esac
	case $link in pie) flags="$flags -fPIE -pie" ;; nopie) flags="$flags -fno-PIE -no-pie" ;; esac
	d=$out/$v
	mkdir -p "$d"
	case $prog in
	simple|cycles) gcc $flags -o "$d/exe" "$here/src/$prog.c" ;;
	multi) gcc $flags -o "$d/exe" "$here/src/multi/main.c" "$here/src/multi/a.c" "$here/src/multi/b.c" ;;
	cxx) g++ $flags -o "$d/exe" "$here/src/cxx.cc" ;;
	big)
		# a few thousand functions, dozens of cycles, 20 % static
		python3 "$here/gen-bigprog.py" --funcs 3000 --seed 7 --back 150 \
			--selfrec 40 --hot 150 --hotwork 20000 --reps 2 --fptr 32 -o "$d/big.c" >/dev/null
		gcc $flags -fno-inline -o "$d/exe" "$d/big.c" ;;
	*) echo "build.sh: unknown program in variant $v" >&2; exit 2 ;;
	esac
	(cd "$d" && ./exe && mv gmon.out gmon.2 && ./exe)
done
