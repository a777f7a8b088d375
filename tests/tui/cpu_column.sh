#!/bin/sh
# %CPU in the calibrated tree (issue 24 item 9): in cpu-sampling mode, at a
# known frequency (diff --freq, a replay's header), the loaded side's share of
# one CPU after load/s when the pane is wide (160x45); at 80x24 the column is
# the first to go and the others are as before, no heading cut mid-word;
# without a frequency there is nothing to divide by, so no %CPU.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"
D="$ROOT/tests/data"

start 160 45 LANG=C.UTF-8 TERM=xterm-256color -- diff --freq 999 "$D/ref.folded" "$D/load.folded"
wait_for "load/s"
wait_for "◆ do_anonymous_page"
screen | grep -F 'load/s' | grep -qE 'load/s +%CPU +Δ/s' || fail "160x45: no %CPU column after load/s"
# a row's %CPU is its load/s over 999 Hz, in percent: the root row's numbers
# (1760 samples/s at 999 Hz: 176.2% of a CPU)
screen | grep -F '◆ all' | grep -qE ' 1760 +176\.2 ' || fail "the root's %CPU is not load/s / 999 Hz"
keys '?'
wait_for 'j/k scroll'
keys j j j j j j j j j j j j j j j
wait_for "%CPU: load/s as a share of one CPU"
keys Escape
wait_gone "%CPU: load/s as a share"
keys q
expect_sane_exit
tm kill-server

start 80 24 LANG=C.UTF-8 TERM=xterm-256color -- diff --freq 999 "$D/ref.folded" "$D/load.folded"
wait_for "load/s"
head=$(screen | grep -F 'load/s' | head -n 1)
echo "$head" | grep -qF '%CPU' && fail "80x24: %CPU kept where it squeezes the name: $head"
echo "$head" | grep -qE 'ref/s +load/s +Δ/s +Δ%' || fail "80x24: the columns are not those of before: $head"
keys q
expect_sane_exit
tm kill-server

# no frequency: samples/s are no share of a CPU
start 160 45 LANG=C.UTF-8 TERM=xterm-256color -- diff "$D/ref.folded" "$D/load.folded"
wait_for "load/s"
screen | grep -F 'load/s' | grep -qF '%CPU' && fail "%CPU without a frequency"
keys q
expect_sane_exit
echo ok
