#!/bin/sh
# `argus reference save` on a busy system: a warning that says how busy
# (and the file saved), or with --strict nothing saved and exit 1.  Two
# spinners keep both CPUs busy, so the busy share is far above the 10% limit
# whatever else runs on the machine.
. "$(dirname "$0")/../lib.sh"
need_root
for i in 1 2; do sh -c 'while :; do :; done' & echo $! >> "$TMP/spin"; done
at_exit 'kill $(cat "$TMP/spin") 2>/dev/null'
sleep 0.5

"$ARGUS" reference save --duration 1 --strict -o "$TMP/strict.jsonl" 2>"$TMP/err"
rc=$?
cat "$TMP/err"
[ $rc = 1 ] || fail "--strict on a busy system: exit $rc, want 1"
grep -q "the system was not idle while recording: [0-9]*% of the CPU time busy" "$TMP/err" ||
	fail "--strict: the message does not say how busy"
grep -q -- "--strict: nothing saved" "$TMP/err" || fail "--strict: does not say nothing was saved"
[ -e "$TMP/strict.jsonl" ] && fail "--strict saved a reference of a busy system"

"$ARGUS" reference save --duration 1 -o "$TMP/warn.jsonl" 2>"$TMP/err" >/dev/null
rc=$?
cat "$TMP/err"
[ $rc = 0 ] || fail "without --strict: exit $rc, want 0"
grep -q "argus: warning: the system was not idle while recording" "$TMP/err" || fail "no warning"
[ -s "$TMP/warn.jsonl" ] || fail "without --strict: nothing saved"
echo ok
