#!/bin/sh
# Live (root): the agent pane writes its steps to the session.  On the
# page-fault scenario (--pairs 3): v with a reason (then `: stop`), a (accept)
# a fresh run's proposal, wait for its result, q.  The session file must hold a proposal,
# a "veto" decision by a human with the reason, an "accept" (or "edit")
# decision, a step_result, the step's windows (step >= 1), human and agent
# transcript lines and a verdict; `argus replay --batch --json` lists them,
# and the interactive replay shows the transcript in the agent pane.
# --fixed: this test is about the session, not about when measuring stops;
# with --pairs 2/3 as a cap the anytime-valid test of sequential stopping has
# less power than the fixed-sample one, and a loaded machine then gives "no
# bottleneck found" (tests/live/seqstop.sh tests sequential stopping).
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd jq
. "$(dirname "$0")/tmux.inc"
need_scenario PF pagefault


S1="$TMP/veto.jsonl" S="$TMP/accept.jsonl"
REASON="not now, look again"
# ---- 1: veto with a reason (the heuristic does not propose a vetoed rule
# again, so the accept is a second run) ----------------------------------------
start_proposal "$S1" "proposal · step 1 (run 1 of at most 5)" 30 120 60 LANG=C.UTF-8 TERM=xterm-256color \
	XDG_STATE_HOME="$TMP/state" -- --load "$PF --seconds 120" --pairs 3 --fixed --session "$S1"
keys v
wait_for "veto reason"
keys "$REASON" Enter
wait_for "vetoed: $REASON"
# a veto brings the heuristic's second opinion; "stop" gives the verdict
wait_for "second opinion"
keys :
wait_for "talk to the agent"
keys stop Enter
wait_for "verdict>"
keys q
expect_sane_exit
# ---- 2: accept, the step runs ------------------------------------------------------
start_proposal "$S" "proposal · step 1 (run 1 of at most 5)" 30 120 60 LANG=C.UTF-8 TERM=xterm-256color \
	XDG_STATE_HOME="$TMP/state" -- --load "$PF --seconds 120" --pairs 3 --fixed --session "$S"
accept
wait_for "accepted step 1"
wait_long "result> step 1" 60
keys q
expect_sane_exit

for f in "$S1" "$S"; do [ -s "$f" ] || fail "no session file $f"; done
has() { jq -s -e "$2" "$1" >/dev/null; }
has "$S1" 'any(.[]; .type=="proposal" and .step==1 and .spec.kind != null and (.lines | length) > 0)' ||
	fail "session 1 lacks the proposal"
jq -s -e --arg r "$REASON" 'any(.[]; .type=="decision" and .step==1 and .action=="veto" and
	.by=="human" and .reason==$r and .original.kind != null)' "$S1" >/dev/null ||
	fail "session 1 lacks the veto with its reason and the original spec"
has "$S1" 'any(.[]; .type=="step_result")' && fail "session 1: a vetoed step has a result"
jq -s -e --arg r "$REASON" 'any(.[]; .type=="transcript" and .who=="human" and (.text | contains($r)))' \
	"$S1" >/dev/null || fail "session 1: the veto is not in the transcript"
has "$S1" 'any(.[]; .type=="transcript" and .who=="agent")' || fail "session 1: no agent lines"
has "$S1" 'any(.[]; .type=="verdict")' || fail "session 1: no verdict"

has "$S" 'any(.[]; .type=="proposal" and .step==1 and .spec.kind != null)' ||
	fail "session 2 lacks the proposal"
has "$S" 'any(.[]; .type=="decision" and .step==1 and .by=="human" and
	((.action=="accept" and .original.kind != null) or
	 (.action=="edit" and .original.kind != null and .edited.kind != null)))' ||
	fail "session 2 lacks the accept decision"
has "$S" 'any(.[]; .type=="step_result" and .step==1 and .status!="error" and (.summary | length) > 0 and .result.spec.kind != null)' ||
	{ jq -c 'select(.type=="step_result") | del(.result.stacks)' "$S" | cut -c1-600; fail "session 2 lacks step 1's result"; }
# the step's windows: ref, load, ref, ... as measured, every loaded one with
# events (the page-fault loop runs; the reference, scoped to the paused load,
# may rightly count none).  All the pairs it measured when it ran to the end;
# a step stopped for its cost (status "detached") passes only when the result
# says so and still carries the windows it measured, a loaded one at least
# (a fast machine faults fast enough to pass the event budget: issue 21).
st=$(jq -rs '[.[] | select(.type=="step_result" and .step==1)][0] |
	.status + " " + (.result.state // "") + " " +
	((.result.stopping.pairs // .result.pairs // 0) | tostring)' "$S")
nload=$(jq -s '[.[] | select(.type=="window" and .step==1 and .cond=="load")] | length' "$S")
echo "step 1: status, state, pairs: $st; loaded windows: $nload"
has "$S" '[.[] | select(.type=="window" and .step==1)] as $w |
	[$w[] | .cond] == [range($w | length) | if . % 2 == 0 then "ref" else "load" end] and
	all($w[] | select(.cond=="load"); .samples > 0)' ||
	{ jq -c 'select(.type=="window" and .step==1) | del(.stacks)' "$S"; fail "session 2 lacks step 1's windows"; }
case $st in
"ok done "*)
	nwin=$(jq -s '[.[] | select(.type=="window" and .step==1)] | length' "$S")
	[ "$nload" -ge 1 ] && [ "$nload" -eq "${st##* }" ] && [ "$nwin" -eq $((2 * nload)) ] ||
		fail "session 2: step 1 measured ${st##* } pairs but wrote $nwin windows ($nload loaded)" ;;
"detached over budget "*)
	[ "$nload" -ge 1 ] || fail "session 2: step 1 stopped for its cost with no loaded window kept"
	has "$S" 'any(.[]; .type=="step_result" and .step==1 and (.result.reason | test("over budget")))' ||
		fail "session 2: step 1 detached without saying it was over budget"
	echo "note: step 1 was stopped for its cost after $nload loaded window(s); they are kept" ;;
*) fail "session 2: step 1 ended '$st' (neither done nor stopped for its cost)" ;;
esac
has "$S" 'any(.[]; .type=="verdict")' || fail "session 2: no verdict"
order=$(jq -r 'select(.type=="proposal" or .type=="decision" or .type=="step_result") |
	.type + (if .action then ":" + .action else "" end)' "$S" | head -n 3 | tr '\n' ' ')
[ "$order" = "proposal decision:accept step_result " ] ||
	[ "$order" = "proposal decision:edit step_result " ] || fail "events out of order: $order"

"$ARGUS" replay --batch --json "$S1" >"$TMP/r1.json" || fail "argus replay --batch --json failed"
jq -e --arg r "$REASON" 'any(.events[]; .type=="decision" and (.text | contains("vetoed")) and (.text | contains($r)))' \
	"$TMP/r1.json" >/dev/null || fail "replay's veto text lacks the reason"
"$ARGUS" replay --batch --json "$S" >"$TMP/r.json" || fail "argus replay --batch --json failed"
for t in proposal decision step_result transcript verdict; do
	jq -e --arg t "$t" 'any(.events[]; .type==$t)' "$TMP/r.json" >/dev/null ||
		fail "replay does not list a $t event"
done

# the interactive replay: the transcript in the agent pane up to the event
# (tall: the veto is some 55 lines before the transcript's end, the final
# descent's lines after it)
start 120 70 LANG=C.UTF-8 TERM=xterm-256color -- replay "$S1"
wait_for "agent (replay)"
keys '}'
wait_for "vetoed: $REASON"
keys '{'
wait_gone "vetoed: $REASON"
keys '}'
wait_for "vetoed: $REASON"
keys q
expect_sane_exit
echo "ok: pane_session"
