#!/bin/sh
# A load that fails is reported as failed (issue 24 item 5): `argus
# diagnose` whose load ends on its own with status 3 after a few windows
# still prints its verdict, says "the load failed: exited (3)" and exits 6
# (man argus, EXIT STATUS); the load's own output (its error line, dd's
# throughput line) reaches stderr.  The same load ending with 0 exits 0 and
# keeps its output too.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd dd
need_cmd jq
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"

# long enough for a pair of windows on any machine (the sleep: dd alone
# may end within the start-up, 0.14 s here), then an error of its own
LOAD="dd if=/dev/zero of=/dev/null bs=1M count=6000; sleep 2; echo load-said-boom >&2; exit"
"$ARGUS" diagnose --load "sh -c '$LOAD 3'" > "$TMP/fail.json" 2> "$TMP/fail.err"
rc=$?
cat "$TMP/fail.err"
if grep -q "before a reference/loaded pair was measured" "$TMP/fail.err"; then
	# the machine ran dd too fast for one pair: a failure before a pair
	# is still the load's failure (exit 6; tests/live/load_failed_startup.sh)
	[ $rc -eq 6 ] || fail "a load failed before one pair: exit $rc, not 6"
	skip "dd ended before one reference/loaded pair; the failed-load case did not run"
fi
[ $rc -eq 6 ] || fail "a load that exited 3: argus exited $rc, not 6"
grep -q "load-said-boom" "$TMP/fail.err" || fail "the load's error line is not on stderr"
grep -q "the load failed: exited (3)" "$TMP/fail.err" || fail "stderr does not say the load failed"
jq -e '.verdict' "$TMP/fail.json" >/dev/null || fail "no verdict printed for the failed run"

"$ARGUS" diagnose --load "sh -c '$LOAD 0'" > "$TMP/ok.json" 2> "$TMP/ok.err"
rc=$?
[ $rc -eq 0 ] || { cat "$TMP/ok.err"; fail "a load that exited 0: argus exited $rc"; }
grep -q "copied" "$TMP/ok.err" || fail "dd's throughput line is not on stderr"
grep -q "the load failed" "$TMP/ok.err" && fail "a load that exited 0 is called failed"
echo ok
