#!/bin/sh
# argus model against the 3-tier scenario (tests/scenarios/tier3):
#  1. prediction: for N clients, the model built at N (--mark 'steady begin',
#     calibrated at N) predicts the throughput at N and, with --what-if
#     clients=2x, at 2N; both are compared with tier3 run alone (no probe)
#     at N and 2N, in the same round, interleaved.  Targets: within 5% at N,
#     within 15% at 2N.
#  2. overhead of the causality program: tier3 as a message ping-pong (no
#     think time, no CPU work, no lock, no I/O) alone and under argus model,
#     interleaved; the ratio of throughputs, and the probe's own BPF run
#     time in % of one CPU (the step budget of the per-event kinds is 5%).
# The machine is shared: say so with the numbers (load average printed).
#   ROUNDS (default 2)  SECS per run (default 6)  THINK (ms, default 10)
cd "$(dirname "$0")/../.." || exit 2
ROOT=${ROOT:-$(pwd)}
ARGUS=${ARGUS:-$ROOT/argus}
BUILD=${BUILD:-$ROOT/build}
T3="$BUILD/scenarios/tier3"
ROUNDS=${ROUNDS:-2}
SECS=${SECS:-6}
THINK=${THINK:-10}
TMP=$(mktemp -d /tmp/argus-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

if [ "$(id -u)" != 0 ]; then echo "SKIPPED: model needs root"; exit 0; fi
[ -x "$T3" ] && [ -x "$ARGUS" ] || { echo "model: run make first" >&2; exit 1; }
command -v python3 >/dev/null || { echo "model: needs python3" >&2; exit 1; }

alone() { # clients -> ops/s of tier3 without argus
	"$T3" --clients "$1" --seconds "$SECS" --think-ms "$THINK" --warmup 1 2>/dev/null |
		sed -n 's/.*ops_per_sec=\([0-9.]*\).*/\1/p'
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (shared by other work)"
echo "command: ROUNDS=$ROUNDS SECS=$SECS THINK=$THINK sh tests/bench/model.sh"
printf '%-3s %-5s %10s %10s %7s %10s %10s %7s\n' N round "alone N" "model N" "err N" "alone 2N" "pred 2N" "err 2N"
for n in 1 2 4; do
	for r in $(seq 1 "$ROUNDS"); do
		a1=$(alone "$n")
		"$ARGUS" model --duration "$SECS" --mark 'steady begin' --format json --what-if clients=2x -- \
			"$T3" --clients "$n" --seconds $((SECS + 2)) --think-ms "$THINK" --warmup 1 \
			>"$TMP/m.json" 2>"$TMP/err" || { tail -3 "$TMP/err"; continue; }
		a2=$(alone $((2 * n)))
		python3 - "$TMP/m.json" "$n" "$r" "$a1" "$a2" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); n, r, a1, a2 = sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
x1, x2 = m["throughput"], m["prediction"]["throughput"]
print("%-3s %-5s %10.1f %10.1f %+6.1f%% %10.1f %10.1f %+6.1f%%" % (n, r, a1, x1, (x1 - a1) / a1 * 100,
      a2, x2, (x2 - a2) / a2 * 100))
PY
	done
done

echo
echo "overhead on a message-heavy load (tier3 --think-ms 0, no CPU work, lock or I/O; 2 clients)"
msg="--clients 2 --think-ms 0 --front-us 0 --back-us 0 --lock-us 0 --io 0 --warmup 1"
printf '%-5s %12s %12s %8s %14s\n' round "alone ops/s" "model ops/s" ratio "probe %CPU"
for r in $(seq 1 "$ROUNDS"); do
	a=$("$T3" $msg --seconds "$SECS" | sed -n 's/.*ops_per_sec=\([0-9.]*\).*/\1/p')
	"$ARGUS" model --duration $((SECS + 1)) -- "$T3" $msg --seconds "$SECS" >/dev/null 2>"$TMP/err"
	b=$(sed -n 's/.*ops_per_sec=\([0-9.]*\).*/\1/p' "$TMP/err")
	c=$(sed -n 's/.*probe cost \([0-9.]*\)% of one CPU.*/\1/p' "$TMP/err")
	awk -v r="$r" -v a="$a" -v b="$b" -v c="$c" 'BEGIN { printf "%-5s %12.0f %12.0f %8.3f %13s%%\n", r, a, b, (a > 0 ? b / a : 0), c }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
