#!/bin/sh
# kinds_block — tracepoint_latency keyed by request, block:block_rq_issue ->
# block:block_rq_complete, under dd oflag=direct writes: more than 10
# requests complete and the p50 is at least 1 us.  It needs a file system
# that takes O_DIRECT at /var/tmp (or $ARGUS_TEST_DIRECT_DIR): without one it
# is SKIPPED with that reason, never passed silently.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/kinds.inc"

dir=${ARGUS_TEST_DIRECT_DIR:-/var/tmp}
ddf=$dir/argus-kinds-dd.$$
dd if=/dev/zero of=$ddf bs=4k count=1 oflag=direct 2>"$TMP/dd.err" ||
	{ rm -f $ddf; skip "no O_DIRECT-writable file system at $dir ($(head -n 1 "$TMP/dd.err")); set ARGUS_TEST_DIRECT_DIR"; }
( end=$(($(date +%s) + 120)); while [ "$(date +%s)" -lt $end ]; do
	dd if=/dev/zero of=$ddf bs=64k count=32 oflag=direct 2>/dev/null; done; rm -f $ddf ) &
dd_loop=$!; pids="$pids $dd_loop"   # (120 s, ended here: the driver's set-up outlasts 20 s on a busy machine)
sleep 0.2
"$RUN" '{"kind":"tracepoint_latency","begin":"block:block_rq_issue","end":"block:block_rq_complete","duration_s":1}' 1.5 >"$TMP/blk" ||
	{ cat "$TMP/blk"; fail "tracepoint_latency block: driver failed"; }
cut -c1-200 "$TMP/blk"
kill $dd_loop 2>/dev/null; wait $dd_loop 2>/dev/null; rm -f $ddf
n=$(val t0.events "$TMP/blk"); p50=$(val t0.p50_ns "$TMP/blk")
[ "${n:-0}" -gt 10 ] || fail "block_rq_issue/complete: only ${n:-0} requests completed under dd oflag=direct"
[ "${p50:-0}" -ge 1024 ] || fail "block_rq_issue/complete: p50 ${p50:-0} ns is implausibly short"
echo "kinds_block: $n requests, p50 $p50 ns"
