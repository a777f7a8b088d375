#!/bin/sh
# Live (root): a second opinion after a veto (issue 13 item 4).  On the
# cow_fault scenario, at 80x24 and 160x45: veto the heuristic's first
# proposal with a reason naming off-CPU time; the agent's next proposal is an
# offcpu step (not a repeated verdict), and the session records
# it after the veto.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd jq
. "$(dirname "$0")/tmux.inc"
need_scenario LOAD cow_fault

cd "$TMP" || fail "cannot cd $TMP"
for size in "80 24" "160 45"; do
	set -- $size
	S="$TMP/s-$1.jsonl"
	try=0
	while :; do   # a busy shared machine can hide the load's rise in a run
		try=$((try + 1))
		rm -f "$S"
		start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color XDG_STATE_HOME="$TMP/state" \
			-- --load "$LOAD --seconds 120" --pairs 3 --session "$S"
		seen "step 1 (run 1 of at most" 40 && break
		[ $try -lt 3 ] || { screen; fail "$1x$2: no proposal in 3 runs"; }
		keys q
		wait_for STTY-DONE
	done
	keys v
	wait_for "veto reason"
	keys "no, look at offcpu time and who wakes the threads" Enter
	seen "second opinion" 20 || { screen; fail "$1x$2: no second proposal after the veto"; }
	seen "of at most 5): offcpu" 5 || { screen; fail "$1x$2: the second proposal is not offcpu"; }
	keys q
	expect_sane_exit
	# the vetoed step number is proposed again (a veto runs nothing)
	jq -se '[.[] | select(.type=="proposal")] | length == 2 and .[0].spec.kind == "tracepoint_stacks" and
		.[1].spec.kind == "offcpu"' "$S" >/dev/null ||
		fail "$1x$2: the proposal after the veto is not offcpu: $(jq -c 'select(.type=="proposal") | [.step, .spec.kind]' "$S" | tr '\n' ' ')"
	jq -se 'any(.[]; .type=="transcript" and (.text | startswith("second opinion (as the reason asks)")))' \
		"$S" >/dev/null || fail "$1x$2: the transcript does not say the reason steered the choice"
	echo "$1x$2: veto naming offcpu -> offcpu proposed"
done
echo "ok: second_opinion"
