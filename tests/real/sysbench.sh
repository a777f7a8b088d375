#!/bin/sh
# sysbench.sh — a sysbench test until killed: sysbench.sh TEST [ARGS]
# e.g. "sysbench.sh threads --threads=8" (sched: threads yielding around
# mutexes, sched_yield).
. "$(dirname "$0")/lib.sh"
real_need sysbench
[ $# -ge 1 ] || real_die "usage: sysbench.sh TEST [sysbench options]"
t=$1
shift
real_scratch
cd "$REAL_SCR" || exit 1
real_bg sysbench "$t" --time=0 --events=0 "$@" run
real_wait
