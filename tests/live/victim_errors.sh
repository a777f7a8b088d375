#!/bin/sh
# victim_errors — bad victims with the wall-clock tree:
#  - a victim command that exits at once: a clear message, exit 5, the load
#    ended, nothing left loaded;
#  - a victim that never blocks (user-space compute beside an idle load): a
#    verdict, and its time still adds up (on-cpu, mostly [user space]);
#  - a --victim-pid that dies mid-run: the measurement stops with a message,
#    the verdict comes from the windows it was alive in, the load is not left
#    stopped.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd jq
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
S="$BUILD/scenarios"
[ -x "$S/starved" ] || skip "no $S/starved; run make"
vp=
cleanup() { [ -n "$vp" ] && kill "$vp" 2>/dev/null; pkill -x -P $$ spinner 2>/dev/null; }
at_exit cleanup

# programs of this test's processes still loaded (other argus runs may share the machine)
leftover() {
	command -v bpftool >/dev/null || return 1
	bpftool prog show -j 2>/dev/null | jq -e --arg c "$1" \
		'[.[] | select(.name | startswith("argus_")) | .pids[]? | select(.comm == $c)] | length > 0' >/dev/null
}
no_spinner() { # a load left running or stopped
	for p in $(pgrep -x spinner); do
		[ "$(ps -o ppid= -p "$p" | tr -d ' ')" = 1 ] || continue
		fail "$1: a spinner load was left behind (PID $p, state $(ps -o stat= -p "$p"))"
	done
}

# 1. a victim that exits at once
"$ARGUS" diagnose --victim /bin/true --load "$S/spinner --cpu 1" --pairs 2 --no-session \
	>"$TMP/1.json" 2>"$TMP/1.err"
rc=$?
cat "$TMP/1.err"
[ $rc = 5 ] || fail "a victim that exits at once: exit $rc, not 5"
grep -q 'the victim (PID [0-9]*) exited (0) before a reference/loaded pair was measured' "$TMP/1.err" ||
	fail "a victim that exits at once: no clear message"
no_spinner "a victim that exits at once"

# 2. a victim that never blocks, beside a load that does nothing
# (a session, to say where a window's time went when it does not add up)
"$ARGUS" diagnose --victim "$S/starved --cpu 1" --load "sleep 30" --pairs 3 --session "$TMP/2.jsonl" \
	>"$TMP/2.json" 2>"$TMP/2.err" || { cat "$TMP/2.err"; fail "a victim that never blocks: exit $?"; }
jq -e '.verdict | has("found")' "$TMP/2.json" >/dev/null || fail "a victim that never blocks: no verdict"
echo "never blocks: $(jq -r .verdict.summary "$TMP/2.json")"
jq -r --arg f "$(jq -r .options.freq_hz "$TMP/2.json")" '.windows[] | "\(.samples / .secs / ($f | tonumber)) \(.lost // 0)"' \
	"$TMP/2.json" | awk '$1 < 0.8 || $1 > 1.2 { print "window: " $1 " thread-s/s (" $2 " lost)"; bad = 1 } END { exit bad }' || {
	window_kinds "$TMP/2.jsonl"
	sed -n '/^argus: window\|^argus: settl\|lost\|budget/p' "$TMP/2.err" | head -n 20
	fail "a victim that never blocks: its time does not add up to one thread-second per second"
}

# 3. a --victim-pid that dies mid-run (--fixed: sequential stopping could settle
# before the victim dies, 5 s in)
"$S/starved" --seconds 5 --cpu 1 >/dev/null &
vp=$!
"$ARGUS" diagnose --victim-pid "$vp" --load "$S/spinner --cpu 1" --pairs 8 --fixed --no-session \
	>"$TMP/3.json" 2>"$TMP/3.err"
rc=$?
vp=
cat "$TMP/3.err" | tail -n 4
case $rc in
0)  grep -q 'the victim (PID [0-9]*) gone: stopping after [0-9]* windows; the verdict is from those' "$TMP/3.err" ||
	fail "a victim that died: no message saying the measurement stopped"
    n=$(jq '.windows | length' "$TMP/3.json")
    [ "$n" -lt 16 ] || fail "a victim that died: all 16 windows measured anyway"
    jq -e '.verdict | has("found")' "$TMP/3.json" >/dev/null || fail "a victim that died: no verdict" ;;
5)  grep -q 'the victim (PID [0-9]*) gone before a reference/loaded pair' "$TMP/3.err" ||
	fail "a victim that died: exit 5 without the message"
    echo "(the machine was slow: the victim died before the first pair)" ;;
*)  fail "a victim that died: exit $rc" ;;
esac
no_spinner "a victim that died"
leftover argus && fail "an argus process still holds its programs"
echo "victim_errors: ok"
