#!/bin/sh
# schedtime — the scheduler-time programs' cost on their worst load, a pipe
# ping-pong (a context switch and a wakeup every few microseconds):
# throughput alone and with bpf/schedtime.bpf.c attached, interleaved in one
# run (ROUNDS rounds of SECS s each), tracking every task (as core/model
# runs it) and tracking only the ping-pong (as the wall-clock tree tracks a
# victim).  ns/switch: the time the load lost per context switch, from the
# throughputs ((1/with - 1/alone) per round trip, over the switches per
# round trip the probe counted): the programs, their cache misses and the
# tracepoints' dispatch together.
# Target: the per-event step budget (5%, BENCH.md).
cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
BUILD=${BUILD:-$ROOT/build}
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-2}
[ "$(id -u)" = 0 ] || { echo "SKIPPED: schedtime benchmark needs root"; exit 0; }
[ -f "$BUILD/libargus.a" ] || { echo "SKIPPED: run make first"; exit 0; }
TMP=$(mktemp -d /tmp/argus-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
cc -O1 -g -I"$ROOT/core" -I"$BUILD" -I"$ROOT/bpf" -o "$TMP/run" \
	"$ROOT/tests/live/schedtime_run.c" "$BUILD/libargus.a" \
	$(pkg-config --libs libbpf libcjson libcurl) -lelf -lz -lm || { echo "cannot build the driver"; exit 1; }
: >"$TMP/none"; : >"$TMP/all"; : >"$TMP/self"
r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	for m in none all self; do
		"$TMP/run" pingpong "$SECS" $([ $m = none ] || echo $m) >"$TMP/out" 2>&1 ||
			{ cat "$TMP/out"; exit 1; }
		sed -n 's/^ops_per_sec //p' "$TMP/out" >>"$TMP/$m"
		sed -n 's/^events \([0-9]*\) .*/\1/p' "$TMP/out" >>"$TMP/$m.ev"
	done
done
med() { sort -n "$1" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
none=$(med "$TMP/none")
echo "load: pipe ping-pong, $ROUNDS rounds of $SECS s interleaved; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-22s %12s %12s %8s %8s %10s\n' tracking alone with ratio target ns/switch
for m in all self; do
	w=$(med "$TMP/$m")
	sw=$(awk -v s="$SECS" -v w="$w" '{ e += $1 } END { printf "%.3f", (e / NR) / (w * s) }' "$TMP/$m.ev")
	ns=$(awk -v a="$none" -v b="$w" -v k="$sw" 'BEGIN { printf "%.0f", (k > 0 ? (1 / b - 1 / a) * 1e9 / k : 0) }')
	printf '%-22s %12s %12s %8s %8s %10s\n' "$m" "$none" "$w" \
		"$(awk -v a="$w" -v b="$none" 'BEGIN { printf "%.3f", b ? a / b : 0 }')" 5% "$ns"
done
