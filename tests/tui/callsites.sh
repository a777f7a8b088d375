#!/bin/sh
# Issue 27 in the TUI: a session diagnosed over the callsite load (built
# with frame pointers), replayed by an unprivileged user; C on the verdict
# leaf opens the user-space call sites of that node, naming the program's
# own functions with their share.  Needs root for the recording.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"
need_root
need_cmd setpriv
FP="$BUILD/scenarios/callsite_fp"
[ -x "$FP" ] || fail "missing $FP (run make)"
W="$TMP/work"
mkdir -p "$W"
"$ARGUS" diagnose --batch --json --load "$FP" --pairs 3 --fixed --session "$W/cs.jsonl" \
	>"$W/v.json" 2>"$W/err" || { tail -3 "$W/err"; fail "argus diagnose failed"; }
jq -e '.verdict.leaf == "read_zero"' "$W/v.json" >/dev/null ||
	fail "verdict leaf is not read_zero: $(jq -c .verdict.path "$W/v.json")"
chmod 755 "$TMP" "$W"
chmod 644 "$W/cs.jsonl"
setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$ARGUS" ||
	skip "user nobody cannot run $ARGUS (a path component is not searchable)"
ARGUS="setpriv --reuid=65534 --regid=65534 --clear-groups $ARGUS"
cd "$W" || fail "cannot cd to $W"
start 140 40 LANG=C.UTF-8 TERM=xterm-256color HOME="$W" -- replay "$W/cs.jsonl"
keys '}'
wait_for "verdict"
keys / r e a d _ z e r o Enter
wait_for "read_zero"
keys C
wait_for "user-space call sites"
screen | grep -E 'callsite_read_raw \(callsite_fp\) ← callsite_read_zero \(callsite_fp\) ← callsite_fill \(callsite_fp\)' ||
	{ screen; fail "C shows no call site through callsite_fill"; }
screen | grep -qE '[0-9]+%  callsite_read_raw' || { screen; fail "no share beside the call site"; }
screen | grep -q 'rise in the loaded windows (samples/s)' || { screen; fail "the rises' unit is not said"; }
keys q
keys q
echo "call sites key: ok"
