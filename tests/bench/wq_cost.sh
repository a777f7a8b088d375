#!/bin/sh
# Cost of the workqueue tracepoint that names kworkers during the sampling
# measurement (core/probe/probe_workqueue.c, run by core/measure/measure_live.c): its BPF
# program's run time per work item and as a share of one CPU, from the BPF
# run-time statistics (kernel.bpf_stats_enabled, turned on for the run and
# restored after), which argus prints when the sampler closes.  Three
# conditions, each `argus diagnose --fixed` over PAIRS pairs of WINDOW s:
#   idle        the load sleeps (the machine's own work items)
#   refresh-bg  one /proc/sys/vm/stat_refresh writer per CPU in every window
#               (--background: schedule_on_each_cpu in a loop, the heaviest
#               work-item rate a user can cause cheaply)
#   refresh     the same as the load: running in the loaded windows only
# The budget it is held to: 2% of one CPU (the sample kind's).
#   ROUNDS (default 2)  PAIRS (default 3)  WINDOW (default 1)
cd "$(dirname "$0")/../.." || exit 2
ROOT=${ROOT:-$(pwd)}
ARGUS=${ARGUS:-$ROOT/argus}
ROUNDS=${ROUNDS:-2}
PAIRS=${PAIRS:-3}
WINDOW=${WINDOW:-1}
if [ "$(id -u)" != 0 ]; then echo "SKIPPED: wq_cost needs root"; exit 0; fi
[ -x "$ARGUS" ] || { echo "wq_cost: run make first" >&2; exit 1; }
[ -w /proc/sys/vm/stat_refresh ] || { echo "SKIPPED: no writable /proc/sys/vm/stat_refresh"; exit 0; }
TMP=$(mktemp -d /tmp/argus-bench.XXXXXX)
old=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -q kernel.bpf_stats_enabled="$old"; rm -rf "$TMP"' EXIT
sysctl -q kernel.bpf_stats_enabled=1 || { echo "SKIPPED: cannot turn on kernel.bpf_stats_enabled"; exit 0; }
echo "workqueue tracepoint cost: $(nproc) CPUs, $(uname -r), $PAIRS pairs of ${WINDOW}s, $ROUNDS rounds"
printf '%-6s %-11s %12s %10s %12s %12s\n' round condition "work items" "items/s" "us/item" "% of a CPU"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	for c in idle refresh-bg refresh; do
		case $c in
		idle) set -- --load "sleep 600" ;;
		refresh-bg) set -- --load "sleep 600" --background "$ROOT/tests/data/stat-refresh.sh" ;;
		refresh) set -- --load "$ROOT/tests/data/stat-refresh.sh" ;;
		esac
		"$ARGUS" diagnose --batch --fixed --pairs "$PAIRS" --window "$WINDOW" "$@" \
			>/dev/null 2>"$TMP/err"
		sed -n 's/.*workqueue tracepoint: \([0-9]*\) work items in [0-9.]* s (\([0-9]*\)\/s), \([0-9.]*\) us each, \([0-9.]*\)% of one CPU.*/\1 \2 \3 \4/p' \
			"$TMP/err" | awk -v r="$r" -v c="$c" '{ printf "%-6s %-11s %12s %10s %12s %12s\n", r, c, $1, $2, $3, $4; f = 1 }
			END { if (!f) printf "%-6s %-11s %12s\n", r, c, "(no cost line: the probe did not load?)" }'
	done
	r=$((r + 1))
done
echo "budget: 2% of one CPU (the sample kind's); the share is over the whole measurement"
