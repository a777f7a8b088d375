#!/bin/sh
# Live (root).  `argus -- pagefault` is a calibrated run: reference windows
# with the load paused, loaded windows with it running; when the pairs are
# done the verdict path (◆) reaches do_anonymous_page (a wide screen: the
# tree pane beside the agent pane must not shorten the names it checks).  q restores the
# terminal, ends the load and leaves none of argus's BPF programs.  Then plain
# `argus` (no load) shows the live system-wide tree.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd bpftool
. "$(dirname "$0")/tmux.inc"
need_scenario PF pagefault

# the BPF programs a process holds, from its fds (other argus runs may be
# loading and unloading their own meanwhile)
start 200 60 LANG=C.UTF-8 TERM=xterm-256color -- --pairs 3 --no-session -- "$PF" --seconds 60
wait_for "reference window"
screen | grep -q 'dropped [0-9]' || fail "no dropped counter in the status bar"
apid=$(pgrep -f -- "$ARGUS --pairs 3 --no-session -- $PF --seconds 60" | head -n 1)
[ -n "$apid" ] || fail "cannot find argus's pid"
ours=$(prog_ids "$apid")
[ -n "$ours" ] || fail "argus holds no BPF program while the tree runs"
wait_for "loaded window"
i=0
until screen | grep -q '◆ do_anonymous_page'; do
	sleep 0.2; i=$((i + 1))
	[ $i -lt 100 ] || { screen; fail "no verdict path through do_anonymous_page"; }
done
screen | grep -qE 'ref/s +load/s' || fail "no ref/s load/s columns in a calibrated run"
screen | grep -q '◆ handle_mm_fault' || fail "handle_mm_fault not on the verdict path"
pf_pid=$(pgrep -f -- "^$PF --seconds 60" | head -n 1)
keys q
expect_sane_exit
for id in $ours; do
	bpftool prog show id "$id" >/dev/null 2>&1 && fail "BPF program $id still loaded after q"
done
[ -n "$pf_pid" ] && kill -0 "$pf_pid" 2>/dev/null && fail "the load still runs after q"

start 80 24 LANG=C.UTF-8 TERM=xterm-256color --
wait_for "live"
wait_for "all"
keys q
expect_sane_exit
echo ok
