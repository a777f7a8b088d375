#!/bin/sh
# Live (root).  `argus -p PID` follows the children PID has already (issue
# 24 item 6): PID is a shell waiting for its page-fault loop, started before
# argus; the live tree of PID shows the loop's samples under mm (the sampler
# followed forks only from its start, and showed 0 samples).  80x24 and
# 160x45.  The tree and the samples are waited for, not timed.
. "$(dirname "$0")/../lib.sh"
need_root
. "$(dirname "$0")/tmux.inc"
need_scenario PF pagefault
mkdir -p "$TMP/state"
cp "$PF" "$TMP/pidkids_pf"
sh -c "'$TMP/pidkids_pf' --seconds 300; :" &
P=$!
at_exit "pkill -P $P 2>/dev/null; kill $P 2>/dev/null"
for size in "80 24" "160 45"; do
	set -- $size
	start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color XDG_STATE_HOME="$TMP/state" -- -p "$P"
	wait_for "no reference"
	wait_long "▸ mm" 30
	keys q
	expect_sane_exit
done
echo ok
