#!/bin/sh
# make-goldens.sh — regenerates testdata/gmon/golden/: small -pg programs
# (built and run once by build.sh), their profiles and the real gprof
# 2.40's reports for a set of options.  tests/gmon-golden.t checks that
# cgprof still prints exactly these reports from these files.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
g=$here/golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
variants="simple-O0-pie-g cycles-O0-pie-g multi-O0-pie-g cycles-O2-nopie cxx-O0-pie-g"
"$here/build.sh" "$tmp" $variants
rm -rf "$g"
mkdir -p "$g"
cat >"$g/options" <<'OPTS'
-b
-b -z
-b -T
-b -T -z
-b -a -z
-b -p
-b -q
-b -i
-b -w 50 -z
-b -L --inline-file-names -z
-b -Nburn -q
-b -k main/
-b -qmain
-b --no-demangle
OPTS
for v in $variants; do
	mkdir -p "$g/$v"
	cp "$tmp/$v/exe" "$tmp/$v/gmon.out" "$tmp/$v/gmon.2" "$g/$v/"
	n=0
	while IFS= read -r opts; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		(cd "$g/$v" && gprof $opts exe gmon.out >"expected.$n" 2>&1 || true)
	done <"$g/options"
	(cd "$g/$v" && gprof -b exe gmon.out gmon.2 >expected.sum)
done
