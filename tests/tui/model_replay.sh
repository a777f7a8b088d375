#!/bin/sh
# The model view (m) in argus replay, no privileges: a session recorded
# before models were saved (tests/data/session-pagefault.jsonl) replays as
# before and the view says why it has no model; the same session with a
# model event appended (a tier3-shaped model) shows its tasks, the lock and
# the wait chain starting at the client, with the shares computed from the
# model (80% and 60% by construction), at 80x24 and 160x45.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"
need_cmd jq
SRC="$ROOT/tests/data/session-pagefault.jsonl"
[ -f "$SRC" ] || skip "no $SRC"
cp "$SRC" "$TMP/old.jsonl"
# client: 5 ms response per cycle, 4 ms of it waiting on the front, which
# waits 3 ms on the back; the back's lock: 1000 waits of 4 ms in 4000 calls
cp "$SRC" "$TMP/model.jsonl"
cat >>"$TMP/model.jsonl" <<'EOF'
{"type":"model","t":99,"model":{"seconds":15,"cpus":2,"throughput":266.7,"response_s":0.005,"reference":"t3-client","tasks":[{"name":"t3-client","kind":"task","threads":4,"reference":true,"invocations":4000,"cpu_s":0.0001,"think_s":0.01,"calls":[{"to":"t3-front","mean":1,"wakeups":4000,"channel":"unix","wait_s":0.004}]},{"name":"t3-front","kind":"task","threads":4,"per_caller":true,"invocations":4000,"cpu_s":0.0003,"calls":[{"to":"t3-back","mean":1,"wakeups":4000,"channel":"unix","wait_s":0.003}]},{"name":"t3-back","kind":"task","threads":4,"invocations":4000,"cpu_s":0.001,"calls":[{"to":"t3-back.lock","mean":1,"wakeups":1000,"channel":"futex"},{"to":"disk","mean":2,"wakeups":8000,"channel":"block io"}]},{"name":"t3-back.lock","kind":"semaphore","threads":1,"invocations":4000,"waits":1000,"wait_s":0.004,"hold_s":0.0005,"stack":"futex_wait > __futex_wait","calls":[]},{"name":"disk","kind":"disk","threads":1,"invocations":8000,"visit_s":0.0002,"calls":[]}],"other":{"tasks":1,"cpu_share":0.05},"kernel_wakers":[]},"chain":"t3-client waits on t3-front 80%"}
EOF
for size in "80 24" "160 45"; do
	set -- $size
	start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color HOME="$TMP" -- replay "$TMP/old.jsonl"
	wait_for "replay event 0/"
	keys m
	wait_for "this session holds no model"
	wait_for "--time wall"
	keys m
	wait_gone "holds no model"
	keys '}'
	wait_for "◆ do_anonymous_page"       # the replay itself is as before
	keys q
	expect_sane_exit

	start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color HOME="$TMP" -- replay "$TMP/model.jsonl"
	wait_for "replay event 0/"
	keys m
	wait_for "saved in the session at 99.0 s"
	# the view's columns alone (beside the tree at 160: x = 3/5 of the width + 1)
	cut=0
	[ "$1" -ge 120 ] && cut=$(($1 * 3 / 5 + 1))
	pane() { screen | LC_ALL=C.UTF-8 sed -E "s/^.{$cut}//"; }
	# the header is drawn before the body: a look right after it caught
	# the title alone (an idle make check run), so the body first
	wait_for "wait chain:"
	all="$(pane)"
	keys PgDn
	sleep 0.3
	all="$all
$(pane)"
	for t in t3-client t3-front t3-back t3-back.lock; do
		echo "$all" | grep -qE "(^| )$t( |$)" || { echo "$all"; fail "$size: no task $t"; }
	done
	echo "$all" | grep -qE 't3-back\.lock +lock +hold 0\.500 ms, 1000 waits of 4\.000 ms' ||
		{ echo "$all"; fail "$size: the lock's row"; }
	# the chain is computed from the model, not copied from the event
	echo "$all" | tr '\n' ' ' | tr -s ' ' |
		grep -qF "wait chain: t3-client waits on t3-front 80% → t3-front waits on t3-back 60% → t3-back waits on lock t3-back.lock 20%" ||
		{ echo "$all"; fail "$size: the wait chain"; }
	keys Escape
	wait_gone "saved in the session"
	keys q
	expect_sane_exit
done
echo ok
