#!/bin/sh
# Live (root).  A busy reference is warned about every time it is used
# (issue 24 item 7).  A reference saved beside a CPU hog keeps why it was
# busy (its "busy" key, the numbers whole); then, the hog gone, each use of
# it says so: `argus diagnose --batch -p PID --reference F` on stderr, and
# `argus -p PID --reference F` at 80x24 and 160x45 in the agent pane, the
# whole sentence to its advice ("reference save --strict"), not cut at 80
# columns (its first words and its last, "--strict')", are seen).  The
# warning is waited for, not timed.  Both runs' sessions record it (a note),
# and the report made from one says it.
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

"$ARGUS" diagnose --batch --json --session "$TMP/d.jsonl" -p "$P" --reference "$TMP/ref.json" \
	--fixed --pairs 2 --window 0.5 > "$TMP/out.json" 2> "$TMP/diag.err"
rc=$?
cat "$TMP/diag.err"
[ $rc -eq 0 ] || fail "diagnose -p --reference exited $rc"
grep -q 'warning: the saved reference was recorded on a busy system' "$TMP/diag.err" ||
	fail "diagnose does not warn that the reference was recorded on a busy system"
# the session keeps the warning (a note), so a replay and a report say it
# too (tests/tui/replay_busy_reference.sh shows them, unprivileged)
jq -r 'select(.type == "note") | .text' "$TMP/d.jsonl" |
	grep -q "^warning: the saved reference was recorded on a busy system (.*--strict')$" ||
	fail "the session does not record the busy reference's warning"
"$ARGUS" export "$TMP/d.jsonl" --format markdown -o "$TMP/d.md" || fail "export markdown failed"
grep -qF '**warning: the saved reference was recorded on a busy system' "$TMP/d.md" ||
	fail "the report does not warn about the busy reference"

for size in "80 24" "160 45"; do
	set -- $size
	start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color -- --session "$TMP/t-$1.jsonl" -p "$P" \
		--reference "$TMP/ref.json"
	# the pane wraps at spaces, where the numbers' widths decide: its
	# first words, then its last (the whole warning, never cut)
	wait_for "!! warning: the saved reference was recorded on a busy"
	wait_for "--strict')"
	keys q
	expect_sane_exit
	jq -r 'select(.type == "note") | .text' "$TMP/t-$1.jsonl" |
		grep -q '^warning: the saved reference was recorded on a busy system' ||
		fail "$1x$2: the session does not record the warning"
done
echo ok
