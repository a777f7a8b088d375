#!/bin/sh
# core/llm over real HTTP: starts tests/llm_stub.py on 127.0.0.1 (a free
# port), runs build-san/tests/test_llm_http against it (both APIs, streaming,
# tool calls, 429/Retry-After, 500s, timeout, refused, malformed, empty, cut,
# cancel) and build-san/tests/test_agent_llm (whole agent turns), then checks the API key canary is in no file written but the
# stub's own request log (where it must be: it is the header the stub got).
# No root needed.
. "$(dirname "$0")/../lib.sh"
need_cmd python3
BIN="$ROOT/build-san/tests/test_llm_http"
[ -x "$BIN" ] || fail "build-san/tests/test_llm_http missing; run make SAN=1 san"

# the stub is on loopback: a proxy from the environment must not get in between
no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}" NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}"
export no_proxy NO_PROXY
python3 "$ROOT/tests/llm_stub.py" --port 0 --log "$TMP/stub-requests.log" \
	--max-seconds 300 >"$TMP/stub.out" 2>"$TMP/stub.err" &
STUB=$!
at_exit 'kill $STUB 2>/dev/null; wait $STUB 2>/dev/null'
i=0
while [ ! -s "$TMP/stub.out" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
PORT=$(head -n 1 "$TMP/stub.out")
case "$PORT" in ''|*[!0-9]*) cat "$TMP/stub.err"; fail "the stub did not start (no port)" ;; esac
echo "stub on 127.0.0.1:$PORT (pid $STUB)"

cd "$ROOT" || fail "cannot cd to $ROOT"
ARGUS_TEST_STUB_URL="http://127.0.0.1:$PORT" "$BIN" >"$TMP/test.out" 2>&1
rc=$?
cat "$TMP/test.out"
[ $rc -eq 0 ] || fail "test_llm_http failed (exit $rc)"

# the LLM agent's turns (proposal, repair, fallback, verdict, veto) over HTTP;
# every one of its cases must have run, none skipped
AGENT="$ROOT/build-san/tests/test_agent_llm"
[ -x "$AGENT" ] || fail "build-san/tests/test_agent_llm missing; run make SAN=1 san"
ARGUS_TEST_STUB_URL="http://127.0.0.1:$PORT" "$AGENT" >"$TMP/agent.out" 2>&1
rc=$?
cat "$TMP/agent.out"
[ $rc -eq 0 ] || fail "test_agent_llm failed (exit $rc)"
grep -q 'SKIPPED' "$TMP/agent.out" && fail "test_agent_llm skipped cases with the stub running"
grep -q 'SKIPPED' "$TMP/test.out" && fail "test_llm_http skipped cases with the stub running"
cat "$TMP/agent.out" >>"$TMP/test.out"

# the canary: sent to the stub (it must be, as the auth header) ...
grep -q 'sk-CANARY-5b1e0c77a9f2d3' "$TMP/stub-requests.log" ||
	fail "the stub's request log lacks the API key header: the test checked nothing"
# ... and nowhere else: not in the test's output (every error string is printed
# there) nor in any other file written
found=$(grep -rl 'sk-CANARY-5b1e0c77a9f2d3' "$TMP" | grep -v '/stub-requests.log$')
[ -z "$found" ] || fail "the API key appears in: $found"
grep -q '^# rc -' "$TMP/test.out" || fail "no error string was printed: the key check saw nothing"
echo "api key absent from every error and file but the stub's request log"
