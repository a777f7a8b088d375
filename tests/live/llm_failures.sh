#!/bin/sh
# The LLM agent's failures, each with its visible outcome, through the cheap
# driver `argus diff REF LOAD --batch --json --agent llm` (no probes) against
# tests/llm_stub.py with scripted replies (tests/data/llm/): malformed JSON,
# an unknown step kind and a tracepoint that does not exist each get one
# repair turn that quotes the error, then the heuristic agent takes the turn
# and "decisions" says so; an empty reply, a connection closed without a
# reply, HTTP 500 (after the retries), a reply slower than the timeout and a
# refused connection go to the heuristic with the reason; 429 then success
# is retried after Retry-After and the LLM's verdict stands.  The API key is
# in no file argus wrote (session files included) nor in its output.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/llm_lib.sh"
need_cmd jq
need_cmd curl
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
DATA="$ROOT/tests/data"
stub_start
mkdir -p "$TMP/stub" # the stub's request logs hold the key (the auth header)
echo "stub on 127.0.0.1:$PORT"

# run NAME PROVIDER: the diff with the stub scripted by tests/data/llm/NAME.json
run() {
	stub_script "$DATA/llm/$1.json"
	llm_env "$2"
	"$ARGUS" diff "$DATA/ref.folded" "$DATA/load.folded" --batch --json --agent llm \
		--session "$TMP/$1.session" >"$TMP/$1.out" 2>"$TMP/$1.err"
	rc=$?
	stub_log "$TMP/stub/$1.log"
	[ $rc -eq 0 ] || { cat "$TMP/$1.err"; fail "$1: argus diff exited $rc"; }
	jq -e . "$TMP/$1.out" >/dev/null || fail "$1: the output is not JSON"
	echo "$1 ($2): $(jq -r '.decisions[0]' "$TMP/$1.out")"
}

requests() { jq length "$TMP/stub/$1.log"; }

# the heuristic took the turn: the note first in decisions, its verdict, the
# session's llm_turn says fallback
fell_back() {
	jq -e '.decisions[0] | test("; the heuristic agent took this turn$")' "$TMP/$1.out" >/dev/null ||
		fail "$1: decisions[0] does not say the heuristic agent took the turn"
	jq -e '.agent == "llm" and .llm.fallbacks == 1' "$TMP/$1.out" >/dev/null ||
		fail "$1: agent/llm.fallbacks wrong: $(jq -c '{agent, llm}' "$TMP/$1.out")"
	jq -e '.verdict.found and (.verdict.path | index("do_anonymous_page"))' "$TMP/$1.out" >/dev/null ||
		fail "$1: the heuristic's verdict is missing"
	grep '"type":"llm_turn"' "$TMP/$1.session" | grep -q '"status":"fallback"' ||
		fail "$1: the session has no llm_turn with status fallback"
	grep -q 'the heuristic agent took this turn' "$TMP/$1.err" ||
		fail "$1: stderr does not say the turn fell back"
}

# one repair turn, quoting the error (ERE $2) to the LLM
repaired() {
	[ "$(requests "$1")" -eq 2 ] || fail "$1: expected 2 requests (turn + repair), got $(requests "$1")"
	jq -r '.[1].body' "$TMP/stub/$1.log" | jq -r '(.messages[-1].content | if type == "array" then .[0].text else . end)' \
		>"$TMP/$1.repair"
	grep -q '^Your reply could not be used: ' "$TMP/$1.repair" ||
		fail "$1: the second request is not a repair turn: $(head -c 300 "$TMP/$1.repair")"
	grep -Eq "$2" "$TMP/$1.repair" || fail "$1: the repair does not quote the error ($2): $(head -1 "$TMP/$1.repair")"
	jq -e ".decisions[0] | test(\"^llm: reply invalid twice\")" "$TMP/$1.out" >/dev/null ||
		fail "$1: the note does not say the reply was invalid twice"
}

run malformed openai
repaired malformed 'does not parse'
fell_back malformed

run unknown_kind anthropic
repaired unknown_kind 'kprobe_magic'
fell_back unknown_kind

run no_tracepoint openai
repaired no_tracepoint 'page_fault_usr.*(not|unknown|no such)|(not|unknown|no such).*page_fault_usr'
fell_back no_tracepoint

# an empty reply (no text, no tool call) is the server's failure, not a reply
# to repair: no second request, the reason in the note
run empty anthropic
[ "$(requests empty)" -eq 1 ] || fail "empty: expected 1 request, got $(requests empty)"
jq -e '.decisions[0] | test("empty reply")' "$TMP/empty.out" >/dev/null ||
	fail "empty: the note does not say the reply was empty"
fell_back empty

run closed openai
[ "$(requests closed)" -eq 1 ] || fail "closed: expected 1 request, got $(requests closed)"
jq -e '.decisions[0] | test("closed the connection without replying")' "$TMP/closed.out" >/dev/null ||
	fail "closed: the note does not give the reason"
fell_back closed

run server_error openai
[ "$(requests server_error)" -eq 4 ] || fail "server_error: expected 1 + 3 retries, got $(requests server_error)"
jq -e '.decisions[0] | test("500")' "$TMP/server_error.out" >/dev/null ||
	fail "server_error: the note does not name HTTP 500"
fell_back server_error

ARGUS_LLM_TIMEOUT_S=1
export ARGUS_LLM_TIMEOUT_S
run slow anthropic
unset ARGUS_LLM_TIMEOUT_S
jq -e '.decisions[0] | test("timed out")' "$TMP/slow.out" >/dev/null ||
	fail "slow: the note does not say the request timed out"
fell_back slow

# 429 with Retry-After: 1, then the verdict: retried, no fallback, the LLM's verdict
run rate_limited anthropic
[ "$(requests rate_limited)" -eq 2 ] || fail "rate_limited: expected 2 requests, got $(requests rate_limited)"
jq -e '(.[1].t - .[0].t) >= 0.9' "$TMP/stub/rate_limited.log" >/dev/null ||
	fail "rate_limited: the retry did not wait for Retry-After"
jq -e '[.decisions[] | select(test("heuristic agent took"))] | length == 0' "$TMP/rate_limited.out" >/dev/null ||
	fail "rate_limited: the heuristic took the turn"
jq -e '.llm.fallbacks == 0 and .verdict.summary == "anonymous page faults: do_anonymous_page"' \
	"$TMP/rate_limited.out" >/dev/null || fail "rate_limited: not the LLM's verdict"
jq -e '.hypotheses | map(.name + "=" + .state) | index("anonymous faults=supported")' \
	"$TMP/rate_limited.out" >/dev/null || fail "rate_limited: the hypotheses ledger is missing"
grep '"type":"llm_turn"' "$TMP/rate_limited.session" | grep -q '"status":"ok"' ||
	fail "rate_limited: the session has no llm_turn with status ok"

# connection refused: a port nobody listens on
FREE=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
llm_env openai
ARGUS_LLM_URL="http://127.0.0.1:$FREE/v1" "$ARGUS" diff "$DATA/ref.folded" "$DATA/load.folded" \
	--batch --json --agent llm --session "$TMP/refused.session" >"$TMP/refused.out" 2>"$TMP/refused.err" ||
	fail "refused: argus diff failed"
echo "refused: $(jq -r '.decisions[0]' "$TMP/refused.out")"
jq -e '.decisions[0] | test("cannot connect")' "$TMP/refused.out" >/dev/null ||
	fail "refused: the note does not say it cannot connect"
fell_back refused

# no LLM configured: one line, the heuristic agent
env -u ARGUS_LLM_PROVIDER -u ARGUS_LLM_URL -u ARGUS_LLM_MODEL -u ARGUS_LLM_API_KEY \
	"$ARGUS" diff "$DATA/ref.folded" "$DATA/load.folded" --batch --json --agent llm \
	>"$TMP/none.out" 2>"$TMP/none.err" || fail "none: argus diff failed"
[ "$(grep -c 'no LLM configured' "$TMP/none.err")" -eq 1 ] || fail "none: no one-line note: $(cat "$TMP/none.err")"
jq -e '.agent == "heuristic"' "$TMP/none.out" >/dev/null || fail "none: not the heuristic agent"

canary_check
exit 0
