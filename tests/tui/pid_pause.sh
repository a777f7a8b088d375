#!/bin/sh
# Live (root).  `argus -p PID --pause` at 80x24 and 160x45 (issue 24 item
# 6): PID is a shell waiting for its page-fault loop, both started before
# argus.  The header names the pause ("-p --pause"); in a reference window
# the shell and its child are both stopped ('T' in /proc/PID/stat: the
# whole tree is paused, not the PID alone); q pressed then ends argus
# cleanly and leaves both running (an attached process is resumed, never
# ended).  States are waited for, not timed.
. "$(dirname "$0")/../lib.sh"
need_root
. "$(dirname "$0")/tmux.inc"
need_scenario PF pagefault

state() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1; }
for size in "80 24" "160 45"; do
	set -- $size
	sh -c "'$PF' --seconds 300; :" &
	P=$!
	at_exit "kill -CONT $P 2>/dev/null; pkill -CONT -P $P 2>/dev/null; pkill -P $P 2>/dev/null; kill $P 2>/dev/null"
	K=""
	i=0
	while [ -z "$K" ]; do
		K=$(pgrep -P "$P" | head -n 1)
		sleep 0.05; i=$((i + 1))
		[ $i -lt 400 ] || fail "the shell did not start its child"
	done
	# long windows: q lands in the reference window it was seen in
	start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color -- --no-session -p "$P" --pause \
		--fixed --pairs 6 --window 3
	wait_for "argus -p --pause"
	i=0
	end=$(( $(date +%s) + 60 ))
	until [ "$(state "$P")" = T ] && [ "$(state "$K")" = T ]; do
		[ "$(date +%s)" -le "$end" ] || { screen; fail "$size: shell $(state "$P"), child $(state "$K"): never both stopped"; }
		sleep 0.02
	done
	echo "$size: in a reference window: shell $(state "$P"), child $(state "$K")"
	keys q
	expect_sane_exit
	s=$(state "$P") c=$(state "$K")
	echo "$size: after q: shell '$s', child '$c'"
	[ -n "$s" ] && [ -n "$c" ] || fail "$size: q ended the attached tree (shell '$s', child '$c')"
	[ "$s" != T ] && [ "$c" != T ] || fail "$size: q left the tree stopped (shell $s, child $c)"
	kill "$K" "$P" 2>/dev/null
	wait "$P" 2>/dev/null
done
echo ok
