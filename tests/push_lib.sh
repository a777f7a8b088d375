# Helpers for the push tests (sourced after lib.sh).
#   pstub_start [PORT]   start tests/push_stub.py on 127.0.0.1: $PPORT, $PSTUB
#   pstub_script JSON    the stub's replies, one per profile request (clears its log)
#   pstub_log OUT        what the stub received, as a JSON list
#   free_port            a port nothing listens on (bound, then closed)
no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}" NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}"
export no_proxy NO_PROXY

pstub_start() {
	need_cmd python3
	need_cmd curl
	: >"$TMP/pstub.out"
	python3 "$ROOT/tests/push_stub.py" --port "${1:-0}" --max-seconds 600 >"$TMP/pstub.out" 2>"$TMP/pstub.err" &
	PSTUB=$!
	at_exit 'kill $PSTUB 2>/dev/null; wait $PSTUB 2>/dev/null'
	i=0
	while [ ! -s "$TMP/pstub.out" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	PPORT=$(head -n 1 "$TMP/pstub.out")
	case "$PPORT" in ''|*[!0-9]*) cat "$TMP/pstub.err"; fail "the push stub did not start" ;; esac
}

pstub_script() {
	curl -sf --noproxy '*' -X POST --data-binary "$1" "http://127.0.0.1:$PPORT/_stub/script" >/dev/null ||
		fail "cannot script the push stub"
}

pstub_log() {
	curl -sf --noproxy '*' "http://127.0.0.1:$PPORT/_stub/log" >"$1" || fail "cannot read the push stub's log"
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
