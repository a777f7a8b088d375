#!/bin/sh
# When the terminal goes away, argus ends.  argus runs in a tmux pane in a
# session of its own (setsid: no SIGHUP reaches it when the terminal goes,
# as under su or when an ssh connection drops), and the pane is killed:
#  1. `argus --load` in the middle of the windows: within a few seconds argus
#     is gone, none of its BPF programs is loaded, no process of the load is
#     left (running or stopped), no argus cgroup stays, and the session file
#     replays and says the terminal hung up;
#  2. `argus replay`: gone within a few seconds (it spun at 100% CPU).
# A hung-up argus that keeps running fails here: the waits are generous
# (10 s) and say what was left.  (setsid -w: the pane's shell is a process
# group leader, so plain setsid would fork and return at once.)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"
need_root
need_cmd setsid
need_cmd jq
[ -x "$BUILD/scenarios/pagefault" ] || fail "no scenario loads in $BUILD/scenarios; run make"
cp "$BUILD/scenarios/pagefault" "$TMP/hupload"

prog_ids() { cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '/^prog_id:/ { print $2 }' | sort -u | tr '\n' ' '; }
load_pids() {
	for d in /proc/[0-9]*; do
		{ tr "\0" " " <"$d/cmdline"; } 2>/dev/null | grep -q "^$TMP/hupload" && echo "${d#/proc/}"
	done
}
argus_pid() { # the argus whose command line holds $1: the oldest (its
	# load guard, a child forked before it loads anything, has the same
	# command line and, once PIDs wrap, may come first in /proc's order)
	pgrep -o -f -- "^$ARGUS .*$1"
}
gone_within() { # pid secs
	i=0
	while [ -d "/proc/$1" ] && [ $i -lt $(($2 * 10)) ]; do sleep 0.1; i=$((i + 1)); done
	[ ! -d "/proc/$1" ]
}

# 1: a live run
cat >"$TMP/live.sh" <<EOS
setsid -w $ARGUS --load $TMP/hupload --pairs 40 --window 0.5 --session $TMP/hup.jsonl
EOS
NSOCK=$((NSOCK + 1)); SOCK="$TMP/tmux.$NSOCK.sock"
tm -f /dev/null new-session -d -x 120 -y 30 -s t "env LANG=C.UTF-8 TERM=xterm-256color sh $TMP/live.sh"
wait_for "window 4"
apid=$(argus_pid "$TMP/hup.jsonl")
[ -n "$apid" ] || fail "no argus process for the live run"
ids=$(prog_ids "$apid")
[ -n "$ids" ] || fail "argus (PID $apid) holds no BPF program while it runs: nothing to check"
[ -n "$(load_pids)" ] || fail "no load process while argus runs"
tm kill-server
if ! gone_within "$apid" 10; then
	st=$(awk '{ sub(/.*\) /, ""); print $1 }' "/proc/$apid/stat" 2>/dev/null)
	cpu=$(ps -o pcpu= -p "$apid" 2>/dev/null)
	kill -KILL "$apid" 2>/dev/null
	for p in $(load_pids); do kill -CONT "$p"; kill -KILL "$p"; done
	fail "live: argus (PID $apid, state $st, ${cpu}% CPU) still runs 10 s after its terminal went away"
fi
for id in $ids; do
	bpftool prog show id "$id" >/dev/null 2>&1 && fail "live: BPF program $id of argus is still loaded"
done
left=$(load_pids)
if [ -n "$left" ]; then
	for p in $left; do echo "left: PID $p state $(awk '{ sub(/.*\) /, ""); print $1 }' /proc/$p/stat)"; done
	kill -CONT $left; kill -KILL $left
	fail "live: the load was left behind"
fi
ls -d /sys/fs/cgroup/unified/argus-"$apid"-* /sys/fs/cgroup/argus-"$apid"-* 2>/dev/null | grep . &&
	fail "live: an argus cgroup was left behind"
"$ARGUS" replay --batch "$TMP/hup.jsonl" >"$TMP/hup.replay" 2>&1 || fail "live: the session does not replay: $(tail -n 3 "$TMP/hup.replay")"
grep -q "terminal hung up" "$TMP/hup.jsonl" || fail "live: the session does not say the terminal hung up"
echo "ok: live run ended on hang-up (BPF programs $ids unloaded, load ended, session replays)"

# 2: an orphaned replay
cp "$ROOT/tests/data/session-pagefault.jsonl" "$TMP/r.jsonl"
cat >"$TMP/replay.sh" <<EOS
setsid -w $ARGUS replay $TMP/r.jsonl
EOS
NSOCK=$((NSOCK + 1)); SOCK="$TMP/tmux.$NSOCK.sock"
tm -f /dev/null new-session -d -x 120 -y 30 -s t "env LANG=C.UTF-8 TERM=xterm-256color sh $TMP/replay.sh"
wait_for "replay event 0/"
rpid=$(argus_pid "replay $TMP/r.jsonl")
[ -n "$rpid" ] || fail "no argus replay process"
tm kill-server
if ! gone_within "$rpid" 10; then
	cpu=$(ps -o pcpu= -p "$rpid" 2>/dev/null)
	kill -KILL "$rpid" 2>/dev/null
	fail "replay: argus replay (PID $rpid, ${cpu}% CPU) still runs 10 s after its terminal went away"
fi
echo "ok: replay ended on hang-up"
