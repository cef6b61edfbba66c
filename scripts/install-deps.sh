#!/usr/bin/env bash
# Installs the packages callgraph needs to build and test on Debian 12
# (compiler, libbfd/libiberty, libxml2, and the reference tools the
# differential tests run: gprof, erl/fprof, callgrind_annotate, xmllint, dot;
# the interpreters the collector's bindings are built for and tested with),
# plus the flame-graph viewer the folded output is checked in: speedscope
# from npm (into the repo's gitignored .tools/) run in headless chromium.
# Idempotent: installs only what is missing.  Needs root (or sudo).
set -euo pipefail
packages=(
  build-essential pkg-config python3 perl         # compiler, make, prove
  binutils binutils-dev libiberty-dev zlib1g-dev   # gprof 2.40, libbfd, demangler
  libzstd-dev                                      # libbfd.a needs it for static links
  libxml2-dev libxml2-utils                        # XML writer/reader, xmllint
  libdw-dev                                        # DWARF line tables (elfutils libdw, libelf)
  erlang-base erlang-tools                         # erl + fprof
  valgrind graphviz                                # callgrind_annotate, dot
  time uftrace                                     # make bench: GNU time, uftrace
  chromium                                         # runs speedscope headless
  lua5.4 liblua5.4-dev                             # interpreter bindings: Lua 5.4,
  python3-dev                                      # Debian's Python 3 (headers),
  swi-prolog-nox                                   # SWI-Prolog 9
  golang-go                                        # go tool pprof: checks our pprof files
  linux-perf                                       # perf record/script/report: perf inputs
  python3-scipy                                    # reference Mann-Whitney p-values (tests/diff-runs.t)
  clang libclang-rt-dev                            # make fuzz: libFuzzer (clang -fsanitize=fuzzer)
)
# npm for speedscope; a machine with its own Node.js (and npm) keeps it.
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q "${missing[@]}"
fi
top=$(cd "$(dirname "$0")/.." && pwd)
speedscope=speedscope@1.25.0
grep -qs '"version": "1.25.0"' "$top/.tools/node_modules/speedscope/package.json" ||
  npm install --no-audit --no-fund --ignore-scripts --prefix "$top/.tools" "$speedscope"
# junit2json: a JUnit XML parser from npm that tests/diff-gate.t reads
# cgdiff's JUnit report with (as a CI's test-report widget would).
junit2json=junit2json@4.0.0
grep -qs '"version": "4.0.0"' "$top/.tools/node_modules/junit2json/package.json" ||
  npm install --no-audit --no-fund --ignore-scripts --prefix "$top/.tools" "$junit2json"
