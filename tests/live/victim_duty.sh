#!/bin/sh
# victim_duty — the wall-clock accounting of a message-heavy victim within
# its budget (issue 26 item 2, core/model/timeacct.h): tier3 as a ping-pong
# (two clients, no think time: ~10^5 context switches a second) is the
# victim, a CPU spinner pinned to CPU 0 the aggressor, the victim pinned
# there too (taskset): on both CPUs its threads would also queue behind
# each other, and whether that or the spinner carries more of the rise
# varied between runs (2 of 8 runs named the victim's own cgroup, one of
# them in CI at stop 33); on the spinner's CPU the spinner is the one new
# occupant, and the victim's waits for its peer are a wait chain whose
# root is the CPU time the spinner took.  Watched all the time
# the scheduler-time programs cost more than a small budget on it, so:
#  - with --time-budget 2 they are duty-cycled (the log says on-phases) and
#    cost at most the budget on average, with a quarter's margin for the
#    first phase, always attached, which measures the cost;
#  - the verdict is the same as watched all the time (--time-budget 0):
#    runnable, [ran instead: spinner];
#  - each window's thread time is its wall time's, as watched all the time:
#    the windows' mean thread-s/s within 15% of the --time-budget 0 run's
#    (scaled from the attached time, not short by the detached fraction).
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd jq
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
S="$BUILD/scenarios"
[ -x "$S/tier3" ] && [ -x "$S/spinner" ] || skip "no $S/tier3; run make"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (the victim's threads beside the pinned spinner)"

need_cmd taskset
VICTIM="taskset -c 0 $S/tier3 --clients 2 --front-us 0 --back-us 0 --lock-us 0 --io 0 --think-ms 0 --warmup 0 --seconds 60"
run() { # budget name
	"$ARGUS" diagnose --victim "$VICTIM" --load "$S/spinner" --time-budget "$1" --fixed --pairs 4 \
		--no-session >"$TMP/$2.json" 2>"$TMP/$2.err" || { cat "$TMP/$2.err"; fail "diagnose ($2) exited $?"; }
	t=$(jq -r '.verdict.time // .verdict.path[0] // "none"' "$TMP/$2.json")
	p=$(jq -r '.verdict.path | join(" > ")' "$TMP/$2.json")
	echo "$2: time $t, path $p"
	[ "$(jq -r .verdict.found "$TMP/$2.json")" = true ] || fail "$2: no verdict: $(jq -r .verdict.summary "$TMP/$2.json")"
	[ "$t" = runnable ] && echo "$p" | grep -q '\[ran instead: spinner' ||
		fail "$2: the verdict is not the victim's wait for a CPU taken by the spinner: $(jq -r .verdict.summary "$TMP/$2.json")"
}
thread_s() { # name: the windows' mean thread-s/s
	jq -r --arg f "$(jq -r .options.freq_hz "$TMP/$1.json")" \
		'[.windows[] | .samples / .secs / ($f | tonumber)] | add / length' "$TMP/$1.json"
}

run 0 full
line=$(grep 'wall-clock accounting' "$TMP/full.err") || fail "no cost line with --time-budget 0"
echo "$line"
echo "$line" | grep -q 'watched all the time' || fail "--time-budget 0 was duty-cycled: $line"
run 2 duty
line=$(grep 'wall-clock accounting' "$TMP/duty.err") ||
	{ cat "$TMP/duty.err"; fail "no cost line"; }
echo "$line"
phases=$(echo "$line" | sed -n 's/.* in \([0-9]*\) on-phase.*/\1/p')
cost=$(echo "$line" | sed -n 's/.*programs cost \([0-9.]*\)% of one CPU.*/\1/p')
[ "${phases:-0}" -gt 0 ] || fail "--time-budget 2 on a ping-pong was not duty-cycled: $line"
awk -v c="$cost" 'BEGIN { exit !(c <= 2.5) }' || fail "the duty-cycled accounting cost $cost% of a CPU, over the 2% budget"
a=$(thread_s full) b=$(thread_s duty)
echo "thread-s/s per window: watched all the time $a, duty-cycled $b"
awk -v a="$a" -v b="$b" 'BEGIN { exit !(a > 0 && b / a > 0.85 && b / a < 1.15) }' ||
	fail "the duty-cycled windows hold $b thread-s/s against $a watched all the time"
pgrep -x spinner >/dev/null && fail "the spinner load was left running"
echo "victim_duty: ok"
