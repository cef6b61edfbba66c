#!/bin/bash
# Differential test of the gprof report writer: cgprof against the real
# GNU gprof 2.40, byte for byte, on programs built and run here, for the
# option sets that shape the report (-k, -e/-E/-f/-F, -n/-N, -p/-P, -q/-Q,
# -z, -T, -w, -L, --inline-file-names, --no-demangle).  Without -b, our
# explanations must be pure insertions into the -b report.
. "$CG_TOP/tests/lib.sh"
require_tool gcc gprof python3
SRC=$CG_TOP/testdata/gprof
cd "$WORK" || exit 1

build_run() {  # name sources...
	local name=$1; shift
	gcc -pg -O0 -fno-inline -g -o "$name" "$@" || return 1
	mkdir -p "$name.run" && (cd "$name.run" && "../$name") || return 1
}

ok "build and run the cycle example" build_run cycles "$SRC/cycles.c"
ok "build and run the simple example" build_run simple "$SRC/simple.c"
ok "build and run the same-name statics example" build_run statics \
	"$SRC/statics_main.c" "$SRC/statics_a.c" "$SRC/statics_b.c"
ok "generate a 600-function program with many cycles" sh -c \
	"python3 '$SRC/gen-cycles.py' 600 7 > gen.c"
ok "build and run it" build_run gen gen.c

same_report() {  # program options...
	local prog=$1; shift
	gprof "$@" "$prog" "$prog.run/gmon.out" > want.txt 2> want.err
	local ws=$?
	"$BIN/cgprof" "$@" "$prog" "$prog.run/gmon.out" > got.txt 2> got.err
	local gs=$?
	if [ $ws -eq $gs ] && cmp -s want.txt got.txt; then
		_tap_result 0 "$prog $*"
	else
		_tap_result 1 "$prog $*"
		diag "exit: gprof $ws, cgprof $gs"
		diff want.txt got.txt | head -20 | sed 's/^/# /'
	fi
}

common=(
	"-b" "-b -z" "-b -T" "-b -T -z" "-b -w 100" "-b -w 50 -z" "-b -T -w 100 -z"
	"-b -p" "-b -q" "-b -P" "-b -Q" "-b -L -z" "-b --inline-file-names -z"
	"-b -T --inline-file-names" "-b --no-demangle" "-b -a" "-b -a -z"
)
cycles_opts=(
	"-b -k cyc_c/cyc_a" "-b -kcyc_c/cyc_a -T" "-b -k /burn" "-b -k main/"
	"-b -k main/cyc_a -k main/ping" "-b -qfact" "-b -Qfact" "-b -Nburn -q"
	"-b -nfact" "-b -efact" "-b -Efact" "-b -ffact" "-b -Ffact" "-b -Fping -z"
	"-b -qping/pong" "-b -Qping/pong" "-b -q -qcycles.c:pong" "-b -Eping -Epong"
	"-b -n burn -N cyc_b -q" "-b -e cyc_a -f cyc_a" "-b -q -k /"
	"-b -Pburn" "-b -Pburn -T" "-b -pburn -pping" "-b -pcycles.c:ping" "-b -Pcyc_a -q"
	"-b -C" "-b -C -z" "-b -Cburn" "-b -Zburn" "-b -C -Zmain -T"
)
gen_opts=(
	"-b -nf3" "-b -nf3 -T" "-b -Nf1 -Nf2 -q" "-b -Ff7" "-b -Ef0 -Ef1 -Ef2" "-b -k f0/ -k f0/f1"
	"-b -k /f5 -k /f6 -q" "-b -qf50" "-b -Qf50 -T" "-b -P -Qf9 -ef10 -ff11"
	"-b -pf1 -pf2 -Pf3" "-b -Pf0 -z" "-b -C -a -z"
)

for o in "${common[@]}"; do
	for prog in cycles simple statics gen; do
		# shellcheck disable=SC2086
		same_report $prog $o
	done
done
for o in "${cycles_opts[@]}"; do
	# shellcheck disable=SC2086
	same_report cycles $o
done
for o in "${gen_opts[@]}"; do
	# shellcheck disable=SC2086
	same_report gen $o
done

# Without -b: the report is the -b report with explanations inserted (and
# the call graph title that announces them).
insertions_only() {  # program options...
	local prog=$1; shift
	"$BIN/cgprof" -b "$@" "$prog" "$prog.run/gmon.out" | sed 's/^\t\t\tCall graph$/TITLE/' > brief.txt
	"$BIN/cgprof" "$@" "$prog" "$prog.run/gmon.out" \
		| sed 's/^\t\t     Call graph (explanation follows)$/TITLE/' > full.txt
	local removed
	removed=$(diff --unchanged-line-format= --old-line-format='%L' --new-line-format= brief.txt full.txt)
	is "no -b: $prog $* only adds explanations" "$removed" ""
	# and the explanations are really there
	if [ "$(wc -l < full.txt)" -gt "$(wc -l < brief.txt)" ]; then _tap_result 0 "no -b: $prog $* explains"
	else _tap_result 1 "no -b: $prog $* explains"; fi
}
insertions_only cycles
insertions_only cycles -T
insertions_only simple -z

done_testing
