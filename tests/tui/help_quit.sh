#!/bin/sh
# The ? overlay lists the keys from the key table; q, Ctrl-C and SIGTERM all
# leave the terminal sane (icanon, echo) and exit 0.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"

start 80 24 LANG=C.UTF-8 TERM=xterm-256color -- --static "$FOLDED_LIVE"
wait_for "samples"
keys '?'
wait_for "expand or collapse the selected node"
for line in "$("$ARGUS" --keys | sed -n 3p | sed 's/^  *//; s/  */ /g')"; do
	screen | sed 's/  */ /g' | grep -qF "$line" || fail "help lacks '$line'"
done
keys Escape
wait_gone "expand or collapse the selected node"
keys q
expect_sane_exit
tm kill-server

start 80 24 LANG=C.UTF-8 TERM=xterm-256color -- --static "$FOLDED_LIVE"
wait_for "samples"
keys C-c
expect_sane_exit
tm kill-server

start 80 24 LANG=C.UTF-8 TERM=xterm-256color -- --static "$FOLDED_LIVE"
wait_for "samples"
pid=$(pgrep -f -- "--static $FOLDED_LIVE" | head -n 1)
[ -n "$pid" ] || fail "cannot find argus's pid"
kill -TERM "$pid"
expect_sane_exit
echo ok
