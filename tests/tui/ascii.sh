#!/bin/sh
# LANG=C draws ASCII (|- `- +); --ascii forces it in UTF-8; UTF-8 draws ├─ └─.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"

start 80 24 LANG=C LC_ALL=C TERM=vt100 -- --static "$FOLDED_LIVE"
wait_for "samples"
screen | grep -qF '`-+ ' || fail "no ASCII elbow for the last child"
screen | grep -qF '|-+ mm' || fail "no ASCII tee before mm"
screen | grep -q '[├└│▸▾…]' && fail "UTF-8 glyphs in a C locale"
keys q
expect_sane_exit
tm kill-server

start 80 24 LANG=C.UTF-8 TERM=xterm-256color -- --ascii --static "$FOLDED_LIVE"
wait_for "samples"
screen | grep -qF '|-+ mm' || fail "--ascii did not force ASCII"
keys q
expect_sane_exit
tm kill-server

start 80 24 LANG=C.UTF-8 TERM=xterm-256color -- --static "$FOLDED_LIVE"
wait_for "samples"
screen | grep -qF '├─▸ mm' || fail "no UTF-8 tee before mm"
screen | grep -qF '└─▸' || fail "no UTF-8 elbow"
keys q
expect_sane_exit
echo ok
