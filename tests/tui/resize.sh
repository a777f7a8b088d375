#!/bin/sh
# Resize 80x24 -> 60x20 -> 30x8 (too small) -> 80x24; the tree comes back;
# q leaves the terminal clean, also under TERM=vt100 (no alternate screen).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"

start 80 24 LANG=C.UTF-8 TERM=xterm-256color -- --static "$FOLDED_LIVE"
wait_for "samples"
keys / m m Enter Right
wait_for "asm_exc_page_fault"
tm resize-window -t t -x 60 -y 20
wait_for "dropped 0"
screen | head -n 1 | grep -q 'argus' || fail "no header at 60x20"
[ "$(screen | wc -l)" -le 20 ] || fail "more lines than the pane"
screen | grep -qF 'asm_exc_page_fault' || fail "expanded state lost on resize"
tm resize-window -t t -x 30 -y 8
wait_for "terminal too small (30x8)"
screen | grep -qF 'need at least 40x10' || fail "no minimum size in the message"
screen | grep -qF 'samples' && fail "tree drawn into a too small terminal"
tm resize-window -t t -x 80 -y 24
wait_for "samples"
wait_gone "terminal too small"
screen | grep -qF 'asm_exc_page_fault' || fail "expanded state lost after too small"
keys q
expect_sane_exit
# q after a resize leaves no tree row above the shell (issue 24 item 9)
screen | grep -qF 'asm_exc_page_fault' && { screen; fail "tree rows left after q"; }

# a terminal without an alternate screen (vt100: no smcup), resized, then
# q: the screen is cleared, and the exit line is clean (the status bar
# under "ARGUS-EXIT=0" was left there)
for sz in "160 45" "60 20"; do
	start 80 24 LANG=C TERM=vt100 -- --static "$FOLDED_LIVE"
	wait_for "samples"
	set -- $sz
	tm resize-window -t t -x "$1" -y "$2"
	wait_for "dropped 0"
	keys q
	expect_sane_exit
	screen | grep -q '^ARGUS-EXIT=0$' || { screen; fail "vt100 ${1}x$2: the exit line is dirty"; }
	screen | grep -qF 'samples' && { screen; fail "vt100 ${1}x$2: the screen is left with argus's rows"; }
done
echo ok
