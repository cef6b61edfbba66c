#!/bin/bash
# Differential test: cgprof against the real gprof 2.40 on freshly built and
# freshly run -pg programs (testdata/gmon/build.sh), on the SAME gmon.out.
# `-b` reports must be byte-identical for every option set; the default
# report must be identical once the explanations are stripped; stderr and
# exit status must match (with the program name replaced).
. "$CG_TOP/tests/lib.sh"
require_tool gcc g++ gprof python3
D=$CG_TOP/testdata/gmon
# a private copy of the tool and its library: other builds in the same tree
# may relink build/lib while this (long) test runs
mkdir -p "$WORK/snap/bin" "$WORK/snap/lib"
cp "$BIN/cgprof" "$WORK/snap/bin/" && cp -P "$CG_BUILD"/lib/libcallgraph.so* "$WORK/snap/lib/"
CGPROF=$WORK/snap/bin/cgprof

if ! "$D/build.sh" "$WORK/b" >"$WORK/build.log" 2>&1; then
	echo "Bail out! building the -pg test programs failed"
	sed 's/^/# /' "$WORK/build.log" | tail -20
	exit 1
fi

# run_both DIR ARGS... : gprof and cgprof with the same arguments in DIR
run_both() {
	local dir=$1; shift
	(cd "$dir" && gprof "$@" >"$WORK/g.out" 2>"$WORK/g.err"; echo $? >"$WORK/g.rc")
	(cd "$dir" && "$CGPROF" "$@" >"$WORK/c.out" 2>"$WORK/c.err"; echo $? >"$WORK/c.rc")
	sed -i "s|$CGPROF|gprof|g" "$WORK/c.err"
}

same_run() {  # description
	if cmp -s "$WORK/g.out" "$WORK/c.out" && cmp -s "$WORK/g.err" "$WORK/c.err" &&
	   cmp -s "$WORK/g.rc" "$WORK/c.rc"; then
		_tap_result 0 "$1"
	else
		_tap_result 1 "$1"
		diag "exit: gprof $(cat "$WORK/g.rc") cgprof $(cat "$WORK/c.rc")"
		diff "$WORK/g.err" "$WORK/c.err" | head -5 | sed 's/^/# err /'
		diff "$WORK/g.out" "$WORK/c.out" | head -30 | sed 's/^/# /'
	fi
}

# option sets that change the report, for every program
common_sets=(
	"" "-p" "-q" "-P" "-Q" "-z" "-T" "-T -z" "-a" "-a -z" "-D -z" "-a -D"
	"-w 100" "-w 30" "-z -w 1" "--no-demangle" "--demangle" "--inline-file-names"
	"-L --inline-file-names -z" "-L -z" "-i" "-i -p" "-C" "-C -z" "-Z" "-p -q"
	"-pburn" "-Pburn" "-qburn" "-Qburn" "-Qmain" "-pnosuch" "-T -pburn"
	"-k main/" "-k /burn" "-nburn" "-Nburn" "-Nburn -q" "-e burn" "-E burn"
	"-f main" "-F main" "--flat-profile=burn" "--graph=main" "--no-graph"
	"--no-flat-profile" "--time=main" "--no-time=main" "-B" "-z -T -w 200"
	"-A" "-A -x -m 2 -t 3" "-Aburn" "-Jburn" "-A -z" "--annotated-source=main"
	"-l" "-l -z" "-l -T" "-l -C" "-l -a" "-l --inline-file-names -L" "-l -A" "--line -q"
)
cycles_sets=(
	"-k cyc_c/cyc_a" "-T -k cyc_c/cyc_a" "-qfact" "-nfact" "-q cyc_a/cyc_b"
	"-Q ping/pong" "-k pong/pong" "-Qcyc_b" "-Ncyc_a" "-e ping -f pong"
)
multi_sets=(
	"-pa.c" "-qa.c:helper" "-Pmain.c:via_ptr1" "-k main.c:main/zero_time"
	"-q b.c" "-N a.c" "-p_under" "-L -z -a"
)
# the other builds of a program (optimisation, PIE) get the core sets
core_sets=( "" "-z" "-T -z" "-a -z" "-D" "-q" "-p" "-C" "-A" "-l -z" "-w 40" "-pburn" "-Nburn" "-r" "-r -k main/" )
# the generated program's report has ~10k lines: fewer sets
big_sets=( "" "-z" "-T" "-T -z" "-a" "-D -z" "-w 100" "-p" "-q" "-i" "-k main/" "-Qmain" "-Nf10" "-nf100" "-l" "-C" "-r" )
cxx_sets=( "-p_Z4burnl" "-T -z" "--no-demangle -z" "--demangle=gnu-v3" )

for dir in "$WORK"/b/*/; do
	v=$(basename "$dir")
	sets=("${common_sets[@]}")
	case $v in
	*-O0-pie-g) ;;
	*) sets=("${core_sets[@]}") ;;
	esac
	case $v in
	big-*) sets=("${big_sets[@]}") ;;
	cycles-*) sets+=("${cycles_sets[@]}") ;;
	multi-*) sets+=("${multi_sets[@]}") ;;
	cxx-*) sets+=("${cxx_sets[@]}") ;;
	esac
	for opts in "${sets[@]}"; do
		# shellcheck disable=SC2086
		run_both "$dir" -b $opts exe gmon.out
		same_run "$v: -b $opts"
	done
	for opts in "" "-z" "-p" "-q"; do
		# shellcheck disable=SC2086
		run_both "$dir" $opts exe gmon.out
		python3 "$D/strip-blurbs.py" <"$WORK/g.out" >"$WORK/g.stripped"
		python3 "$D/strip-blurbs.py" <"$WORK/c.out" >"$WORK/c.stripped"
		# shellcheck disable=SC2086
		(cd "$dir" && gprof -b $opts exe gmon.out >"$WORK/g.brief" 2>/dev/null)
		if cmp -s "$WORK/g.stripped" "$WORK/c.stripped" && cmp -s "$WORK/g.stripped" "$WORK/g.brief"; then
			_tap_result 0 "$v: default output [$opts] equal without explanations"
		else
			_tap_result 1 "$v: default output [$opts] equal without explanations"
			diff "$WORK/g.stripped" "$WORK/c.stripped" | head -20 | sed 's/^/# /'
		fi
	done
	# several profile files are summed
	run_both "$dir" -b exe gmon.out gmon.2
	same_run "$v: -b with two profile files"
	run_both "$dir" -b -i -z exe gmon.2 gmon.out
	same_run "$v: -b -i -z with two profile files"
done
done_testing
