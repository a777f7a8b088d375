#!/bin/sh
# argus diff REF LOAD without --batch: the calibrated tree over imported
# files (folded, then perf script), verdict path marked, q exits cleanly.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"
D="$ROOT/tests/data"

for kind in folded perfscript; do
	start 100 30 LANG=C.UTF-8 TERM=xterm-256color -- diff "$D/ref.$kind" "$D/load.$kind"
	wait_for "load/s"
	screen | head -n 1 | grep -q 'argus diff' || fail "$kind: no 'argus diff' title"
	screen | head -n 1 | grep -q 'mm +' || fail "$kind: no mm increase in the header"
	wait_for "◆ do_anonymous_page"
	keys q
	expect_sane_exit
	tm kill-server
done
echo ok
