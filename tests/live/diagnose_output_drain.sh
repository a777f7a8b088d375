#!/bin/sh
# diagnose_output_drain — with --mark the load's stdout is a pipe argus reads
# (the mark is looked for in it); the steps of `diagnose --auto` run against
# the same load after the measurement, so argus must keep reading then: a
# load whose pipe fills (64 KiB) blocks at its next write, and every step
# would measure a stopped load.  The load here waits until the session says
# a step was decided, writes 2 MiB in one go, then leaves a file: the file
# must be there when diagnose ends (before the fix it never was: the write
# blocked until the load was ended).
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd jq
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
PF="$BUILD/scenarios/pagefault"
[ -x "$PF" ] || skip "no $PF; run make"

cat >"$TMP/load.sh" <<EOS
echo "steady begin"
"$PF" --seconds 120 &
while ! grep -q '"type":"decision"' "$TMP/s.jsonl" 2>/dev/null; do sleep 0.05; done
head -c 2097152 /dev/zero | tr '\\0' x
echo
touch "$TMP/wrote"
wait
EOS
"$ARGUS" diagnose --batch --json --auto --steps 1 --budget 400 --time wall --mark 'steady begin' \
	--pairs 2 --window 0.5 --session "$TMP/s.jsonl" -- sh "$TMP/load.sh" >"$TMP/out.json" 2>"$TMP/err" ||
	{ tail -20 "$TMP/err" | cut -c1-200; fail "diagnose --auto --mark failed"; }
grep -v '^load: ' "$TMP/err" | cut -c1-200 | tail -n 15
grep -q '"type":"decision"' "$TMP/s.jsonl" ||
	fail "no step was decided on a page-fault load (the heuristic always proposes one after a calibration that finds the rise)"
jq -e '.steps | length >= 1' "$TMP/out.json" >/dev/null || fail "the session has a decision but the JSON no step"
[ -e "$TMP/wrote" ] || fail "the load's 2 MiB write never finished during the step: argus stopped reading its output pipe"
n=$(grep -c '^load: xxxx' "$TMP/err")
[ "$n" -ge 1 ] || fail "the load's long line is not in the log"
pgrep -f "$TMP/load.sh" >/dev/null && fail "the load is still running"
echo "ok: the load wrote 2 MiB during the step and finished; its line is in the log"
