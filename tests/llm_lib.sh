# Helpers for tests that talk to tests/llm_stub.py (sourced after lib.sh).
#   stub_start [ARGS]     start the stub on 127.0.0.1 (free port): $PORT, $STUB
#                         (ARGS: more llm_stub.py options, e.g. --max-prompt-bytes N)
#   stub_script FILE      load a scripted conversation (clears the request log)
#   stub_log OUT          the requests received since, as a JSON list
#   llm_env PROVIDER      ARGUS_LLM_* for the stub (key: $CANARY), private XDG dirs
#   canary_check          fail when $CANARY is in any file under $TMP but the
#                         stub's own request logs ($TMP/stub-requests.log, $TMP/stub/)
CANARY=sk-CANARY-77e0b1d4c3a2f9
# the stub is on loopback: a proxy from the environment must not get in between
no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}" NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}"
export no_proxy NO_PROXY

stub_start() {
	need_cmd python3
	python3 "$ROOT/tests/llm_stub.py" --port 0 --log "$TMP/stub-requests.log" \
		--max-seconds 600 "$@" >"$TMP/stub.out" 2>"$TMP/stub.err" &
	STUB=$!
	at_exit 'kill $STUB 2>/dev/null; wait $STUB 2>/dev/null'
	i=0
	while [ ! -s "$TMP/stub.out" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	PORT=$(head -n 1 "$TMP/stub.out")
	case "$PORT" in ''|*[!0-9]*) cat "$TMP/stub.err"; fail "the stub did not start (no port)" ;; esac
}

stub_script() {
	curl -sf --noproxy '*' -X POST --data-binary @"$1" "http://127.0.0.1:$PORT/_stub/script" \
		>/dev/null || fail "cannot load the stub script $1"
}

stub_log() {
	curl -sf --noproxy '*' "http://127.0.0.1:$PORT/_stub/log" >"$1" || fail "cannot read the stub's log"
}

llm_env() {
	ARGUS_LLM_PROVIDER=$1
	ARGUS_LLM_URL="http://127.0.0.1:$PORT/v1"
	ARGUS_LLM_MODEL=stub-model
	ARGUS_LLM_API_KEY=$CANARY
	XDG_CONFIG_HOME="$TMP/config"
	XDG_STATE_HOME="$TMP/state"
	export ARGUS_LLM_PROVIDER ARGUS_LLM_URL ARGUS_LLM_MODEL ARGUS_LLM_API_KEY XDG_CONFIG_HOME XDG_STATE_HOME
}

canary_check() {
	grep -q "$CANARY" "$TMP/stub-requests.log" ||
		fail "the stub's request log lacks the API key header: the canary check saw nothing"
	found=$(grep -rl "$CANARY" "$TMP" | grep -v '/stub-requests.log$' | grep -v "^$TMP/stub/")
	[ -z "$found" ] || fail "the API key appears in: $found"
	echo "api key absent from every file argus wrote and from its output"
}
