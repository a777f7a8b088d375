#!/bin/sh
# The model's boundary in the interactive argus (issue 15 item 4): the 3-tier
# scenario (tests/scenarios/tier3 prints "tier3: steady begin" after its
# --warmup) under the TUI with time accounting, at 80x24 and 160x45:
#  - --mark 'steady begin': the model view's header names the loaded windows
#    used ("windows: marked: 'steady begin' at T s .. end: windows A-B of N"),
#    N is every loaded window (--pairs) and A > 1 (the windows before the
#    mark, the warm-up, are left out: B-A+1 < N); the session's model event
#    records the same windows; the load's output never reaches the terminal
#    (it is in the --log file instead);
#  - --steady: the header says "steady state: windows A-B of N (rates within
#    50%)" with at least 3 windows;
#  - a --mark that never matches: the view says so with the lines read, the
#    session has a note and no model;
#  - bad input on the command line: --mark with -p, --steady with --time
#    cpu, --steady with --mark, a bad regex: a message, exit 2.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"
need_root
need_cmd jq
need_scenario T3 tier3
mkdir -p "$TMP/state"

# the view's columns only, its lines joined (wrapped lines are indented)
view_joined() { # width
	cut=0
	[ "$1" -ge 120 ] && cut=$(($1 * 3 / 5 + 1))
	screen | LC_ALL=C.UTF-8 sed -E "s/^.{$cut}//" | tr '\n' ' ' | tr -s ' '
}

# A B N out of "windows A-B of N" / "window A of N"
span_of() {
	echo "$1" | grep -oE 'windows? [0-9]+(-[0-9]+)? of [0-9]+' | head -n 1 |
		sed -E 's/windows? ([0-9]+)-([0-9]+) of ([0-9]+)/\1 \2 \3/; s/window ([0-9]+) of ([0-9]+)/\1 \1 \2/'
}

session_file() { ls "$TMP/state/argus/sessions/"argus-*.jsonl 2>/dev/null | head -n 1; }

for size in "80 24" "160 45"; do
	w=${size% *} h=${size#* }
	# --mark: the warm-up's windows are not the model's
	rm -rf "$TMP/state/argus"
	start "$w" "$h" LANG=C.UTF-8 TERM=xterm-256color XDG_STATE_HOME="$TMP/state" -- \
		--log "$TMP/log.$w" --time wall --fixed --pairs 5 --window 0.5 \
		--mark 'steady begin' -- "$T3" --clients 4 --seconds 120 --think-ms 10 --warmup 2
	keys m
	wait_for "waiting for --mark 'steady begin'"
	wait_long " done " 60
	wait_for "windows: marked:"
	txt=$(view_joined "$w")
	echo "$txt" | grep -qE "windows: marked: 'steady begin' at [0-9.]+ s \.\. end: windows? [0-9]" ||
		{ screen; fail "$size: the header does not name the marked windows"; }
	set -- $(span_of "${txt#*windows: marked:}")
	[ "$3" = 5 ] || { screen; fail "$size: the header counts $3 loaded windows, not 5"; }
	[ "$1" -gt 1 ] || { screen; fail "$size: the model keeps window $1 (the warm-up)"; }
	[ $(($2 - $1 + 1)) -lt "$3" ] || { screen; fail "$size: the model uses every window"; }
	echo "$txt" | grep -qE 'wait chain: t3-client waits on t3-front' ||
		{ screen; fail "$size: no model under the marked header"; }
	a=$1 b=$2
	screen | grep -qF "tier3: steady begin" && { screen; fail "$w: the load's output is on the terminal"; }
	keys q
	expect_sane_exit
	grep -qF "load: tier3: steady begin" "$TMP/log.$w" ||
		fail "$w: the load's output is not in the log"
	S=$(session_file)
	[ -n "$S" ] || fail "$w: no session"
	jq -se --argjson a "$a" --argjson b "$b" '[.[] | select(.type == "model")] | length == 1 and
		(.[0].windows | .first == $a and .last == $b and .of == 5 and
		 (.used | startswith("marked: '"'"'steady begin'"'"' at")))' "$S" >/dev/null ||
		fail "$w: the session's model event does not record windows $a-$b of 5: $(jq -c 'select(.type == "model") | .windows' "$S")"
	cp "$S" "$TMP/marked-$w.jsonl"

	# --steady
	rm -rf "$TMP/state/argus"
	start "$w" "$h" LANG=C.UTF-8 TERM=xterm-256color XDG_STATE_HOME="$TMP/state" -- \
		--time wall --fixed --pairs 4 --window 0.5 --steady --tolerance 0.5 -- \
		"$T3" --clients 4 --seconds 120 --think-ms 10
	wait_long " done " 60
	keys m
	wait_for "windows: steady state:"
	txt=$(view_joined "$w")
	echo "$txt" | grep -qE "windows: steady state: windows [0-9]+-[0-9]+ of 4 \(rates within 50%\)" ||
		{ screen; fail "$w: the header does not name the steady windows"; }
	set -- $(span_of "${txt#*windows: steady state:}")
	[ $(($2 - $1 + 1)) -ge 3 ] || { screen; fail "$w: a steady state of fewer than 3 windows"; }
	keys q
	expect_sane_exit

	# a --mark that never matches
	rm -rf "$TMP/state/argus"
	start "$w" "$h" LANG=C.UTF-8 TERM=xterm-256color XDG_STATE_HOME="$TMP/state" -- \
		--time wall --fixed --pairs 2 --window 0.5 --mark 'no such line' -- \
		"$T3" --clients 2 --seconds 120 --think-ms 10 --warmup 0.2
	wait_long " done " 60
	keys m
	wait_for "never matched"
	view_joined "$w" | grep -qE -- "--mark 'no such line' never matched the load's output \([1-9][0-9]* lines? read\)" ||
		{ screen; fail "$w: the never-matched message (with the lines read)"; }
	keys q
	expect_sane_exit
	S=$(session_file)
	jq -se '([.[] | select(.type == "model")] | length == 0) and
		([.[] | select(.type == "note") | .text | select(test("no model of the load: --mark .* never matched"))] | length == 1)' \
		"$S" >/dev/null || fail "$w: the session should hold the note and no model"
done

# the replay says the recorded windows; an older session says they were not
start 80 24 LANG=C.UTF-8 TERM=xterm-256color HOME="$TMP" -- replay "$TMP/marked-160.jsonl"
wait_for "replay event 0/"
keys m
wait_for "saved in the session"
view_joined 80 | grep -qE "windows: marked: 'steady begin' at [0-9.]+ s \.\. end: windows? [0-9]" ||
	{ screen; fail "replay: the recorded windows are not said"; }
keys q
expect_sane_exit
jq -c 'if .type == "model" then del(.windows) else . end' "$TMP/marked-160.jsonl" >"$TMP/old.jsonl"
start 80 24 LANG=C.UTF-8 TERM=xterm-256color HOME="$TMP" -- replay "$TMP/old.jsonl"
wait_for "replay event 0/"
keys m
wait_for "windows: not recorded"
keys q
expect_sane_exit

# bad input: said before anything starts (exit 2)
bad() { # expected-text args...
	want=$1
	shift
	"$ARGUS" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$rc" = 2 ] || { cat "$TMP/err"; fail "'$*' exits $rc, not 2"; }
	grep -qF -- "$want" "$TMP/err" || { cat "$TMP/err"; fail "'$*': no '$want'"; }
}
sleep 600 &
SPID=$!
bad "--mark reads the load's output, and -p PID has none argus can read" \
	--time wall --pause -p "$SPID" --mark x
kill "$SPID"
bad "add --time wall" --steady -- "$T3" --clients 1 --seconds 1
bad "--steady and --mark both choose" --time wall --steady --mark x -- "$T3" --seconds 1
bad "bad --mark regular expression '(x'" --time wall --mark '(x' -- "$T3" --seconds 1
bad "--tolerance goes with --steady" --time wall --tolerance 0.3 -- "$T3" --seconds 1
echo ok
