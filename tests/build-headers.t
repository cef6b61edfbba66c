#!/usr/bin/env bash
# Every public header compiles on its own under strict flags (C11 and
# C++), and an installed tree builds a program through pkg-config.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool cc pkg-config
cd "$CG_TOP"
for h in libcallgraph/include/callgraph.h libcallgraph/include/callgraph/*.h libcallgraph/include/callgraph/sys/*.h; do
  rel=${h#libcallgraph/include/}
  printf '#include "%s"\n#include "%s"\nint cg_header_test_dummy;\n' "$rel" "$rel" > "$WORK/h.c"
  ok "$rel compiles alone (C11, -Wall -Wextra -pedantic -Werror)" \
    cc -std=c11 -Wall -Wextra -pedantic -Werror -Ilibcallgraph/include -c -o "$WORK/h.o" "$WORK/h.c"
done

make -s install INSTALL_NO_BUILD=1 DESTDIR="$WORK/root" PREFIX=/usr B="${CG_BUILD#$CG_TOP/}" >"$WORK/install.log" 2>&1
ok "make install into a DESTDIR" test -f "$WORK/root/usr/include/callgraph.h"
cat > "$WORK/use.c" <<'C'
#include <callgraph.h>
#include <stdio.h>
int main(void)
{
	cg_profile *p;
	cg_fid f;
	if (cg_profile_new(&p) || cg_profile_intern_function(p, "main", NULL, NULL, &f))
		return 1;
	printf("%s %zu\n", cg_version(), cg_profile_function_count(p));
	cg_profile_free(p);
	return 0;
}
C
pcdir="$WORK/root/usr/lib/pkgconfig"
flags=$(PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR="$WORK/root" pkg-config --cflags --libs libcallgraph)
ok "a program builds against the installed library via pkg-config" \
  cc -std=c11 ${CG_SANFLAGS:-} -o "$WORK/use" "$WORK/use.c" $flags
is "it runs against the installed shared library" \
  "$(LD_LIBRARY_PATH=$WORK/root/usr/lib "$WORK/use" 2>&1)" "$(cat VERSION 2>/dev/null || echo 0.1.0) 1"
soname=$(readelf -d "$WORK/root/usr/lib/libcallgraph.so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
is "the shared library has a SONAME" "$soname" "libcallgraph.so.0"
exported=$(nm -D --defined-only "$WORK/root/usr/lib/libcallgraph.so" | awk '$2 ~ /^[TDBR]$/ {print $3}' | grep -v '^cg_' | head -5)
is "only cg_* symbols are exported" "$exported" ""
# The static library has no version script to hide behind: every global
# symbol of every object in it must carry the prefix too, or it can clash
# with a program's own names at link time.
static_globals=$(nm -g --defined-only "$WORK/root/usr/lib/libcallgraph.a" | awk 'NF == 3 {print $3}' | grep -v -e '^cg_' -e '^__odr_asan\.cg_' | head -5)
is "every global symbol of the static library starts with cg_" "$static_globals" ""

# The example program of libcallgraph(3), built against the installed tree
# as its comment says, and run on a small profile.
ok "docs/examples/cgtop.c builds via pkg-config" \
  cc -std=c11 -Wall -Wextra -Werror ${CG_SANFLAGS:-} -o "$WORK/cgtop" docs/examples/cgtop.c $flags
cat > "$WORK/ex.cg" <<'CG'
# callgraph example
events: Ir
fn=main
1 5
cfn=wrap
calls=1 0
1 95
fn=wrap
1 5
cfn=work
calls=3 0
1 90
fn=work
1 90
CG
is "cgtop prints the highest self costs" \
  "$(LD_LIBRARY_PATH=$WORK/root/usr/lib "$WORK/cgtop" -n 2 "$WORK/ex.cg")" \
  "$(printf 'Ir           function\n90           work\n5            main')"
is "cgtop -x makes a function transparent (its self cost goes to its caller)" \
  "$(LD_LIBRARY_PATH=$WORK/root/usr/lib "$WORK/cgtop" -n 3 -x wrap "$WORK/ex.cg")" \
  "$(printf 'Ir           function\n90           work\n10           main')"
ok "cgtop converts through the registry" \
  env LD_LIBRARY_PATH="$WORK/root/usr/lib" "$WORK/cgtop" -t xml -o "$WORK/ex.xml" "$WORK/ex.cg"
ok "... to valid XML" grep -q '<callgraph' "$WORK/ex.xml"
# The man page shows the same program (troff escapes undone).
sed -n '/^\.SH EXAMPLE/,/^\.SH/p' docs/libcallgraph.3 | sed -n '/^\.nf/,/^\.fi/p' | sed '1d;$d' |
  sed -e 's/\\(em/—/g' -e 's/^\\&//' -e 's/\\e/\\/g' > "$WORK/man-example.c"
cmp_files "libcallgraph(3)'s EXAMPLE is docs/examples/cgtop.c" "$WORK/man-example.c" docs/examples/cgtop.c

# pkg-config --static: a program linked against the static archive alone
# (the shared library hidden) with the private flags the .pc file lists.
mkdir -p "$WORK/static/lib"
cp "$WORK/root/usr/lib/libcallgraph.a" "$WORK/static/lib/"
static_flags=$(PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR="$WORK/root" pkg-config --static --cflags --libs libcallgraph)
ok "a program links the static library with pkg-config --static" \
  cc -std=c11 ${CG_SANFLAGS:-} -o "$WORK/use-static" "$WORK/use.c" -L"$WORK/static/lib" $static_flags
ok "the statically linked program needs no libcallgraph.so" \
  sh -c "! ldd '$WORK/use-static' | grep -q libcallgraph"
is "and runs" "$("$WORK/use-static" 2>&1)" "$(cat VERSION 2>/dev/null || echo 0.1.0) 1"

# The collector's own pkg-config file.
cat > "$WORK/usec.c" <<'C'
#include <cgcollect.h>
int main(void) { return 0; }
C
cflags=$(PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR="$WORK/root" pkg-config --cflags --libs cgcollect)
ok "a program builds against the collector via pkg-config (cgcollect.pc)" \
  cc -std=c11 -o "$WORK/usec" "$WORK/usec.c" $cflags
ok "the XML schema is installed" test -f "$WORK/root/usr/share/callgraph/xml-schema.rng"
ok "sys/format.h is installed" test -f "$WORK/root/usr/include/callgraph/sys/format.h"

# Directory variables are honoured one by one, and uninstall removes all.
make -s install INSTALL_NO_BUILD=1 DESTDIR="$WORK/root2" PREFIX=/opt/cg LIBDIR=/opt/cg/lib64 \
  BINDIR=/opt/cg/sbin MANDIR=/opt/cg/man B="${CG_BUILD#$CG_TOP/}" >"$WORK/install2.log" 2>&1
ok "LIBDIR is honoured" test -f "$WORK/root2/opt/cg/lib64/libcallgraph.a"
ok "BINDIR is honoured" test -x "$WORK/root2/opt/cg/sbin/cgconvert"
ok "MANDIR is honoured" test -f "$WORK/root2/opt/cg/man/man1/cgprof.1"
like "the .pc file points at LIBDIR" "$(cat "$WORK/root2/opt/cg/lib64/pkgconfig/libcallgraph.pc")" 'libdir=/opt/cg/lib64'
make -s uninstall DESTDIR="$WORK/root2" PREFIX=/opt/cg LIBDIR=/opt/cg/lib64 \
  BINDIR=/opt/cg/sbin MANDIR=/opt/cg/man B="${CG_BUILD#$CG_TOP/}" >"$WORK/uninstall.log" 2>&1
is "make uninstall leaves no file behind" "$(find "$WORK/root2" -type f -o -type l | head -5)" ""

# make clean B=DIR removes that build directory and no other.
mkdir -p "$WORK/scratch-build/x"
make -s clean B="$WORK/scratch-build" >/dev/null 2>&1
ok "make clean B=DIR removes DIR" test ! -e "$WORK/scratch-build"
ok "and leaves the suite's own build directory alone" test -d "$CG_BUILD"
done_testing
