#!/bin/sh
# A continuous recorder's memory on the live kernel (issue 21, item 5):
# `argus record --push URL --every 1` against the loopback push stub, over
# a load whose keys never stop changing (scenarios/keychurn: a new process
# name every PERIOD_MS, default 10 ms: a host's process churn, sped up),
# with --forget 60 (the default) and --forget 0 (the recorder before it)
# side by side.  Prints argus's RSS (VmRSS) every STEP seconds, the peak
# (VmHWM) and the summary's losses.  Root.
#   SECS=600 STEP=60 PERIOD_MS=10 sh tests/bench/record_rss.sh
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/push_lib.sh"
need_root
[ -x "$BUILD/scenarios/keychurn" ] || skip "no $BUILD/scenarios/keychurn; run make"
SECS=${SECS:-600} STEP=${STEP:-60} PERIOD_MS=${PERIOD_MS:-10}
pstub_start

kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status" 2>/dev/null; }

run() { # FORGET
	"$ARGUS" record --duration "$SECS" --push "http://127.0.0.1:$PPORT" --every 1 --forget "$1" \
		-- "$BUILD/scenarios/keychurn" --seconds $((SECS + 60)) --period-ms "$PERIOD_MS" \
		>/dev/null 2>"$TMP/err.$1" &
	a=$!
	line="--forget $1:"
	t=0
	while [ $t -lt "$SECS" ]; do
		sleep "$STEP"
		t=$((t + STEP))
		r=$(kb $a VmRSS)
		[ -n "$r" ] && line="$line ${t}s ${r}KB" && hwm=$(kb $a VmHWM)
	done
	wait $a
	echo "$line; peak ${hwm}KB"
	sed -n 's/.*kernel samples in .*dropped \([0-9]*\) (colliding stacks \([0-9]*\), map full \([0-9]*\).*distinct stacks.*/  lost \1 samples (collisions \2, map full \3)/p; s/^argus: \(forgot .*\)/  \1/p' "$TMP/err.$1"
}

echo "keychurn: a new name every $PERIOD_MS ms; $SECS s each; load average $(cut -d' ' -f1-3 /proc/loadavg)"
run 60
run 0
