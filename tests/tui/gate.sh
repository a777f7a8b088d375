#!/bin/sh
# Live (root): the gate holds (issue 24 items 1-3), at 80x24 and 160x45, on
# the pagefault scenario:
#  - a card over the overhead budget (--budget 0.01: any step is) says so
#    on its first line, the estimate and the budget in view; a asks again
#    and only a second a runs it;
#  - e, duration_s 'abc' (refused: the field keeps 5), then a: not
#    accepted, said on the card; nothing runs;
#  - E with an editor writing JSON that does not parse: the error in view
#    at the top of the card, a not accepted;
#  - one step number: "accepted step 1", "step 1 loads", the status bar's
#    "step 1 measuring", "result> step 1" (tests/unit/test_controller.c
#    checks the numbers after an undo, where they used to part);
#  - the load exits while a card waits: a runs nothing ("not run: the load
#    exited"), and r proposes nothing against it.
. "$(dirname "$0")/../lib.sh"
need_root
. "$(dirname "$0")/tmux.inc"
need_scenario PF pagefault

# the load: the scenario under a shell, its pid kept so the test can end it
cat > "$TMP/load.sh" <<EOF
#!/bin/sh
$PF --seconds 300 &
echo \$! > $TMP/pf.pid
wait
EOF
chmod +x "$TMP/load.sh"
# an editor leaving JSON that does not parse
cat > "$TMP/bad-editor" <<'EOF'
#!/bin/sh
printf '{ "kind": "tracepoint_stacks", "duration_s": \n' > "$1"
EOF
chmod +x "$TMP/bad-editor"
at_exit '[ -f "$TMP/pf.pid" ] && kill $(cat "$TMP/pf.pid") 2>/dev/null'

status_line() { screen | sed -n "${H}p"; }
no_run() {
	screen | grep -qF 'accepted step' && { screen; fail "${W}x$H: $1: a step was accepted"; }
	status_line | grep -q 'measuring' && { screen; fail "${W}x$H: $1: a step runs"; }
	status_line | grep -qF 'waiting for you' || { screen; fail "${W}x$H: $1: status '$(status_line)'"; }
}

for size in "80 24" "160 45"; do
	set -- $size
	W=$1 H=$2
	rm -f "$TMP/pf.pid"
	start "$W" "$H" LANG=C.UTF-8 TERM=xterm-256color XDG_STATE_HOME="$TMP/state" \
		VISUAL="$TMP/bad-editor" -- --load "$TMP/load.sh" --pairs 3 --budget 0.01 \
		--no-session --theme mono
	wait_long "proposal · step 1 (run 1 of at most 5)" 60

	# over budget: said first, with the estimate and the budget
	wait_for "OVER: ~"
	screen | grep -qE 'OVER: ~[0-9.]+% of a CPU estimated, the budget is' ||
		{ screen; fail "${W}x$H: no estimate beside OVER"; }
	# (the value wraps: "the budget is" may end its line, 0.01% on the next)
	{ screen | grep -qE 'the budget is( 0\.01%|$)' && screen | grep -qF '0.01%;'; } ||
		{ screen; fail "${W}x$H: the budget is not on the card"; }

	# a refused edit: a does not run the spec as it was before it
	keys e
	wait_for "editing · step 1"
	for _ in 1 2 3 4 5 6 7 8 9; do keys Down; done
	keys Enter
	wait_for "duration_s> 5"
	keys C-u abc Enter
	wait_for "duration_s 'abc' is not a"   # wraps at 160x45
	keys a
	wait_for "not accepted: your edit was refused"
	screen | grep -qF "duration_s 'abc'" || { screen; fail "${W}x$H: the refusal's reason left the card"; }
	no_run "a after a refused field"
	keys Escape
	wait_for "abandoned the edit"

	# E: JSON that does not parse, its error in view; a refused again
	keys E
	wait_for "editing · step 1"
	screen | grep -qE '\^ [0-9]+:[0-9]+:' || { screen; fail "${W}x$H: the JSON error is not in view"; }
	keys a
	wait_for "not accepted: your edit was refused"
	no_run "a after invalid JSON"
	keys Escape
	wait_for "proposal · step 1"

	# over budget: the first a asks, the second runs
	keys a
	wait_for "a again runs it anyway"
	no_run "one a over the budget"
	keys a
	wait_for "accepted step 1"
	wait_for "step 1 loads"
	seen "step 1 measuring" 20 || { screen; fail "${W}x$H: the status bar does not say step 1"; }
	# its result (stopped over the budget of 0.01%), or its end in the status
	# bar when the transcript has moved on (80x24)
	seen "result> step 1" 90 || status_line | grep -qF 'done, step 1' ||
		status_line | grep -qF 'waiting for you' || { screen; fail "${W}x$H: step 1 did not end"; }
	screen | grep -qE 'result> step [02-9]|step [02-9] (measuring|loads)|accepted step [02-9]' &&
		{ screen; fail "${W}x$H: another step number than 1"; }
	keys q
	wait_for STTY-DONE

	# the load exits while a card waits: a runs nothing, and another turn
	# proposes nothing against it
	# (another process faulting pages on this shared machine can hide the
	# load's rise in a run, and then there is no card: up to 3 runs)
	try=0
	while :; do
		try=$((try + 1))
		rm -f "$TMP/pf.pid"
		start "$W" "$H" LANG=C.UTF-8 TERM=xterm-256color XDG_STATE_HOME="$TMP/state" \
			-- --load "$TMP/load.sh" --pairs 3 --no-session --theme mono
		seen "proposal · step 1 (run 1 of at most 5)" 60 && break
		[ $try -lt 3 ] || { screen; fail "${W}x$H: no proposal in 3 runs"; }
		keys q
		wait_for STTY-DONE
	done
	kill "$(cat "$TMP/pf.pid")"
	wait_long "load exited" 20
	keys a
	wait_for "not run: the load exited"
	keys r
	seen "no step proposed: the load exited" 20 || seen "verdict>" 5 ||
		{ screen; fail "${W}x$H: no answer to r after the load exited"; }
	sleep 1
	status_line | grep -q 'measuring' && { screen; fail "${W}x$H: a step runs after the load exited"; }
	screen | grep -qF 'accepted step' && { screen; fail "${W}x$H: a step accepted after the load exited"; }
	screen | grep -qF 'proposal · step' && { screen; fail "${W}x$H: a card after the load exited"; }
	keys q
	wait_for STTY-DONE
done
echo "ok: gate"
