#!/bin/sh
# Live (root).  `argus -p PID` with no saved reference stays live and says
# how to calibrate; at 80x24 the note is whole (issue 24 item 9: it was cut
# to "no saved reference: 'argus reference sa…"), at 160x45 too.
. "$(dirname "$0")/../lib.sh"
need_root
. "$(dirname "$0")/tmux.inc"
mkdir -p "$TMP/state"
sleep 300 &
P=$!
at_exit "kill $P 2>/dev/null"
for size in "80 24" "160 45"; do
	set -- $size
	start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color XDG_STATE_HOME="$TMP/state" -- -p "$P"
	wait_for "no reference"
	screen | head -n 1 | grep -qF "no reference: --pause, or reference save" ||
		{ screen | head -n 1; fail "${1}x$2: the note is cut"; }
	keys q
	expect_sane_exit
done
echo ok
