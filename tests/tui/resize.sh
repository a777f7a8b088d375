#!/bin/sh
# Resize 80x24 -> 60x20 -> 30x8 (too small) -> 80x24; the tree comes back.
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
echo ok
