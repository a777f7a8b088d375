#!/bin/sh
# real_redis_victim — live smoke test of the real-software scenario redis_victim (sched;
# tests/real/scenarios, tests/real/smoke/real.inc): a verdict in the right subsystem
. "$(dirname "$0")/../../lib.sh"
. "$(dirname "$0")/real.inc"
real_smoke redis_victim
