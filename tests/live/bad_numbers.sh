#!/bin/sh
# No value hangs argus: NaN, infinities and huge numbers are refused by
# every option with exit 2 and the real limits, before anything is loaded.
# (On the old parser --window nan sat in window 1 forever and
# `reference save --duration nan` exited 0 after one window.)
. "$(dirname "$0")/../lib.sh"
need_cmd timeout
n=0
check() { # want-substring argus-args...
	want=$1; shift
	n=$((n + 1))
	timeout 20 "$ARGUS" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
	[ $rc -eq 124 ] && fail "argus $* hung (killed after 20 s)"
	[ $rc -eq 2 ] || fail "argus $*: exit $rc, want 2 (usage); stderr: $(cat "$TMP/err")"
	grep -q -- "$want" "$TMP/err" || fail "argus $*: stderr lacks '$want': $(cat "$TMP/err")"
	grep -q "$(printf '\033')" "$TMP/err" && fail "argus $*: an ESC byte reached stderr"
	:
}
check "between 0.05 and 600 (seconds)" diagnose --batch --json --window nan -- true
check "between 0.05 and 600 (seconds)" diagnose --batch --json --window inf -- true
check "out of range" diagnose --batch --json --window 1e308 -- true
check "between 0 and 1000 (percent of one CPU)" diagnose --batch --json --time-budget abc -- true
check "out of range" diagnose --batch --json --time-budget -1 -- true
check "between 0 and 60 (seconds)" diagnose --batch --json --settle nan -- true
check "between 1 and 1000" diagnose --batch --json --pairs 1.5 -- true
check "between 1 and 100000 (Hz)" diagnose --batch --json --freq -3 -- true
check "between 0 and 100 (steps)" diagnose --batch --json --steps nan -- true
check "between 0.01 and 1000" diagnose --batch --json --budget inf -- true
check "between 0.1 and 86400 (seconds)" reference save --duration nan
check "between 0.05 and 600" reference save --window nan
check "between 0.01 and 1000" step --budget nan -- true
check "between 1 and 100 (pairs)" step --step-pairs 1e308 -- true
check "between 0.01 and 86400" record --duration nan
check "between 0 and 100 (percent)" --threshold nan -- true
check "'\\\\x1b\[2J' is not a number" diagnose --batch --json --window "$(printf '\033[2J')" -- true
# a spec field: the real limit, not UINT_MAX
printf '{"kind":"sample","duration_s":1,"freq_hz":-5}' >"$TMP/s.json"
"$ARGUS" step --check "$TMP/s.json" 2>"$TMP/err" && fail "step --check took freq_hz -5"
grep -q "between 1 and 10000 (Hz)" "$TMP/err" || fail "freq_hz -5: $(cat "$TMP/err")"
echo "bad_numbers: $n options refused with exit 2 and their limits; freq_hz -5 says 1..10000"
