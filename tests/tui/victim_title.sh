#!/bin/sh
# Live (root).  Issue 24 item 9: `argus --victim V --load L` titles the
# screen with what is diagnosed, the victim, and the load that is paused in
# the reference: "victim: starved  (load paused in ref: spinner)" at 160x45;
# at 80x24, short of room, the aside goes whole and the victim stays
# ("victim: starved · calibrating"), never a cut joining the two names.  It
# said only "argus --load …/spinner".  At 80x24 the status bar's load state
# is whole or absent, never "load runnin" (the screen's last cell is never
# written).
. "$(dirname "$0")/../lib.sh"
need_root
. "$(dirname "$0")/tmux.inc"
need_scenario V starved
need_scenario L spinner
mkdir -p "$TMP/state"
# title_ok W H: the header names the victim whole; at 160 columns the
# load's aside too; narrower, the aside whole or not at all
title_ok() {
	head=$(screen | head -n 1)
	echo "$head" | grep -qF -- "--load" && fail "${1}x$2: the title names the load as the run: $head"
	if [ "$1" -ge 160 ]; then
		echo "$head" | grep -qF "victim: starved  (load paused in ref: spinner) · " ||
			fail "${1}x$2: the title lacks the victim or the load: $head"
	else
		echo "$head" | grep -Eq '^ victim: starved(  \(load paused in ref: spinner\))? · (calibrating|calibration done)' ||
			fail "${1}x$2: the title is cut or joined: $head"
	fi
	echo "$head"
}
for size in "80 24" "160 45"; do
	set -- $size
	start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color XDG_STATE_HOME="$TMP/state" -- \
		--no-session --victim "$V" --load "$L"
	wait_for "victim: starved"
	title_ok "$1" "$2"
	# the status bar, looked at while the windows run and after: a load
	# state is whole
	i=0
	while [ $i -lt 30 ]; do
		last=$(screen | tail -n 1)
		if echo "$last" | grep -Eq 'load [a-z]+ *$'; then
			echo "$last" | grep -Eq 'load (running|paused|gone|exited \([0-9]+\)) *$' ||
				fail "${1}x$2: the status bar cuts the load's state: $last"
		fi
		echo "$last" | grep -Eq 'load (runnin|pause|paus|runni)$' &&
			fail "${1}x$2: the status bar cuts the load's state: $last"
		sleep 0.3
		i=$((i + 1))
	done
	wait_long "calibration done" 60
	title_ok "$1" "$2"
	keys q
	expect_sane_exit
done
echo ok
