#!/bin/sh
# model_load — `argus model --load CMD`, the load given as one string as for
# argus and argus diagnose: plain words run directly (the model is the same
# as with -- CMD ARGS: t3-client the reference with its 2 threads, calling
# t3-front), shell syntax through /bin/sh -c (the shell is not the
# reference); the usage errors: --load with -- CMD, --load with -p, an empty
# --load, --load twice, a missing value.  Nothing stays running.
. "$(dirname "$0")/../lib.sh"
need_scenario T3 tier3
usage() { # what-it-is args...: exit 2 with a message naming the problem
	what=$1; shift
	"$ARGUS" model "$@" >/dev/null 2>"$TMP/u.err"; rc=$?
	[ $rc = 2 ] || { cat "$TMP/u.err"; fail "$what: exit $rc, not 2"; }
	grep -q '^argus' "$TMP/u.err" || fail "$what: no message"
}
usage "--load with -- CMD" --load "$T3 --clients 1" -- "$T3"
grep -q 'not both' "$TMP/u.err" || { cat "$TMP/u.err"; fail "--load with -- CMD: the message does not say it"; }
usage "--load with -p" --load "$T3" -p 1
usage "an empty --load" --load ''
grep -q "bad --load ''" "$TMP/u.err" || { cat "$TMP/u.err"; fail "an empty --load is not named"; }
usage "--load twice" --load "$T3" --load "$T3"
usage "--load without a value" --load
grep -q 'missing value' "$TMP/u.err" || { cat "$TMP/u.err"; fail "--load without a value: no 'missing value'"; }
"$ARGUS" model --help | grep -q -- '--load CMD' || fail "--help does not list --load"
need_root
need_cmd python3

check() { # json err what
	python3 - "$1" "$3" <<'PY' || { cat "$2"; fail "$3: the model is wrong (above)"; }
import json, sys
m = json.load(open(sys.argv[1]))
t = {x["name"]: x for x in m["tasks"]}
calls = {(a, c["to"]) for a in t for c in t[a]["calls"]}
print("%s: tasks %s, reference %s" % (sys.argv[2], sorted(t), m["reference"]))
assert m["reference"] == "t3-client", m["reference"]
assert t["t3-client"]["threads"] == 2, t["t3-client"]["threads"]
assert ("t3-client", "t3-front") in calls and ("t3-front", "t3-back") in calls, sorted(calls)
assert m["throughput"] > 0
PY
}
"$ARGUS" model --duration 8 --format json --load "$T3 --clients 2 --seconds 4 --io 0" \
	>"$TMP/a.json" 2>"$TMP/a.err" || { cat "$TMP/a.err"; fail "argus model --load (plain words) failed"; }
check "$TMP/a.json" "$TMP/a.err" "--load plain words"
grep -q 'tier3: clients=2 ' "$TMP/a.err" || fail "the load's output is not on stderr"
# shell syntax: run by /bin/sh -c (the quotes are the shell's)
"$ARGUS" model --duration 8 --format json --load "'$T3' --clients 2 --seconds 4 --io 0 && echo done-by-sh" \
	>"$TMP/b.json" 2>"$TMP/b.err" || { cat "$TMP/b.err"; fail "argus model --load (shell syntax) failed"; }
check "$TMP/b.json" "$TMP/b.err" "--load through the shell"
grep -q '^done-by-sh$' "$TMP/b.err" || { cat "$TMP/b.err"; fail "the shell did not run the --load string"; }
# a command that cannot run: 127, as with -- CMD
"$ARGUS" model --load /nonexistent/cmd >/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 127 ] || { cat "$TMP/err"; fail "--load of a command that cannot run exited $rc, not 127"; }
sleep 0.5
pgrep -f "^$ARGUS model" >/dev/null && fail "an argus model process is still running"
pgrep -f "^$T3" >/dev/null && fail "tier3 processes left running"
echo "PASS"
