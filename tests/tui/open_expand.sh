#!/bin/sh
# Open the tree over a folded fixture, expand nodes, search, collapse all.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"

start 80 24 LANG=C.UTF-8 TERM=xterm-256color -- --static "$FOLDED_LIVE"
wait_for "samples"
wait_for "mm"
screen | grep -q '▾ all' || fail "root not shown expanded"
screen | grep -qF 'asm_exc_page_fault' && fail "mm expanded before asked"
screen | grep -qF 'nodes below 0.1% hidden' || fail "no hidden-node line"
# select mm by search, expand it
keys / m m Enter
keys Right
wait_for "asm_exc_page_fault"
screen | grep -q '├─▾ mm' || fail "mm not marked expanded"
# incremental search opens the path down to the match
keys / a n o n
wait_for "/anon"
wait_for "do_anonymous_page"
keys Enter
wait_gone "/anon"
screen | grep -qF 'handle_mm_fault' || fail "path to the match not expanded"
# n goes to the next match (none other: stays), N likewise; no crash
keys n N
# collapse all
keys -
wait_gone "do_anonymous_page"
# expand all shows the deepest frame
keys +
keys G
wait_for "pick_next_task_fair"
keys q
expect_sane_exit
echo ok
