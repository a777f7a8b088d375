#!/bin/sh
# real_sqlite_commit — live smoke test of the real-software scenario sqlite_commit (fs;
# tests/real/scenarios, tests/real/smoke/real.inc): a verdict in the right subsystem
. "$(dirname "$0")/../../lib.sh"
. "$(dirname "$0")/real.inc"
real_smoke sqlite_commit
