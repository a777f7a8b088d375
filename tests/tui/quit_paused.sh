#!/bin/sh
# Live (root).  q pressed while the load is paused for a reference window:
# argus resumes the load, ends it (it started it), restores the terminal and
# leaves no program loaded and no cgroup behind.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd bpftool
. "$(dirname "$0")/tmux.inc"
need_scenario PF pagefault

start 120 30 LANG=C.UTF-8 TERM=xterm-256color -- --no-session --pairs 4 --window 3 -- "$PF" --seconds 120
# the first reference window runs before the load starts; wait for the second
wait_for "loaded window"
i=0
until screen | grep -q "load paused"; do
	sleep 0.1; i=$((i + 1))
	[ $i -lt 100 ] || { screen; fail "never saw the load paused"; }
done
pf_pid=$(pgrep -f -- "^$PF --seconds 120" | head -n 1)
[ -n "$pf_pid" ] || fail "cannot find the load"
state=$(awk '{print $3}' /proc/"$pf_pid"/stat)
apid=$(pgrep -f -- "$ARGUS --no-session --pairs 4" | head -n 1)
ours=$(prog_ids "$apid")
cg=$(ls -d /sys/fs/cgroup/unified/argus-"$apid"-* /sys/fs/cgroup/argus-"$apid"-* 2>/dev/null | head -n 1)
echo "load $pf_pid state $state (frozen or stopped while paused), argus $apid, cgroup ${cg:-none}"
keys q
expect_sane_exit
i=0
while kill -0 "$pf_pid" 2>/dev/null; do
	st=$(awk '{print $3}' /proc/"$pf_pid"/stat 2>/dev/null)
	sleep 0.1; i=$((i + 1))
	[ $i -lt 50 ] || fail "the load (state $st) is still there after q"
done
for id in $ours; do
	j=0
	while bpftool prog show id "$id" >/dev/null 2>&1; do
		sleep 0.1; j=$((j + 1))
		[ $j -lt 50 ] || fail "BPF program $id still loaded after q"
	done
done
[ -z "$cg" ] || [ ! -d "$cg" ] || fail "cgroup $cg left behind"
echo ok
