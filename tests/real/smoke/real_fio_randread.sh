#!/bin/sh
# real_fio_randread — live smoke test of the real-software scenario fio_randread (block;
# tests/real/scenarios, tests/real/smoke/real.inc): a verdict in the right subsystem
. "$(dirname "$0")/../../lib.sh"
. "$(dirname "$0")/real.inc"
real_smoke fio_randread
