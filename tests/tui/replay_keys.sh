#!/bin/sh
# In argus replay, at 80x24 and 160x45, the keys that do nothing there
# (the agent's a e E v r u : f Esc: a replayed pane only shows) are not
# offered by ?, and pressing one says so instead of passing silently; a key
# bound nowhere says "unbound: ? lists keys"; x then Esc leaves no stray
# characters.  The tree's keys still work.  One key, one meaning (issue 24
# item 11): p groups by process as in the live tree (it stepped back here
# before), b steps back, and the pane's hint and ? say b.  The focused
# pane scrolls (g, G, PgUp) as it does live.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"
SRC="$ROOT/tests/data/session-pagefault.jsonl"
[ -f "$SRC" ] || skip "no $SRC"
for size in "80 24" "160 45"; do
	set -- $size
	start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color HOME="$TMP" -- replay "$SRC"
	wait_for "replay event 0/"
	keys '}'
	wait_for "◆ do_anonymous_page"
	ev=$(screen | grep -o 'replay event [0-9]*/[0-9]*' | head -1)
	n=${ev##*/}
	[ -n "$n" ] && [ "$n" -gt 1 ] || { screen; fail "$size: no event count"; }
	screen | grep -q 'n next  b back' || { screen; fail "$size: the pane's hint does not say b back"; }
	keys p
	wait_for ", by process"
	screen | grep -q "replay event $n/$n" || { screen; fail "$size: p moved the replay"; }
	keys p
	wait_gone ", by process"
	keys b
	wait_for "replay event $((n - 1))/$n"
	keys '}'
	wait_for "replay event $n/$n"
	keys '?'
	wait_for "argus keys"
	# the whole help, paged through: collect every line shown
	help=""
	i=0
	while [ $i -lt 8 ]; do
		prev=$(screen)
		help="$help
$prev"
		keys PgDn
		# until the page moved (or ~2 s: the end was reached)
		j=0
		while [ "$(screen)" = "$prev" ] && [ $j -lt 20 ]; do
			sleep 0.1
			j=$((j + 1))
		done
		[ $j -ge 20 ] && break
		i=$((i + 1))
	done
	for k in "ask for another proposal" "undo the last accepted step" "agent: talk" \
		"focus on the selected tree node" "accept the proposal"; do
		echo "$help" | grep -qF "$k" && fail "$size: replay help offers '$k'"
	done
	echo "$help" | grep -qF "replay: next event" || fail "$size: replay help lacks n"
	echo "$help" | grep -qE "[^a-z]b +replay: back one event" || fail "$size: replay help lacks b"
	echo "$help" | grep -qE "[^a-z]p +group by process" || fail "$size: replay help: p does not group"
	echo "$help" | grep -qF "sort children" || fail "$size: replay help lacks s"
	keys q
	wait_gone "argus keys"
	for k in r u : f; do
		keys "$k"
		wait_for "$k: not in a replay"
	done
	keys Z
	wait_for "unbound: ? lists keys"
	# x then Esc leaves the screen as it was: no stray characters, also after Ctrl-L
	keys g
	wait_gone "unbound"
	before=$(screen)
	keys x
	wait_for "what is"
	keys Escape
	wait_gone "what is"
	[ "$(screen)" = "$before" ] || { screen; fail "$size: x left characters behind"; }
	keys C-l
	sleep 0.3
	[ "$(screen)" = "$before" ] || { screen; fail "$size: x left characters after Ctrl-L"; }
	# a tree key works in the replay
	keys s
	wait_for "sorted by load"
	# the focused pane scrolls in a replay too (it ignored every key but
	# Tab and z, so g and PgUp moved the tree behind it): back to the
	# transcript's first line, which 80x24 cannot show at its end
	keys Tab
	wait_for "focus: agent pane"
	keys z
	keys g
	wait_for "mm: +922.5/s, 100% of the increases"
	if [ "$1" = 80 ]; then
		keys G
		wait_gone "mm: +922.5/s, 100% of the increases"
		keys PgUp PgUp PgUp PgUp PgUp
		wait_for "mm: +922.5/s, 100% of the increases"
	fi
	keys q
	expect_sane_exit
done
echo ok
