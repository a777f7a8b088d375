#!/bin/sh
# Live (root): the agent pane on a real scenario load (build/scenarios/pagefault).
#  1. 120x60 (the transcript keeps the veto in view), UTF-8: after calibration a proposal appears; v with a reason ->
#     nothing is loaded (the status bar counts no probe: the calibration's
#     sampler detached when its windows were done, AND argus holds no BPF
#     program, from /proc/PID/fdinfo); the agent looks again.
#     ':' focus do_anonymous_page -> the descent restarts there (transcript);
#     a second ':' recalls it with Up (history in $XDG_STATE_HOME, 0600).
#     T switches the theme, ? lists the agent keys, Tab/z zoom the pane,
#     resize to 60x20 and back.
#  2. 100x60 (stacked), LANG=C, TERM=screen: ASCII only; e -> duration_s 999 -> refused with its limit (0.001..30)
#     shows by the field; fixed to 5 -> a -> the step runs and its results
#     appear in the tree and the transcript says where.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd bpftool
. "$(dirname "$0")/tmux.inc"
need_scenario PF pagefault

argus_pid() { pgrep -o -f -- "$ARGUS --load $PF --seconds 120"; } # -o: the oldest, not its load guard (same command line)

STATE="$TMP/state"
# ---- 1: propose, veto, talk ----------------------------------------------------------
start_proposal '' "proposal · step 1 (run 1 of at most 5)" 30 120 60 LANG=C.UTF-8 TERM=xterm-256color \
	XDG_STATE_HOME="$STATE" -- --load "$PF --seconds 120" --pairs 3
screen | grep -q 'a accept  e edit  v veto  r another  u undo' || fail "no key hints on screen"
screen | grep -q 'waiting for you' || fail "the status bar does not say it waits"
screen | tail -n 1 | grep -q 'probe' && fail "the status bar counts a probe at decision time"
apid=$(argus_pid)
[ -n "$apid" ] || fail "cannot find argus's pid"
before=$(prog_ids "$apid")
[ -z "$before" ] || fail "argus holds BPF programs at decision time (the calibration is done): $before"
keys v
wait_for "veto reason"
keys "not now, look at the allocator" Enter
wait_for "vetoed: not now, look at the allocator"
wait_for "nothing was loaded"
wait_for "second opinion"     # a veto brings the next-best step, not the verdict again
screen | tail -n 1 | grep -q 'probe' && fail "after a veto a probe is counted"
after=$(prog_ids "$apid")
[ "$before" = "$after" ] || fail "after a veto argus holds other BPF programs: '$before' -> '$after'"

keys :
wait_for "talk to the agent>"
keys "focus do_anonymous_page" Enter
wait_for "you> focus do_anonymous_page"
wait_for "agent> focus on do_anonymous_page"
wait_for "the descent restarts there"
hist="$STATE/argus/history"
[ -f "$hist" ] || fail "no history file at $hist"
[ "$(stat -c %a "$hist")" = 600 ] || fail "the history file is not 0600"
keys :
wait_for "talk to the agent>"
keys Up
wait_for "talk to the agent> focus do_anonymous_page"
keys C-c
wait_gone "talk to the agent>"

keys T
wait_for "theme light"
keys '?'
wait_for "accept the proposal"
screen | grep -q 'talk (focus NAME' || fail "the help overlay lacks ':'"
keys q
wait_gone "accept the proposal"
keys Tab
wait_for "focus: agent pane"
keys z
wait_gone "ref/s"                      # the tree is hidden, the agent pane alone
keys z
wait_for "ref/s"
tm resize-window -t t -x 60 -y 20
i=0
until [ "$(screen | wc -l)" -le 20 ] && screen | grep -q "agent (heuristic)"; do
	sleep 0.1; i=$((i + 1))
	[ $i -lt 50 ] || { screen; fail "no agent pane at 60x20"; }
done
screen | grep -q 'ref/s' || fail "no tree at 60x20"
tm resize-window -t t -x 120 -y 60
wait_for "ref/s"
keys q
expect_sane_exit
for id in $before; do
	bpftool prog show id "$id" >/dev/null 2>&1 && fail "BPF program $id still loaded after q"
done

# ---- 2: edit, fix, accept, results -----------------------------------------------------
start_proposal '' "proposal | step 1 (run 1 of at most 5)" 30 100 60 LANG=C TERM=screen \
	XDG_STATE_HOME="$STATE" -- --load "$PF --seconds 120" --pairs 3
screen | LC_ALL=C grep -q '[^ -~]' && { screen; fail "non-ASCII output with LANG=C"; }
keys e
wait_for "editing | step 1"
for _ in 1 2 3 4 5 6 7 8 9; do keys j; done
keys Enter
wait_for "duration_s> 5"
keys BSpace 999 Enter
wait_for "^ duration_s:"
screen | grep -q "between 0.001 and 30" || { screen; fail "the field error does not say the real limit"; }
keys Enter
wait_for "duration_s> 5"   # refused at entry (core/base/num.c): the field keeps 5
keys BSpace 5 Enter
wait_gone "^ duration_s:"
accept
wait_for "accepted step 1"
wait_long "result> step 1" 60
wait_long "results under" 10
# tree rows (ASCII branches, no '>' of the transcript's paths)
in_tree() { screen | grep -v '>' | grep -Eq '(\|-|`-).*\[tp\] exceptions:page_fault_user'; }
in_tree || { screen | head -32; fail "the step's results are not in the tree"; }
keys u
wait_for "undo step 1: its results dropped"
i=0
while in_tree; do
	sleep 0.1; i=$((i + 1))
	[ $i -lt 50 ] || { screen; fail "the undone step's results stay in the tree"; }
done
keys q
expect_sane_exit
echo ok
