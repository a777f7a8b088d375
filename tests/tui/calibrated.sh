#!/bin/sh
# Reference vs loaded: columns ref/s load/s Δ Δ%, the header summary, the
# verdict path, new/gone markers, ] to the next significant node, y popup.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"

# 40 rows: the verdict's branches (the munmap path beside the fault) are
# expanded too, and the vanished node sits below them
start 80 40 LANG=C.UTF-8 TERM=xterm-256color -- --static "$FOLDED_CAL"
wait_for "load/s"
screen | head -n 1 | grep -q 'mm +' || fail "no subsystem summary in the header"
# what the rate columns count, said in their heading (issue 24 item 9)
screen | grep -F 'load/s' | grep -qF '(rates: samples/s)' || fail "the column heading does not say the unit"
wait_for "◆ do_anonymous_page"
screen | grep -qF '[new]' || fail "no [new] marker"
screen | grep -qF '[gone]' || fail "no [gone] marker"
# the largest |delta| sorts first under the root
screen | sed -n 4p | grep -q 'mm' || fail "mm not first (sort by |delta|)"
keys ']' y
wait_for "why is this marked"
screen | grep -qF 'significant increase' || fail "popup lacks the decision"
screen | grep -qF 'pairs agree' || fail "popup lacks the pair consistency"
keys Escape
wait_gone "why is this marked"
keys q
expect_sane_exit
echo ok
