#!/bin/sh
# real_sqlite_victim — live smoke test of the real-software scenario sqlite_victim (block;
# tests/real/scenarios, tests/real/smoke/real.inc): a verdict in the right subsystem
. "$(dirname "$0")/../../lib.sh"
. "$(dirname "$0")/real.inc"
real_smoke sqlite_victim
