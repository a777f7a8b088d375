#!/bin/sh
# schedtime — the scheduler-time programs' cost on their worst load, a pipe
# ping-pong (a context switch and a wakeup every few microseconds):
# throughput alone and with bpf/schedtime.bpf.c attached, interleaved in one
# run (ROUNDS rounds of SECS s each), tracking every task (as core/model
# runs it) and tracking only the ping-pong (as the wall-clock tree tracks a
# victim).  Columns: the throughput medians and their ratio (on a machine
# shared with other work this ratio is noisy: other tasks take the CPUs the
# ping-pong bounces between); bpf ns/switch and bpf %cpu: the programs' own
# run time (BPF run-time statistics, measured in extra rounds with them on)
# per sched_switch and as a share of one CPU over the run — the figure noise
# does not blur.
# Target: the per-event step budget (5%, BENCH.md).
cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
BUILD=${BUILD:-$ROOT/build}
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-2}
[ "$(id -u)" = 0 ] || { echo "SKIPPED: schedtime benchmark needs root"; exit 0; }
[ -f "$BUILD/libargus.a" ] || { echo "SKIPPED: run make first"; exit 0; }
TMP=$(mktemp -d /tmp/argus-bench.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
cc -O1 -g -I"$ROOT/core" -I"$BUILD" -I"$ROOT/bpf" -o "$TMP/run" \
	"$ROOT/tests/live/schedtime_run.c" "$BUILD/libargus.a" \
	$(pkg-config --libs libbpf libcjson libcurl) -lelf -lz -lm || { echo "cannot build the driver"; exit 1; }
: >"$TMP/none"; : >"$TMP/all"; : >"$TMP/self"; : >"$TMP/all-stats"; : >"$TMP/self-stats"
r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	for m in none all self all-stats self-stats; do
		"$TMP/run" pingpong "$SECS" $([ $m = none ] || echo $m) >"$TMP/out" 2>&1 ||
			{ cat "$TMP/out"; exit 1; }
		sed -n 's/^ops_per_sec //p' "$TMP/out" >>"$TMP/$m"
		sed -n 's/^events \([0-9]*\) bpf_ns \([0-9]*\) .*/\1 \2/p' "$TMP/out" >>"$TMP/$m.ev"
	done
done
med() { sort -n "$1" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
none=$(med "$TMP/none")
echo "load: pipe ping-pong, $ROUNDS rounds of $SECS s interleaved; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %10s %10s %7s %7s %16s %12s\n' tracking alone with ratio target "bpf ns/switch" "bpf %cpu"
for m in all self; do
	w=$(med "$TMP/$m")
	ns=$(awk '{ e += $1; n += $2 } END { printf "%.0f", (e ? n / e : 0) }' "$TMP/$m-stats.ev")
	cpu=$(awk -v r="$ROUNDS" -v s="$SECS" '{ n += $2 } END { printf "%.1f", n / (r * s * 1e9) * 100 }' "$TMP/$m-stats.ev")
	printf '%-10s %10s %10s %7s %7s %16s %12s\n' "$m" "$none" "$w" \
		"$(awk -v a="$w" -v b="$none" 'BEGIN { printf "%.3f", (b ? a / b : 0) }')" 5% "$ns" "$cpu"
done
