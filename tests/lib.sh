# tests/lib.sh — TAP helpers for shell tests.  Source it from a tests/*.t:
#   . "$CG_TOP/tests/lib.sh"
#   ok "description" command args...     # passes when the command exits 0
#   is "description" "$got" "$expected"  # string equality, diff on failure
#   like "description" "$got" 'regex'   # extended regex match
#   cmp_files "description" got.txt expected.txt
#   diag "why it failed" ...              # to stderr too: prove shows it
#   note "information" ...                # TAP stream only (prove -v)
#   done_testing
# $BIN is the build's bin dir; $WORK a fresh temporary directory removed at
# exit.  LC_ALL=C everywhere so numbers print the same on every machine.
set -u
: "${CG_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${CG_BUILD:=$CG_TOP/build}"
BIN=$CG_BUILD/bin
export LC_ALL=C LANG=C
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cgtest.XXXXXX")
trap '[ -n "${CG_KEEP:-}" ] || rm -rf "$WORK"' EXIT
_tap_n=0
_tap_fail=0

_tap_result() {  # status description
	_tap_n=$((_tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_tap_n - $2"
	else
		echo "not ok $_tap_n - $2"
		_tap_fail=$((_tap_fail + 1))
	fi
}

# diag: a failure's explanation, on stderr as well as in the TAP stream,
# so that prove's summary (all CI keeps) shows why a test failed.
# note: information, in the TAP stream only (prove -v shows it).
diag() { printf '%s\n' "$@" | sed 's/^/# /' | tee /dev/stderr; }
note() { printf '%s\n' "$@" | sed 's/^/# /'; }

ok() {
	local d=$1; shift
	local out
	if out=$("$@" 2>&1); then _tap_result 0 "$d"; else
		_tap_result 1 "$d"; diag "command failed: $*" "$out" | head -40; fi
}

not_ok_cmd() {  # passes when the command FAILS
	local d=$1; shift
	if "$@" >/dev/null 2>&1; then _tap_result 1 "$d"; diag "command unexpectedly succeeded: $*"
	else _tap_result 0 "$d"; fi
}

is() {
	if [ "$2" = "$3" ]; then _tap_result 0 "$1"; else
		_tap_result 1 "$1"
		diag "$(diff <(printf '%s\n' "$3") <(printf '%s\n' "$2") | head -40)"
	fi
}

# like "description" "$got" 'extended regex'
like() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then _tap_result 0 "$1"; else
		_tap_result 1 "$1"; diag "no match for /$3/ in:" "$2" | head -20; fi
}

# failing_names < TAP: the names of the failed tests, sorted, ';'-joined.
failing_names() {
	sed -n 's/^not ok [0-9]* - //p' | LC_ALL=C sort | tr '\n' ';'
}

cmp_files() {
	if cmp -s "$2" "$3"; then _tap_result 0 "$1"; else
		_tap_result 1 "$1"; diag "$(diff -u "$3" "$2" | head -60)"; fi
}

# exit_status "description" expected_status command args...
exit_status() {
	local d=$1 want=$2; shift 2
	"$@" >/dev/null 2>&1
	local got=$?
	if [ "$got" -eq "$want" ]; then _tap_result 0 "$d"; else
		_tap_result 1 "$d"; diag "expected exit $want, got $got: $*"; fi
}

# require_tool NAME... : a missing tool is a failure, never a skip (CI
# installs everything the suite needs).
require_tool() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || { echo "Bail out! required tool '$t' is missing (run .ci/run or install it)"; exit 1; }
	done
}

done_testing() {
	echo "1..$_tap_n"
	[ "$_tap_fail" -eq 0 ]
}
