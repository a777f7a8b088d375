#!/bin/sh
# The icicle view (i) at 80x24 and 160x45 over the calibrated folded
# fixture: it opens on the selected subtree with the selected frame's name,
# numbers and path on the lines below, its children drawn on the next
# level, widths by loaded samples; arrows move (Down: the widest child,
# Right: the next frame of the level); Enter zooms (the root changes),
# Backspace zooms out, Esc goes back to the tree with the icicle's
# selection selected; the key is in ? help.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"

for size in "80 24" "160 45"; do
	set -- $size
	start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color -- --static "$FOLDED_CAL"
	wait_for "◆ do_anonymous_page"
	keys '?'
	wait_for "argus keys"
	# the help pages: i is on one of them
	i=0
	until screen | grep -qF 'icicle of the selected subtree'; do
		[ $i -lt 10 ] || fail "$size: ? does not list i"
		keys PgDn
		sleep 0.3
		i=$((i + 1))
	done
	keys Escape
	wait_gone "argus keys"
	# on the root: mm, idle and the other subsystems below it, side by side
	keys g i
	wait_for "icicle of all"
	row=$(screen | sed -n 4p)
	echo "$row" | grep -q 'mm .*idle' || { screen; fail "$size: level 1 lacks mm and idle side by side: '$row'"; }
	# widths follow loaded samples: mm (1750/s loaded) wider than idle (900/s)
	mmw=$(echo "$row" | awk '{ print index($0, "idle") }')
	[ "$mmw" -gt $(( $1 / 2 )) ] || fail "$size: idle starts at column $mmw: mm is not the wider"
	screen | sed -n "$(($2 - 2))p" | grep -q '^ all  load .*/s  ref .*Δ' ||
		fail "$size: no numbers line for the selected root"
	# Down: the widest child (mm); its name and numbers on the detail line
	keys Down
	wait_for " mm  load"
	# Right: the next frame of the level
	keys Right
	wait_for " idle  load"
	keys Left
	wait_for " mm  load"
	# down to exc_page_fault, then Enter: it becomes the root
	keys Down Down
	wait_for " exc_page_fault  load"
	screen | sed -n "$(($2 - 1))p" | grep -qF 'all › mm › asm_exc_page_fault › exc_page_fault' ||
		fail "$size: the path line lacks the selected frame's path"
	keys Enter
	wait_for "icicle of exc_page_fault"
	screen | sed -n 3p | grep -q '^◆ exc_page_fault' || fail "$size: the zoomed root is not on the first level"
	screen | sed -n 4p | grep -q 'do_user_addr_fault' || fail "$size: the zoomed root's child is not below it"
	screen | grep -q 'secondary_startup\|^◆ mm ' && fail "$size: the zoom still shows the old root's levels"
	# Backspace: back out one level
	keys BSpace
	wait_for "icicle of asm_exc_page_fault"
	# Esc: back to the tree, the icicle's selection selected
	keys Escape
	wait_gone "icicle of"
	wait_for "exc_page_fault"
	crumb=$(screen | sed -n "$(($2 - 1))p")
	echo "$crumb" | grep -q 'exc_page_fault  .*hidden' || fail "$size: the tree's selection is not exc_page_fault: '$crumb'"
	keys q
	expect_sane_exit
done
echo ok
