#!/bin/sh
# groundtruth.sh — the ground truth of a real-software scenario, by perf
# and not by argus (tests/real/README says which scenario used which):
#   groundtruth.sh cpu COMMS 'LOAD'            on-CPU: perf record -a -g
#       (cpu-clock, 499 Hz, 8 s after 3 s of the load), then perf's own
#       callee view: perf report --children --sort sym for the load's
#       commands (COMMS, comma-separated), kernel symbols, heaviest first.
#       Run it with no load too ('true') for the reference.
#   groundtruth.sh switch COMMS 'LOAD'         blocked: perf record -e
#       sched:sched_switch -g -a, the switch-out stacks of COMMS by symbol
#       (how often each path blocks; the callee view again)
#   groundtruth.sh comm - 'LOAD'               who holds the CPUs: perf
#       report --sort comm of a cpu-clock recording
# LOAD is run as REAL_SECONDS=14 sh -c 'LOAD' from this directory.
set -u
[ $# -eq 3 ] || { echo "usage: groundtruth.sh cpu|switch|comm COMMS 'LOAD'" >&2; exit 2; }
mode=$1 comms=$2 load=$3
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d /tmp/argus-gt.XXXXXX)
trap 'rm -rf "$out"' EXIT
(cd "$here" && REAL_SECONDS=14 exec sh -c "$load") &
lp=$!
sleep 3
case $mode in
cpu|comm) perf record -q -a -g -F 499 -o "$out/p" -- sleep 8 >/dev/null 2>&1 ;;
switch) perf record -q -a -g -e sched:sched_switch -o "$out/p" -- sleep 8 >/dev/null 2>&1 ;;
*) echo "groundtruth.sh: unknown mode $mode" >&2; exit 2 ;;
esac
wait "$lp"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
case $mode in
comm) perf report -i "$out/p" --sort comm --stdio -g none 2>/dev/null | grep -v "^#" | grep . | head -n 15 ;;
*) perf report -i "$out/p" --comms "$comms" --children --sort sym --stdio -g none 2>/dev/null |
	grep '\[k\]' | grep -v ' 0x' | head -n 40 ;;
esac
