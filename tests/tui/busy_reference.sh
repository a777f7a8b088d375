#!/bin/sh
# Live (root).  A busy reference is warned about every time it is used
# (issue 24 item 7).  A reference saved beside a CPU hog keeps why it was
# busy (its "busy" key, the numbers whole); then, the hog gone, each use of
# it says so: `argus diagnose --batch -p PID --reference F` on stderr, and
# `argus -p PID --reference F` at 80x24 and 160x45 in the agent pane, the
# whole sentence to its advice ("reference save --strict"), not cut at 80
# columns (its first words and its last, "--strict')", are seen).  The
# warning is waited for, not timed.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd jq
. "$(dirname "$0")/tmux.inc"

sh -c 'while :; do :; done' &
H=$!
at_exit "kill $H 2>/dev/null"
"$ARGUS" reference save --duration 2 --output "$TMP/ref.json" 2> "$TMP/save.err" ||
	{ cat "$TMP/save.err"; fail "reference save failed"; }
kill $H
cat "$TMP/save.err"
busy=$(jq -r '.busy // empty' "$TMP/ref.json")
echo "busy: $busy"
[ -n "$busy" ] || fail "a reference saved beside a CPU hog has no busy key"
# the numbers kept whole (the advice was cut mid-word to the key's size)
echo "$busy" | grep -Eq 'load average [0-9.]+ on [0-9]+ CPUs? \(limit [0-9.]+\)$' ||
	fail "the busy key is cut: '$busy'"

sh -c 'while :; do sleep 0.2; done' &
P=$!
at_exit "kill $P 2>/dev/null"

"$ARGUS" diagnose --batch --json --no-session -p "$P" --reference "$TMP/ref.json" \
	--fixed --pairs 2 --window 0.5 > "$TMP/out.json" 2> "$TMP/diag.err"
rc=$?
cat "$TMP/diag.err"
[ $rc -eq 0 ] || fail "diagnose -p --reference exited $rc"
grep -q 'warning: the saved reference was recorded on a busy system' "$TMP/diag.err" ||
	fail "diagnose does not warn that the reference was recorded on a busy system"

for size in "80 24" "160 45"; do
	set -- $size
	start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color -- --no-session -p "$P" \
		--reference "$TMP/ref.json"
	# the pane wraps at spaces, where the numbers' widths decide: its
	# first words, then its last (the whole warning, never cut)
	wait_for "!! warning: the saved reference was recorded on a busy"
	wait_for "--strict')"
	keys q
	expect_sane_exit
done
echo ok
