#!/bin/sh
# Live (root).  A load that ends before one reference/loaded pair
# (`--load /bin/true`): the TUI and `diagnose` say so and exit 5 (the load
# ended too soon), not 4 ("this kernel cannot"); the terminal is restored.
. "$(dirname "$0")/../lib.sh"
need_root
. "$(dirname "$0")/tmux.inc"

"$ARGUS" diagnose --batch --json --no-session --load /bin/true >"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/err"
[ $rc = 5 ] || fail "diagnose --load /bin/true: exit $rc, want 5"
grep -q "before a reference/loaded pair was measured" "$TMP/err" || fail "diagnose: no reason given"
[ -s "$TMP/out" ] && fail "diagnose: printed a verdict for a load that never ran"

start 100 30 LANG=C.UTF-8 TERM=xterm-256color -- --no-session --load /bin/true
wait_for STTY-DONE
screen | grep -q 'ARGUS-EXIT=5' || { screen; fail "TUI --load /bin/true did not exit 5"; }
# (the message wraps at 100 columns: read it with the wrapped lines joined)
screen_joined | grep -q "before a reference/loaded pair was measured" || { screen; fail "TUI: no reason given"; }
modes=$(screen | tr '\n' ' ')
echo "$modes" | grep -Eq '(^| )-icanon( |$)' && fail "terminal left without icanon"
echo ok
