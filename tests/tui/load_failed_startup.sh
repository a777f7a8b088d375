#!/bin/sh
# Live (root).  A load that fails in its start-up (issue 24 item 5), at
# 80x24 and 160x45: it writes "boom" to stderr and exits 3 before a pair
# was measured.  argus ends by itself, says "the load failed: exited (3)"
# with the load's last line ("boom"), exits 6 (not 5, "ended too soon"),
# and leaves the terminal sane.  The same for a Python-like failure: an
# error line and exit 1 after 0.5 s.
. "$(dirname "$0")/../lib.sh"
need_root
. "$(dirname "$0")/tmux.inc"

printf 'echo boom >&2\nexit 3\n' > "$TMP/boom.sh"
printf 'sleep 0.5\necho "SyntaxError: invalid syntax" >&2\nexit 1\n' > "$TMP/py.sh"
for load in "boom 3 boom" "py 1 SyntaxError: invalid syntax"; do
	set -- $load
	name=$1 code=$2
	shift 2
	last="$*"
	for size in "80 24" "160 45"; do
		set -- $size
		start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color -- --no-session --load "sh $TMP/$name.sh"
		wait_long STTY-DONE 60
		# the message wraps at 80 columns: read it with its lines joined
		s=$(screen_joined)
		echo "$s" | grep -q 'ARGUS-EXIT=6' || { echo "$s"; fail "$name $size: a load that failed in its start-up: not exit 6"; }
		echo "$s" | grep -qF "the load failed: exited ($code)" || { echo "$s"; fail "$name $size: argus does not say the load failed"; }
		echo "$s" | grep -qF "its last line: \"$last\"" || { echo "$s"; fail "$name $size: the failure does not quote the load's last line"; }
		modes=$(echo "$s" | tr '\n' ' ')
		echo "$modes" | grep -Eq '(^| )-icanon( |$)' && fail "$name $size: terminal left without icanon"
		echo "$modes" | grep -Eq '(^| )-echo( |$)' && fail "$name $size: terminal left without echo"
	done
done
echo ok
