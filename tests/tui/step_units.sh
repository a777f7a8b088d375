#!/bin/sh
# A step's events in their own unit (issue 24 item 4), at 80x24 and
# 160x45: replayed to its end, the session with a tracepoint step shows the
# step's node "[tp] exceptions:page_fault_user" tagged with its unit
# ("[events/s]") and no % of the samples; x on it speaks of events, not of
# "ms of CPU per second"; the icicle gives it no width beside the
# calibration's frames (its 490k events/s against mm's ~1.4k samples/s
# took all of mm's width).  No privileges needed.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"
SRC="$ROOT/tests/data/session-pagefault-step.jsonl"
[ -f "$SRC" ] || skip "no $SRC"
grep -q '"type":"step_result"' "$SRC" || fail "the fixture has no step_result"

for size in "80 24" "160 45"; do
	set -- $size
	start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color -- replay "$SRC"
	wait_for "replay event"
	keys '}'
	wait_for "[tp] exc"
	# every row of a step node carries the unit
	rows=$(screen | grep -F "[tp] exc")
	echo "$rows"
	echo "$rows" | grep -vqF "[events" && fail "$size: a step row without its unit: $rows"
	# the icicle of the whole tree: the step's node takes no width
	keys g i
	wait_for "icicle of all"
	screen | grep -qF "[tp]" && { screen; fail "$size: the icicle draws the step's node"; }
	keys Escape
	wait_gone "icicle of"
	# x on the step's node: events, no CPU time
	keys / p a g e _ f a u l t _ u s e r Enter
	keys x
	wait_for "A step counted"
	screen | grep -qF "ms of CPU" && { screen; fail "$size: x on a step node speaks of CPU time"; }
	screen | grep -qF "events" || fail "$size: x on a step node does not name its unit"
	keys Escape
	keys q
	expect_sane_exit
done
echo ok
