#!/bin/sh
# real_stress_vm — live smoke test of the real-software scenario stress_vm (mm;
# tests/real/scenarios, tests/real/smoke/real.inc): a verdict in the right subsystem
. "$(dirname "$0")/../../lib.sh"
. "$(dirname "$0")/real.inc"
real_smoke stress_vm
