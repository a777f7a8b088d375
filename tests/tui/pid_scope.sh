#!/bin/sh
# Live (root), issue 13 items 2 and 3: `argus -p PID` against a saved
# reference, without --pause, at 160x45 and 80x24.
#  - the header's title names the scope of each condition (argus -p; ref:
#    system-wide, saved HH:MM; load: system-wide; shortened in the middle at
#    80 columns);
#  - the proposal (the LLM stub's counts step with no filter, so that one
#    comes whatever the tree of a busy host shows) is scoped to the process (scope PID N (tgid N), with how to
#    widen it), and before anything is accepted the pane says the step has no
#    reference (nothing can be paused);
#  - the overhead line is a number from the pre-flight, never "not estimated";
#  - e lists the scope field; setting it to system clears the process
#    filter (widens the step).
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/llm_lib.sh"
need_root
need_cmd curl
. "$(dirname "$0")/tmux.inc"
need_scenario PF pagefault
cd "$ROOT" || fail "no $ROOT"
cp "$PF" "$TMP/pidscope_pf"
stub_start
llm_env openai
"$ARGUS" reference save --duration 1.5 --output "$TMP/ref.jsonl" 2>"$TMP/ref.err" ||
	{ cat "$TMP/ref.err"; fail "reference save failed"; }
"$TMP/pidscope_pf" --seconds 300 >/dev/null 2>&1 &
P=$!
at_exit "kill $P 2>/dev/null"

for size in "160 45" "80 24"; do
	set -- $size
	stub_script "$ROOT/tests/data/llm/scope_load.json"
	start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color -- --agent llm -p "$P" \
		--reference "$TMP/ref.jsonl" --fixed --pairs 3 --no-session
	wait_long "step 1 (run 1 of at most" 60
	screen | head -n 1 | grep -Eq "argus -p; re.*system-wide" ||
		{ screen | head -n 1; fail "$1x$2: the title does not name the scopes"; }
	# at 80x24 the card needs the whole screen: Tab to the pane, z to zoom
	[ "$1" = 80 ] && keys Tab z
	wait_for "overhead"
	if [ "$1" = 160 ]; then
		screen | head -n 1 | grep -Eq "argus -p; ref: system-wide, saved [0-9]{2}:[0-9]{2}; load: system-wide" ||
			{ screen | head -n 1; fail "$1x$2: the title does not name both scopes"; }
	fi
	screen | grep -q "scope     PID $P (tgid $P); scope=system" ||
		{ screen; fail "$1x$2: the card does not say the step is scoped to PID $P"; }
	screen | tr -s ' \n' '  ' | grep -q "this step has no reference: PID $P is not paused" ||
		{ screen; fail "$1x$2: no 'this step has no reference' before accepting"; }
	screen | tr -s ' \n' '  ' | grep -Eq "overhead ~[0-9.]+% of a CPU" ||
		{ screen; fail "$1x$2: the overhead is not a number"; }
	screen | grep -q "not estimated" && fail "$1x$2: 'not estimated' on the card"
	if [ "$1" = 160 ]; then
		keys e
		wait_for "editing"
		for _ in 1 2 3 4; do keys j; done
		keys Enter
		wait_for "scope> load"
		keys BSpace BSpace BSpace BSpace system Enter
		# scope system: the process filter is gone (widened)
		i=0
		while [ $i -lt 100 ] && ! screen | grep -Eq ' >?scope +system *$'; do
			sleep 0.1
			i=$((i + 1))
		done
		screen | grep -Eq ' >?scope +system *$' || { screen; fail "scope=system not taken"; }
		screen | grep -Eq ' filter\.tgid *$' || { screen; fail "scope=system kept the tgid filter"; }
		keys Escape
		wait_gone "editing"
	fi
	keys q
	expect_sane_exit
done
kill "$P"
exit 0
