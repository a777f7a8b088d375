#!/bin/sh
# Live (root).  A load that fails after a few windows (issue 24 item 5), at
# 80x24 and 160x45: the status says "load exited (3)"; O shows the load's
# output (its error line) in an overlay; q prints the load's
# last output lines (its error, dd's summary: the screen never showed them)
# and "the load failed: exited (3)", and argus exits 6; the terminal is
# restored.  The same load ending with 0 exits 0 and prints its output too.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd dd
. "$(dirname "$0")/tmux.inc"

for code in 3 0; do
	cat > "$TMP/load$code.sh" <<EOS
dd if=/dev/zero of=/dev/null bs=1M count=6000
sleep 2
echo load-said-boom >&2
exit $code
EOS
done

for size in "80 24" "160 45"; do
	set -- $size
	start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color -- --no-session --load "sh $TMP/load3.sh"
	wait_long "load exited (3)" 60
	# O: the load's output on the screen, before quitting
	keys O
	wait_for "the load's output"
	wait_for "load-said-boom"
	keys Escape
	wait_gone "load-said-boom"
	keys q
	wait_for STTY-DONE
	screen | grep -q 'ARGUS-EXIT=6' || { screen; fail "$size: a load that exited 3: not exit 6"; }
	screen | grep -qF "the load failed: exited (3)" || { screen; fail "$size: quit does not say the load failed"; }
	screen | grep -qF "load-said-boom" || { screen; fail "$size: the load's error line is not printed"; }
	modes=$(screen | tr '\n' ' ')
	echo "$modes" | grep -Eq '(^| )-icanon( |$)' && fail "$size: terminal left without icanon"
done

start 160 45 LANG=C.UTF-8 TERM=xterm-256color -- --no-session --load "sh $TMP/load0.sh"
wait_long "load exited (0)" 60
keys q
expect_sane_exit
screen | grep -qF "copied" || { screen; fail "dd's throughput line is not printed at quit"; }
screen | grep -qF "the load failed" && fail "a load that exited 0 is called failed"
echo ok
