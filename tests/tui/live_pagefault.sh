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

argus_ids() { bpftool prog show 2>/dev/null | sed -n 's/^\([0-9]*\): .* name argus_.*/\1/p' | sort; }
before=$(argus_ids)
start 80 24 LANG=C.UTF-8 TERM=xterm-256color -- -- "$PF" --seconds 30
wait_for "mm"
wait_for "live"
screen | grep -q 'dropped [0-9]' || fail "no dropped counter in the status bar"
echo "$before" > "$TMP/before"
ours=$(argus_ids | comm -13 "$TMP/before" -)
[ -n "$ours" ] || fail "no argus BPF program loaded while the tree runs"
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
