#!/bin/sh
# Live (root): argus -- pagefault shows an mm node that expands down to
# handle_mm_fault; q restores the terminal, ends the command and leaves none
# of the BPF programs this argus loaded.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd bpftool
. "$(dirname "$0")/tmux.inc"
PF="$BUILD/scenarios/pagefault"
[ -x "$PF" ] || skip "no $PF; run make first"

# the BPF programs a process holds, from its fds (other argus runs may be
# loading and unloading their own meanwhile)
prog_ids() { cat /proc/"$1"/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:[[:space:]]*//p' | sort -u; }
start 80 24 LANG=C.UTF-8 TERM=xterm-256color -- -- "$PF" --seconds 30
wait_for "mm"
wait_for "live"
screen | grep -q 'dropped [0-9]' || fail "no dropped counter in the status bar"
apid=$(pgrep -f -- "$ARGUS -- $PF --seconds 30" | head -n 1)
[ -n "$apid" ] || fail "cannot find argus's pid"
ours=$(prog_ids "$apid")
[ -n "$ours" ] || fail "argus holds no BPF program while the tree runs"
keys / h a n d l e _ m m _ f a u l t Enter
wait_for "handle_mm_fault"
screen | grep -qE '├─▾ mm|└─▾ mm' || fail "mm not expanded on the way to handle_mm_fault"
pf_pid=$(pgrep -f -- "$PF --seconds 30" | head -n 1)
keys q
expect_sane_exit
for id in $ours; do
	bpftool prog show id "$id" >/dev/null 2>&1 && fail "BPF program $id still loaded after q"
done
[ -n "$pf_pid" ] && kill -0 "$pf_pid" 2>/dev/null && fail "the command still runs after q"
echo ok
