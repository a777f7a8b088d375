#!/bin/sh
# Sessions say who the processes were and which were diagnosed (issues 11
# and 15): a diagnosis of a load that displaces a CPU-saturating background
# is recorded; the session names the load and the background (command line,
# executable, cgroup, read from /proc while they ran) and carries the
# diagnosed set; a replay's own analysis of the recorded windows (the
# session without its verdict line, as export recomputes it) reports the
# same displaced processes as the live run; the JSON export has the
# identities.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd jq
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
[ -x "$BUILD/scenarios/fileread" ] || skip "no scenario loads; run make"

S="$TMP/s.jsonl"
"$ARGUS" diagnose --batch --json --background "$BUILD/scenarios/noisy --threads $(nproc)" \
	--load "$BUILD/scenarios/fileread --mode pread" --session "$S" >"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/err"
[ $rc -eq 0 ] || fail "diagnose exited $rc"
live=$(jq -c '[.verdict.displaced[].process] | sort' "$TMP/out")
echo "live displaced: $live"
# who they were, as /proc showed them while they ran
jq -e -s '[.[] | select(.type == "window") | .procs // [] | .[] |
	select(.comm == "fileread" and (.cmdline | test("fileread --mode pread")) and
	       (.exe | endswith("/scenarios/fileread")) and (.cgroup | length > 0))] | length == 1' \
	"$S" >/dev/null || fail "the session does not name the load (once, with its command line)"
jq -e -s '[.[] | select(.type == "window") | .procs // [] | .[] |
	select(.comm == "noisy" and (.cmdline | test("noisy --threads")))] | length == 1' \
	"$S" >/dev/null || fail "the session does not name the background"
jq -e -s '[.[] | select(.type == "window" and .cond == "load") | .diag |
	select(.all == false and (.tgids | length) >= 1)] | length >= 1' "$S" >/dev/null ||
	fail "the loaded windows do not carry the diagnosed set"
# the replay's analysis: the same displaced processes
grep -v '"type":"verdict"' "$S" >"$TMP/nov.jsonl"
"$ARGUS" export "$TMP/nov.jsonl" --format json >"$TMP/x.json" || fail "export failed"
jq -e '.verdict_from == "descent over the recorded windows"' "$TMP/x.json" >/dev/null ||
	fail "export did not recompute the verdict"
rep=$(jq -c '[.verdict.displaced[].process] | sort' "$TMP/x.json")
echo "replay displaced: $rep"
[ "$live" = "$rep" ] || fail "replay's displaced work $rep is not the live run's $live"
jq -e '[.verdict.displaced[] | select(.process | startswith("noisy ["))] | length >= 1' \
	"$TMP/x.json" >/dev/null || fail "replay does not report the background as displaced"
jq -e '[.processes[] | select(.comm == "fileread" and .diagnosed and
	(.identity.cmdline | test("fileread")))] | length == 1' "$TMP/x.json" >/dev/null ||
	fail "the JSON export lacks the load's identity"
exit 0
