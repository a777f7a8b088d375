#!/bin/sh
# The interactive argus records a session by default: with --load it writes
# every window as it closes, then the descent's decisions and the verdict;
# the file replays without privileges and names the load's path.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"
need_root
need_cmd jq
[ -x "$BUILD/scenarios/pagefault" ] || skip "no scenario loads; run make"
mkdir -p "$TMP/state"
# --fixed: this test is about the session, not about when measuring stops;
# with --pairs 2/3 as a cap the anytime-valid test of sequential stopping has
# less power than the fixed-sample one, and a loaded machine then gives "no
# bottleneck found" (tests/live/seqstop.sh tests sequential stopping).
start 120 30 LANG=C.UTF-8 TERM=xterm-256color XDG_STATE_HOME="$TMP/state" -- \
	--load "$BUILD/scenarios/pagefault" --pairs 2 --fixed
wait_for " done "
S=$(ls "$TMP/state/argus/sessions/"argus-*.jsonl 2>/dev/null | head -n 1)
[ -n "$S" ] || fail "no session under XDG_STATE_HOME"
i=0
# (the agent's first turn follows at once: its transcript lines come after)
until jq -se 'any(.[]; .type == "verdict")' "$S" >/dev/null 2>&1; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "no verdict written by the time the screen said done"
	sleep 0.1
done
keys q
expect_sane_exit
head -n 1 "$S" | jq -e '.options.command == "argus" and .options.pairs == 2' >/dev/null ||
	fail "header lacks the options"
[ "$(jq -s '[.[] | select(.type == "window")] | length' "$S")" -eq 4 ] || fail "expected 4 windows"
jq -se '[.[] | select(.type == "transcript" and .who == "agent")] | length > 2' "$S" >/dev/null ||
	fail "no decisions in the transcript"
"$ARGUS" replay "$S" --batch --json >"$TMP/r.json" || fail "the session does not replay"
# the load's path is the verdict, or (where other processes' work on a busy
# machine also differs between the windows and the increase spreads) one
# of its branches carrying a quarter of the increase at least
jq -e '(.verdict.path | index("do_anonymous_page")) or
	([.verdict.branches // [] | .[] | select(.share >= 0.25 and (.path | index("do_anonymous_page")))] | length > 0)' "$TMP/r.json" >/dev/null ||
	fail "the recorded verdict misses do_anonymous_page: $(jq -c .verdict.path "$TMP/r.json")"
echo "ok: $S"
