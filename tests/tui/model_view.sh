#!/bin/sh
# The model view (m) over the 3-tier scenario (tests/scenarios/tier3: 4
# clients -> front -> back with a pthread mutex and O_DIRECT reads) run as
# the load of the interactive argus with time accounting (--time wall), at
# 80x24 (the view takes the middle of the screen; m goes back to the tree)
# and 160x45 (beside the tree; m brings the agent pane back).  The view must
# name the tasks t3-client, t3-front, t3-back and the lock t3-back.lock, and
# its wait chain line must start at the client ("wait chain: t3-client
# waits on t3-front N%").  The session then holds the model, and its replay
# shows it (no privileges).  Without time accounting the view says why
# there is no model.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"
need_root
need_cmd jq
need_scenario T3 tier3
mkdir -p "$TMP/state"

# every line the view shows, paged through (80x24 cannot show it at once)
view_text() {
	all=$(screen)
	i=0
	while [ $i -lt 4 ]; do
		keys PgDn
		sleep 0.3
		all="$all
$(screen)"
		i=$((i + 1))
	done
	keys g
	echo "$all"
}

check_model() { # size text
	for t in t3-client t3-front t3-back t3-back.lock; do
		echo "$2" | grep -qE "(^| )$t( |$)" || { echo "$2"; fail "$1: the model view lacks task $t"; }
	done
	echo "$2" | grep -qE 't3-back\.lock +lock +hold [0-9.]+ ms' ||
		{ echo "$2"; fail "$1: the lock's row (holding time) is missing"; }
	echo "$2" | grep -qE -- '-> t3-front +[0-9.]+/cycle unix' ||
		{ echo "$2"; fail "$1: no client -> front call with calls per request"; }
	echo "$2" | grep -qE 'wait chain: t3-client waits on t3-front [0-9]+%' ||
		{ echo "$2"; fail "$1: the wait chain does not start at the client"; }
}

for size in "80 24" "160 45"; do
	set -- $size
	rm -rf "$TMP/state/argus"
	start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color XDG_STATE_HOME="$TMP/state" -- \
		--time wall --fixed --pairs 3 --window 0.5 -- \
		"$T3" --clients 4 --seconds 120 --think-ms 10 --warmup 0.5
	wait_for " done "
	keys m
	wait_for "wait chain: t3-client"
	txt=$(view_text)
	check_model "$size" "$txt"
	echo "$txt" | grep -qF "from " || fail "$size: the view does not say where the model comes from"
	if [ "$1" -lt 120 ]; then
		# the middle of the screen: the tree is hidden until m
		screen | grep -qF "Δ/s" && { screen; fail "$size: the tree is still shown beside the view"; }
		screen | grep -qF "m Esc: back to the tree" || { screen; fail "$size: no way back shown"; }
		keys m
		wait_for "Δ/s"
		wait_gone "wait chain:"
	else
		screen | grep -qF "Δ/s" || { screen; fail "$size: the tree is not beside the view"; }
		# the agent's keys wait while the view covers the pane
		keys a
		wait_for "the model view covers the agent pane"
		keys m
		wait_for " agent ("
		wait_gone "wait chain:"
	fi
	keys q
	expect_sane_exit
	S=$(ls "$TMP/state/argus/sessions/"argus-*.jsonl 2>/dev/null | head -n 1)
	[ -n "$S" ] || fail "$size: no session"
	jq -se '[.[] | select(.type == "model")] | length == 1' "$S" >/dev/null ||
		fail "$size: the session holds no model event"
	jq -se '[.[] | select(.type == "model")][0] | (.chain | startswith("t3-client waits on t3-front"))
		and ([.model.tasks[].name] | index("t3-back.lock") != null)' "$S" >/dev/null ||
		fail "$size: the session's model is wrong: $(jq -c 'select(.type == "model") | .chain' "$S")"
	cp "$S" "$TMP/t3-$1.jsonl"
done

# the replay shows the saved model, at 80x24 (no privileges needed for it)
start 80 24 LANG=C.UTF-8 TERM=xterm-256color HOME="$TMP" -- replay "$TMP/t3-160.jsonl"
wait_for "replay event 0/"
keys m
wait_for "saved in the session"
check_model "replay" "$(view_text)"
keys m
wait_gone "saved in the session"
keys q
expect_sane_exit

# without time accounting there is no wait graph: said, with what to do
start 80 24 LANG=C.UTF-8 TERM=xterm-256color XDG_STATE_HOME="$TMP/state" -- \
	--time cpu --fixed --pairs 2 -- "$T3" --clients 2 --seconds 60
wait_for "window"
keys m
wait_for "no wait graph"
wait_for "--time wall"
keys Escape
wait_gone "no wait graph"
keys q
expect_sane_exit
echo ok
