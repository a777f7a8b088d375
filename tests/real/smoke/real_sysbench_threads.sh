#!/bin/sh
# real_sysbench_threads — live smoke test of the real-software scenario sysbench_threads (sched;
# tests/real/scenarios, tests/real/smoke/real.inc): a verdict in the right subsystem
. "$(dirname "$0")/../../lib.sh"
. "$(dirname "$0")/real.inc"
real_smoke sysbench_threads
