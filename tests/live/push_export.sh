#!/bin/sh
# argus export --push against a loopback Pyroscope/Parca stub (no
# privileges): method, path, query, content type and a decodable body are
# checked by tests/push_stub.py, which also decodes the profile to the same
# stacks as the folded export; then failures — a 500 (retried, stored once),
# a 400 (rejected, said), a server that hangs (unconfirmed: not sent again),
# a refused port (retried, then given up with the count) — with exit status
# 1 whenever the profile did not surely arrive.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/push_lib.sh"
need_cmd jq
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
S="$ROOT/tests/data/session-pagefault.jsonl"
pstub_start
"$ARGUS" export "$S" --format folded --cond load >"$TMP/load.folded" || fail "export folded"
"$ARGUS" export "$S" --format folded --cond ref >"$TMP/ref.folded" || fail "export folded"
jq -Rn '[inputs | select(startswith("#") | not) | capture("^(?<k>.*) (?<n>[0-9]+)$") | {(.k): (.n | tonumber)}] | add' \
	"$TMP/load.folded" >"$TMP/load.json"
total=$(jq 'add' "$TMP/load.json")

# Pyroscope: labels, tenant, from/until from the session's time
"$ARGUS" export "$S" --cond load --push "http://127.0.0.1:$PPORT" --labels env=test,dc=x1 --tenant team-a \
	--app kernel.cpu 2>"$TMP/err" || fail "push pyroscope exited $?: $(cat "$TMP/err")"
pstub_log "$TMP/log.json"
jq -e --argjson from "$(date -u -d "$(head -n 1 "$S" | jq -r .created)" +%s)" --argjson t "$total" --slurpfile want "$TMP/load.json" '
	length == 1 and .[0].error == null and .[0].accepted and .[0].kind == "pyroscope"
	and .[0].path == "/ingest" and .[0].tenant == "team-a"
	and .[0].labels.__app__ == "kernel.cpu" and .[0].labels.env == "test" and .[0].labels.dc == "x1"
	and .[0].labels.service_name == "kernel.cpu" and .[0].plabels.service_name == ["kernel.cpu"]
	and (.[0].plabels.cgroup | index("/argus-15112-1")) != null
	and (.[0].labels.host | length) > 0
	and .[0].query.format == ["pprof"] and .[0].query.sampleRate == ["999"]
	and (.[0].query.from[0] | tonumber) == $from and (.[0].query.until[0] | tonumber) > $from
	and .[0].samples == $t and .[0].stacks == $want[0]' "$TMP/log.json" >/dev/null ||
	fail "pyroscope request: $(jq -c '.[0] | del(.stacks)' "$TMP/log.json")"
grep -q "1 profile sent ($total samples)" "$TMP/err" || fail "summary: $(cat "$TMP/err")"
echo "ok: pyroscope /ingest, $total samples, the stub decoded the stacks of the folded export"

# Parca: JSON, base64 raw_profile, __name__ and service_name the load's
# program (build/scenarios/pagefault); both conditions in one profile
pstub_script '[]'
"$ARGUS" export "$S" --push "parca+http://127.0.0.1:$PPORT" 2>"$TMP/err" || fail "push parca exited $?: $(cat "$TMP/err")"
pstub_log "$TMP/log.json"
both=$(( total + $(awk '!/^#/ { s += $NF } END { print s }' "$TMP/ref.folded") ))
jq -e --argjson t "$both" 'length == 1 and .[0].error == null and .[0].accepted and .[0].kind == "parca"
	and .[0].path == "/profiles/writeraw" and .[0].labels.__name__ == "pagefault"
	and .[0].labels.service_name == "pagefault" and .[0].plabels.service_name == ["pagefault"]
	and .[0].samples == $t' \
	"$TMP/log.json" >/dev/null || fail "parca request: $(jq -c '.[0] | del(.stacks)' "$TMP/log.json")"
echo "ok: parca /profiles/writeraw, $both samples (both conditions), service_name pagefault"

# a victim session: the service is the victim, the profile wall-clock
pstub_script '[]'
"$ARGUS" export "$ROOT/tests/data/session-aggressor.jsonl" --push "http://127.0.0.1:$PPORT" 2>"$TMP/err" ||
	fail "push aggressor exited $?: $(cat "$TMP/err")"
pstub_log "$TMP/log.json"
jq -e 'length == 1 and .[0].error == null and .[0].labels.__app__ == "victim"
	and .[0].labels.service_name == "victim" and .[0].plabels.service_name == ["victim"]
	and (.[0].plabels.waker | length) > 0' "$TMP/log.json" >/dev/null ||
	fail "victim session push: $(jq -c '.[0] | del(.stacks)' "$TMP/log.json")"
echo "ok: a victim session is pushed as service victim, with its waker labels"

# 500 then 200: retried, stored once
pstub_script '[{"status":500},{"status":503},{"status":200}]'
"$ARGUS" export "$S" --cond load --push "http://127.0.0.1:$PPORT" 2>"$TMP/err" || fail "push after 5xx exited $?"
pstub_log "$TMP/log.json"
jq -e 'length == 3 and ([.[] | select(.accepted)] | length) == 1 and ([.[].sha256] | unique | length) == 1' \
	"$TMP/log.json" >/dev/null || fail "5xx retries: $(jq -c '[.[] | {status, accepted}]' "$TMP/log.json")"
grep -q '2 retries' "$TMP/err" && grep -q 'answered 500' "$TMP/err" || fail "5xx summary: $(cat "$TMP/err")"
echo "ok: 500, 503 retried, stored once"

# 400: rejected, said, exit 1, not retried
pstub_script '[{"status":400}]'
"$ARGUS" export "$S" --cond load --push "http://127.0.0.1:$PPORT" 2>"$TMP/err" && fail "push after 400 exited 0"
pstub_log "$TMP/log.json"
[ "$(jq length "$TMP/log.json")" = 1 ] || fail "a rejected profile was sent again"
grep -q 'rejected: the server answered 400' "$TMP/err" && grep -q "rejected 1 ($total samples)" "$TMP/err" ||
	fail "400 message: $(cat "$TMP/err")"
echo "ok: 400 rejected, not retried"

# a server that hangs after reading the profile: unconfirmed, never resent
pstub_script '[{"delay_s":4},{"status":200}]'
"$ARGUS" export "$S" --cond load --push "http://127.0.0.1:$PPORT" --push-timeout 1 --push-wait 3 \
	2>"$TMP/err" && fail "push to a hanging server exited 0"
sleep 4
pstub_log "$TMP/log.json"
[ "$(jq length "$TMP/log.json")" = 1 ] || fail "the profile was sent again after a timeout: $(jq -c '[.[] | .status]' "$TMP/log.json")"
grep -q "unconfirmed 1 ($total samples)" "$TMP/err" && grep -q 'not sent again' "$TMP/err" ||
	fail "hang message: $(cat "$TMP/err")"
echo "ok: a hanging server: unconfirmed, sent once"

# a server that closes without answering: unconfirmed too
pstub_script '[{"close":true}]'
"$ARGUS" export "$S" --cond load --push "http://127.0.0.1:$PPORT" --push-wait 3 2>"$TMP/err" &&
	fail "push to a closing server exited 0"
grep -q 'unconfirmed 1' "$TMP/err" || fail "close message: $(cat "$TMP/err")"

# refused: retried with backoff, then given up, counted
port=$(free_port)
"$ARGUS" export "$S" --cond load --push "http://127.0.0.1:$port" --push-wait 2 2>"$TMP/err" &&
	fail "push to a refused port exited 0"
grep -q 'retrying in' "$TMP/err" && grep -q 'gave up waiting' "$TMP/err" &&
	grep -q "dropped 1 ($total samples)" "$TMP/err" || fail "refused message: $(cat "$TMP/err")"
echo "ok: refused: $(grep -c 'retrying in' "$TMP/err") retries, then dropped and said"

# usage errors
"$ARGUS" export "$S" --push "ftp://x" 2>"$TMP/err"; [ $? = 1 ] || fail "ftp:// accepted"
grep -q 'not http' "$TMP/err" || fail "ftp message: $(cat "$TMP/err")"
"$ARGUS" export "$S" --push "http://127.0.0.1:$PPORT" --labels 'a=b c' 2>"$TMP/err"; [ $? = 1 ] || fail "bad label accepted"
grep -q 'bad label' "$TMP/err" || fail "label message: $(cat "$TMP/err")"
"$ARGUS" export "$S" --push "http://127.0.0.1:$PPORT" --format json 2>"$TMP/err"; [ $? = 2 ] || fail "--push --format json accepted"
echo "push export: all checks passed"
