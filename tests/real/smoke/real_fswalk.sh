#!/bin/sh
# real_fswalk — live smoke test of the real-software scenario fswalk (fs;
# tests/real/scenarios, tests/real/smoke/real.inc): a verdict in the right subsystem
. "$(dirname "$0")/../../lib.sh"
. "$(dirname "$0")/real.inc"
real_smoke fswalk
