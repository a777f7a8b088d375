#!/bin/sh
# Colors from the theme on a 256-color terminal; none with NO_COLOR (but the
# selection stays visible as reverse video); 8 colors on TERM=xterm.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"

start 80 24 LANG=C.UTF-8 TERM=xterm-256color -- --static "$FOLDED_CAL"
wait_for "load/s"
screen_esc | grep -q '38;5;' || { screen_esc | head -5 | od -c | head; fail "no 256-color escapes"; }
keys q
expect_sane_exit
tm kill-server

start 80 24 LANG=C.UTF-8 TERM=xterm-256color NO_COLOR=1 -- --static "$FOLDED_CAL"
wait_for "load/s"
esc=$(screen_esc)
echo "$esc" | grep -Eq '\[(3[0-7]|38;5;[0-9]+|4[0-7]|48;5;[0-9]+)m' && fail "colors with NO_COLOR set"
echo "$esc" | grep -q '\[7m' || echo "$esc" | grep -q ';7m' || fail "no reverse video for the selection"
echo "$esc" | grep -q '\[1m' || echo "$esc" | grep -q ';1m' || fail "no bold for increases in mono"
keys q
expect_sane_exit
tm kill-server

start 80 24 LANG=C.UTF-8 TERM=xterm -- --static "$FOLDED_CAL"
wait_for "load/s"
screen_esc | grep -q '38;5;' && fail "256-color escapes on an 8-color terminal"
keys q
expect_sane_exit
echo ok
