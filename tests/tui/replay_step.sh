#!/bin/sh
# argus replay over a session with an instrumentation step (recorded with
# `diagnose --auto` on the page-fault load): the tree is the one of each
# moment — before the step's result, no step node; at the end, the
# tracepoint's event node with its loaded rate, under the page-fault path,
# and the agent pane has the step's result.  No privileges needed.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"
SRC="$ROOT/tests/data/session-pagefault-step.jsonl"
[ -f "$SRC" ] || skip "no $SRC"
need_cmd jq
grep -q '"type":"step_result"' "$SRC" || fail "the fixture has no step_result"

start 140 50 LANG=C.UTF-8 TERM=xterm-256color -- replay "$SRC"
wait_for "replay event"
keys '}'
wait_for "[tp] exceptions:page_fault_user"
row=$(screen | grep -F "[tp] exceptions:page_fault_user" | head -n 1)
echo "$row"
echo "$row" | grep -qE 'k +\+[0-9.]+k' || fail "the step node has no loaded event rate: $row"
screen | grep -qF "exc_page_fault" || fail "the page-fault path is not shown around the step node"
# back to the start: the step had not run, its node must be gone
keys '{'
wait_gone "[tp] exceptions:page_fault_user"
# forward to the calibration verdict only (before the proposal): still none
i=0
while [ $i -lt 60 ]; do
	keys n
	sleep 0.05
	screen | grep -q "replay event .*: proposal" && break
	i=$((i + 1))
done
screen | grep -q "replay event .*: proposal" || fail "never reached the proposal"
screen | grep -qF "[tp] exceptions:page_fault_user" && fail "the step node shows before its result"
keys q
expect_sane_exit
echo ok
