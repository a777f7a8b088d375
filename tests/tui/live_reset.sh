#!/bin/sh
# Live (root): 0 resets the live tree's counts (issue 24 item 11: live mode
# accumulated forever; perf top users expect a reset).  `argus` system-wide
# at 80x24 and 160x45, a page-fault loop keeping the kernel sampled: after 0 the
# status bar's sample count and the tree's total drop to near zero, then
# grow again; ? lists 0 there; the session keeps what was counted before
# the reset (its first window) and after it (a second).  In a replay and
# over recorded files 0 says it works only in live sampling, and a replay's
# ? does not offer it.
. "$(dirname "$0")/../lib.sh"
need_root
. "$(dirname "$0")/tmux.inc"

# the load: page faults, so the kernel is sampled whatever else the machine
# does (a user-space busy loop gives the kernel sampler almost nothing: a
# quiet machine counted 36 kernel samples a second)
need_scenario PF pagefault
"$PF" --seconds 600 >/dev/null &
BUSY=$!
at_exit "kill $BUSY 2>/dev/null"

# the status bar's "N samples" (fmt_count: 123456 is 123.5k), as a number
status_samples() {
	screen | grep -o '[0-9.]*[kMG]* samples' | tail -1 |
		awk '{ v = $1; m = 1; if (sub(/k$/, "", v)) m = 1e3; else if (sub(/M$/, "", v)) m = 1e6;
			print int(v * m) }'
}
# the tree's total: the root row "all" and its samples column
tree_total() {
	screen | awk '$0 ~ /[─▾▸] all / { for (i = 1; i <= NF; i++) if ($i == "all") { print $(i + 1); exit } }' |
		awk '{ v = $1; m = 1; if (sub(/k$/, "", v)) m = 1e3; print int(v * m) }'
}
# until the status bar counts at least $1 samples (at most $2 s)
wait_samples() {
	i=0
	while [ "$(status_samples)" -lt "$1" ] 2>/dev/null || [ -z "$(status_samples)" ]; do
		i=$((i + 1))
		[ $i -gt $(($2 * 10)) ] && return 1
		sleep 0.1
	done
	return 0
}

for size in "80 24" "160 45"; do
	set -- $size
	S="$TMP/s-$1.jsonl"
	start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color XDG_STATE_HOME="$TMP/state" \
		-- --theme mono --session "$S"
	wait_for " samples"
	wait_samples 3000 60 || { screen; fail "$1x$2: fewer than 3000 samples in 60 s"; }
	before=$(status_samples)
	tb=$(tree_total)
	[ -n "$tb" ] && [ "$tb" -gt 0 ] || { screen; fail "$1x$2: no tree total"; }
	keys 0
	wait_for "counts reset"
	after=$(status_samples)
	ta=$(tree_total)
	echo "$1x$2: before the reset $before samples (tree $tb), after $after (tree $ta)"
	[ "$after" -lt $((before / 5)) ] || { screen; fail "$1x$2: 0 left $after of $before samples"; }
	[ -n "$ta" ] && [ "$ta" -lt $((tb / 5)) ] || { screen; fail "$1x$2: the tree kept $ta of $tb"; }
	# and it counts again
	wait_samples $((after + 1000)) 60 || { screen; fail "$1x$2: no growth after the reset"; }
	ta2=$(tree_total)
	[ "$ta2" -gt "$ta" ] || { screen; fail "$1x$2: the tree did not grow after the reset ($ta, $ta2)"; }
	# ? offers 0 in live sampling (paged: 80x24 shows part of the help)
	keys '?'
	wait_for "argus keys"
	found=0
	for i in 1 2 3 4 5 6; do
		screen | grep -qF "reset the counts" && { found=1; break; }
		keys PgDn
		sleep 0.3
	done
	[ $found = 1 ] || fail "$1x$2: ? does not list 0 (reset the counts)"
	keys q
	wait_gone "argus keys"
	keys q
	expect_sane_exit
	# the session: the counts before the reset are one window, the rest another
	"$ARGUS" replay --batch "$S" >"$TMP/r.txt" || fail "$1x$2: replay --batch failed"
	cat "$TMP/r.txt"
	w1=$(sed -n 's/.*loaded window 1 of step 0: \([0-9]*\) samples.*/\1/p' "$TMP/r.txt")
	grep -q "loaded window 2 of step 0" "$TMP/r.txt" || fail "$1x$2: no second window in the session"
	# (argus's own samples are counted by the status bar, not in the tree
	# nor the session: the tree's total is what the window must hold)
	[ -n "$w1" ] && [ "$w1" -ge "$tb" ] ||
		fail "$1x$2: the session's first window has ${w1:-no} samples, the tree showed $tb"
done

# not in a replay, nor over recorded files: their windows stay
start 80 24 LANG=C.UTF-8 TERM=xterm-256color HOME="$TMP" -- replay "$ROOT/tests/data/session-pagefault.jsonl" --at end
wait_for "replay event"
keys 0
wait_for "0: only in live sampling"
keys q
expect_sane_exit
start 80 24 LANG=C.UTF-8 TERM=xterm-256color HOME="$TMP" -- --static "$FOLDED_LIVE" --no-session
wait_for "all"
keys 0
wait_for "0: only in live sampling"
keys q
expect_sane_exit
echo ok
