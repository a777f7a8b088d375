#!/bin/sh
# real_samefile_victim — live smoke test of the real-software scenario samefile_victim (locking;
# tests/real/scenarios, tests/real/smoke/real.inc): a verdict in the right subsystem
. "$(dirname "$0")/../../lib.sh"
. "$(dirname "$0")/real.inc"
real_smoke samefile_victim
