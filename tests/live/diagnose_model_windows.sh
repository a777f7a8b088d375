#!/bin/sh
# diagnose_model_windows — the model's windows in argus diagnose (batch;
# issue 15 item 4): the 3-tier scenario with --mark 'steady begin' (printed
# after its --warmup) builds the session's model from the windows after the
# mark only, and says which on stderr; the load's output goes to stderr
# ("load: tier3: steady begin"), stdout keeps the JSON; a --mark that never
# matches and a load that never reaches a steady state are said on stderr
# (with the lines read, with the rates) and in the session, the verdict
# still comes (exit 0).
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd jq
need_cmd python3
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
need_scenario T3 tier3

"$ARGUS" diagnose --time wall --fixed --pairs 5 --window 0.5 --session "$TMP/m.jsonl" \
	--mark 'steady begin' -- "$T3" --clients 4 --seconds 60 --think-ms 10 --warmup 2 \
	>"$TMP/out.json" 2>"$TMP/err" || { cat "$TMP/err"; fail "diagnose --mark failed"; }
jq -e .verdict "$TMP/out.json" >/dev/null || fail "stdout is not the JSON verdict"
grep -qF "load: tier3: steady begin" "$TMP/err" || { cat "$TMP/err"; fail "the load's output is not on stderr"; }
line=$(grep -E "^argus: model of the load from marked: 'steady begin' at [0-9.]+ s \.\. end: windows? [0-9]" "$TMP/err") ||
	{ cat "$TMP/err"; fail "stderr does not say the model's windows"; }
echo "$line"
jq -se '[.[] | select(.type == "model")] | length == 1 and (.[0].windows | .first > 1 and .of == 5 and .last - .first + 1 < 5)' \
	"$TMP/m.jsonl" >/dev/null ||
	fail "the session's model keeps the warm-up: $(jq -c 'select(.type == "model") | .windows' "$TMP/m.jsonl")"

# a --mark that never matches: said with the lines read; the verdict comes
"$ARGUS" diagnose --time wall --fixed --pairs 2 --window 0.5 --session "$TMP/n.jsonl" \
	--mark 'no such line' -- "$T3" --clients 2 --seconds 60 --think-ms 10 --warmup 0.2 \
	>"$TMP/out.json" 2>"$TMP/err" || { cat "$TMP/err"; fail "diagnose with an unmatched --mark failed"; }
grep -qE "^argus: no model of the load: --mark 'no such line' never matched the load's output \([1-9][0-9]* lines? read\)" "$TMP/err" ||
	{ cat "$TMP/err"; fail "no never-matched message"; }
jq -se '[.[] | select(.type == "model")] | length == 0' "$TMP/n.jsonl" >/dev/null ||
	fail "a model was saved although the mark never matched"

# never steady: a load whose rate doubles every second of its run (a sleep
# of 10 ms / 2^t; 4.5 s in, 2200 a second, far from what a CPU allows), so
# each loaded window has about twice the last one's.  (A shell loop of
# growing rounds of `sleep 0.001` was capped by its fork rate after a few
# rounds and read as steady on a quiet machine.)
"$ARGUS" diagnose --time wall --fixed --pairs 4 --window 0.5 --no-session --steady --tolerance 0.05 \
	-- python3 -c 'import time
t0 = time.time()
while True:
    time.sleep(0.01 / 2 ** (time.time() - t0))' \
	>"$TMP/out.json" 2>"$TMP/err" || { cat "$TMP/err"; fail "diagnose --steady on an unsteady load failed"; }
grep -qE "^argus: no model of the load: the load never reached a steady state: .*per window:( [0-9]+/[0-9.]+)+; measure more pairs" "$TMP/err" ||
	{ cat "$TMP/err"; fail "no steady-state message with the rates"; }
echo ok
