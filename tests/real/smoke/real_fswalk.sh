#!/bin/sh
# real_fswalk — live smoke test of the real-software scenario fswalk (fs;
# tests/real/scenarios, tests/real/smoke/real.inc): a verdict in the right subsystem.
# /usr's directory blocks are read once first: in a full run the earlier
# tests (and this machine's DAMON) evict them, and a cold first pass is
# block I/O under getdents64 alone, decided within two pairs (a full run
# of session 14: "block: ... > vp_notify > iowrite16 28%").  That cold pass
# is issue 23 item 4 (a load not yet steady), which the bench
# (tests/bench/scenarios.sh --real) still meets as it comes; this test is
# about the warm walk's subsystem.
. "$(dirname "$0")/../../lib.sh"
. "$(dirname "$0")/real.inc"
find /usr -xdev -printf '%s\n' >/dev/null 2>&1
real_smoke fswalk
