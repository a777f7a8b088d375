#!/bin/sh
# Issue 24 item 9: with time accounting (--victim, --time wall), the
# on-CPU time with no kernel sample is the subsystem "user", in the tree
# and in the header, not "other"; x on its [user space] frame says what it
# is ("what is [user space]": time the diagnosed threads ran in user space)
# and not "kernel code the table does not place".  At 80x24 and 160x45,
# on the shipped aggressor/victim session (no root).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"
SRC="$ROOT/tests/data/session-aggressor.jsonl"
[ -f "$SRC" ] || skip "no $SRC"
for size in "80 24" "160 45"; do
	set -- $size
	start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color HOME="$TMP" -- replay "$SRC"
	wait_for "replay event 0/"
	keys '}'
	wait_re '◆ (shmem|mm|on-cpu)'
	# the header: its entry is "user −N%", not "other −N%" (kernel code
	# of no known subsystem may still be "other", here "new (n.s.)")
	wait_re '^ argus .* user −[0-9]+%' || fail "${1}x$2: no 'user −N%' in the header"
	screen | head -n 1 | grep -q ' other −' && { screen | head -n 1; fail "${1}x$2: the header calls user space other"; }
	# the tree's row: the subsystem "user", expanded to its frame
	keys / u s e r Enter
	wait_re '^ *[│├└─▸▾ ]*user  '
	keys Right
	wait_for "[user space]"
	screen | grep -E '[│├└]─. other ' && fail "${1}x$2: [user space] is still under other"
	keys Down
	keys x
	wait_for "what is [user space]"
	s=$(screen_joined)
	echo "$s" | grep -qF "ran in user space: on-CPU time" ||
		{ echo "$s"; fail "${1}x$2: x on [user space] does not say it is user-space time"; }
	echo "$s" | grep -qF "does not place" && { echo "$s"; fail "${1}x$2: x calls it unplaced kernel code"; }
	echo "$s" | grep -qF "No glossary entry" && { echo "$s"; fail "${1}x$2: x has no words for it"; }
	keys Escape
	wait_gone "what is"
	keys q
	expect_sane_exit
done
echo ok
