#!/bin/sh
# real_depth — argus right at depth on real Debian software (issue 23):
# `argus diagnose` on three real-software scenarios of tests/real/scenarios
# (fio's buffered writes: fs; stress-ng's page faults: mm; a Redis server
# under redis-benchmark: net, its TCP send reached through write(2) and
# sendto(2)), each asserting that perf's ground-truth frame is on the
# verdict path (tests/real/smoke/real.inc: real_depth).  It asserts the
# path, never a timing, so it holds on a quiet and a busy machine.  All
# three run; any wrong one is a FAIL with its verdict.  SKIPPED when a
# program is missing (make deps installs them) or without root.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/real/smoke/real.inc"
need_root
need_cmd jq
need_built "$ARGUS"
failed= ran=0
for name in ${REAL_DEPTH:-fio_bufwrite stress_vm redis}; do
	( real_depth "$name" )
	case $? in
	0) ran=$((ran + 1)) ;;
	77) echo "$name: skipped" ;;
	*) failed="$failed $name"; ran=$((ran + 1)) ;;
	esac
done
[ -z "$failed" ] || fail "wrong at depth:$failed (load average $(cut -d' ' -f1-3 /proc/loadavg))"
[ "$ran" -ge 2 ] || skip "only $ran real program(s) ran, two are needed (make deps installs them)"
echo "real_depth: $ran real programs right at depth (load average $(cut -d' ' -f1-3 /proc/loadavg))"
