#!/bin/sh
# Cost of continuous push: `argus record` at 999 Hz system-wide with a
# page-fault load on every CPU, alone and with --push --every 1 to the
# loopback stub (Pyroscope and Parca forms), conditions interleaved in one
# run.  What counts is argus's own CPU time (user + system, from getrusage
# of the child) per second of recording: the sampling itself (the BPF
# program, charged to the interrupted tasks) is the same in every row, so
# the difference between rows is what pushing costs — encoding each
# interval's pprof, gzip, base64 for Parca, and the HTTP request.
#   ROUNDS (default 3)  SECS per run (default 10)
cd "$(dirname "$0")/../.." || exit 2
ROOT=${ROOT:-$(pwd)}
ARGUS=${ARGUS:-$ROOT/argus}
BUILD=${BUILD:-$ROOT/build}
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-10}
TMP=$(mktemp -d /tmp/argus-bench.XXXXXX)
STUB=""
LOADP=""
trap 'kill $STUB $LOADP 2>/dev/null; rm -rf "$TMP"' EXIT
if [ "$(id -u)" != 0 ]; then echo "SKIPPED: push bench needs root"; exit 0; fi
[ -x "$ARGUS" ] && [ -x "$BUILD/scenarios/pagefault" ] || { echo "push: run make first" >&2; exit 1; }
python3 "$ROOT/tests/push_stub.py" --port 0 >"$TMP/stub.out" 2>/dev/null &
STUB=$!
i=0
while [ ! -s "$TMP/stub.out" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
PORT=$(head -n 1 "$TMP/stub.out")
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
"$BUILD/scenarios/pagefault" --procs "$(nproc)" --seconds $((ROUNDS * SECS * 3 + 30)) >/dev/null 2>&1 &
LOADP=$!
sleep 1

run() { # cond -> "cpu_seconds samples"
	case $1 in
	alone) set -- ;;
	pyroscope) set -- --push "http://127.0.0.1:$PORT" --every 1 ;;
	parca) set -- --push "parca+http://127.0.0.1:$PORT" --every 1 ;;
	esac
	python3 -c '
import resource, subprocess, sys
p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
n = [l.split()[1] for l in p.stderr.splitlines() if " kernel samples in " in l]
sent = [l for l in p.stderr.splitlines() if "profiles sent" in l or "profile sent" in l]
print("%.3f %s %s" % (r.ru_utime + r.ru_stime, n[0] if n else 0, "1" if sent or len(sys.argv) < 8 else "0"))
' "$ARGUS" record -d "$SECS" -F 999 "$@"
}

conds="alone pyroscope parca"
for r in $(seq 1 "$ROUNDS"); do
	for c in $conds; do
		set -- $(run $c)
		echo "$c $1 $2 $3" >>"$TMP/res"
	done
	conds="$(echo $conds | awk '{ print $2, $3, $1 }')"
done
kill $LOADP 2>/dev/null
awk -v secs="$SECS" '
{ cpu[$1] += $2; n[$1]++; smp[$1] += $3 }
END {
	printf "%-10s %8s %14s %12s %16s\n", "condition", "runs", "samples/s", "argus %CPU", "push cost %CPU"
	base = cpu["alone"] / n["alone"] / secs * 100
	split("alone pyroscope parca", order, " ")
	for (k = 1; k <= 3; k++) {
		c = order[k]
		pc = cpu[c] / n[c] / secs * 100
		printf "%-10s %8d %14.0f %12.3f %16s\n", c, n[c], smp[c] / n[c] / secs, pc,
			c == "alone" ? "-" : sprintf("%+.3f", pc - base)
	}
}' "$TMP/res"
echo "(argus %CPU: argus's user+system time per second of recording, % of one CPU; the"
echo " machine is shared: other processes change the sample rate, and so argus's work)"
