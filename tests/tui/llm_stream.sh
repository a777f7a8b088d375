#!/bin/sh
# Live (root): the LLM agent's reply streams into the agent pane, and Esc
# cancels a turn in flight without leaving argus.  `argus --agent llm` on a
# real load (build/scenarios/pagefault) against tests/llm_stub.py scripted by
# tests/data/llm/stream_openai.json:
#  1. the first reply streams slowly (llama-server's dialect: thinking in
#     reasoning_content first, shown as "model thinking"; then text in
#     8-character pieces 0.25 s apart, then the proposal's tool arguments): a screen shows the text's
#     first marker (STREAMFIRST) but not its last (STREAMLAST) with the
#     "thinking… N s (Esc cancels)" line; then "proposing a step… N bytes";
#     then the proposal card and the turn's "llm: X s, 1500 tokens in, 120
#     out" line.
#  2. r: the second reply is delayed 60 s; Esc -> "cancelled" in the
#     transcript, argus still running; r asks again -> the third reply (a
#     proposal again) with its own accounting line; q -> a sane exit.
# The API key is in no file argus wrote and never on screen.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/llm_lib.sh"
need_root
need_cmd curl
need_cmd jq
. "$(dirname "$0")/tmux.inc"
need_scenario PF pagefault

argus_pid() { pgrep -o -f -- "$ARGUS --agent llm --load $PF --seconds 120"; } # -o: the oldest, not its load guard (same command line)
SHOTS="$TMP/screens.txt"   # every screen looked at, for the canary check
shot() { screen | tee -a "$SHOTS"; }

stub_start
stub_script "$ROOT/tests/data/llm/stream_openai.json"
llm_env openai
# ARGUS_LLM_* (llm_env, exported) reach argus through the tmux server's
# environment: run.sh must not hold the key
start 120 60 LANG=C.UTF-8 TERM=xterm-256color -- --agent llm --load "$PF --seconds 120" --pairs 3 --no-session

# ---- 1: the reply streams in ----------------------------------------------------------
# the first reply speaks llama-server's dialect: its thinking comes first,
# in reasoning_content, and is shown as the model's thinking, apart
wait_long "THINKMARK" 60
shot | grep -q 'model thinking ([0-9]* bytes): .*THINKMARK' ||
	fail "the model's thinking is not shown as such while it streams"
wait_long STREAMFIRST 60
shot >"$TMP/partial.txt"
cat "$TMP/partial.txt"
grep -q STREAMLAST "$TMP/partial.txt" &&
	fail "the first marker appeared only with the last: the reply did not stream"
grep -Eq 'thinking… [0-9]+ s \(Esc cancels\)' "$TMP/partial.txt" ||
	fail "no 'thinking… N s (Esc cancels)' line while the reply streams"
wait_long "proposing a step… " 30
shot | grep -Eo 'proposing a step… [0-9]+ bytes' | head -n 1 ||
	fail "the tool arguments' bytes are not counted"
wait_long "proposal · step 1 (run 1 of at most" 30
wait_for "1500 tokens in, 120 out"
shot | grep -E 'llm: [0-9.]+ s, 1500 tokens in, 120 out' ||
	fail "the turn's latency and tokens are not in the transcript"
screen | grep -q 'thinking…' && fail "the thinking line stays after the reply"
# the hypothesis ledger the reply opened is shown in the pane
shot | grep -q 'anonymous page faults: open' || fail "the hypothesis ledger is not in the agent pane"

# ---- 2: Esc cancels the turn in flight -----------------------------------------------
keys r
wait_for "(Esc cancels)"
apid=$(argus_pid)
[ -n "$apid" ] || fail "cannot find argus's pid"
keys Escape
wait_for "cancelled the agent's turn (r asks again)"
wait_gone "(Esc cancels)"
shot >/dev/null
sleep 1
kill -0 "$apid" 2>/dev/null || fail "argus is gone after Esc"
screen | grep -q 'ARGUS-EXIT' && fail "argus exited after Esc"
keys r
wait_long "proposal · step 1 (run 1 of at most" 30
screen | grep -q ASKEDAGAIN || fail "the third reply (after r) is not on screen"
wait_for "1900 tokens in, 160 out"
shot | grep -E 'llm: [0-9.]+ s, 1900 tokens in, 160 out' ||
	fail "the third turn's accounting is not in the transcript"
keys q
expect_sane_exit
shot >/dev/null
mkdir -p "$TMP/stub"
stub_log "$TMP/stub/requests.json"
[ "$(jq length "$TMP/stub/requests.json")" -eq 3 ] ||
	fail "expected 3 LLM requests (stream, cancelled, asked again), got $(jq length "$TMP/stub/requests.json")"
canary_check
echo "the reply streamed (partial screen before the end), Esc cancelled, r asked again"
