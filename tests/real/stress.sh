#!/bin/sh
# stress.sh — a stress-ng stressor until killed: stress.sh STRESSOR N [ARGS]
# e.g. "stress.sh cpu 4" (four CPU hogs: the aggressor of redis_victim),
# "stress.sh vm 2 --vm-bytes 64M" (mm: anonymous faults of mmap'd memory),
# "stress.sh futex 2" (locking).  stress-ng's temporary files go to the
# scratch directory.
. "$(dirname "$0")/lib.sh"
real_need stress-ng
[ $# -ge 2 ] || real_die "usage: stress.sh STRESSOR N [stress-ng options]"
s=$1 n=$2
shift 2
real_scratch
real_bg stress-ng --"$s" "$n" --temp-path "$REAL_SCR" --timeout 0 --quiet "$@"
real_wait
