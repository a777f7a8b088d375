#!/bin/sh
# argus record --push --every 1 on the live kernel, against the loopback
# stub: every interval's profile arrives, decodes and carries the labels;
# with a 500, a hanging request and a dropped connection scripted, every
# sample argus took is either stored once, or counted unconfirmed — none
# is stored twice and the counts add up to the recording's; a server that
# is not there yet at the start gets the queued intervals when it comes up.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/push_lib.sh"
need_root
need_cmd jq
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
[ -x "$BUILD/scenarios/pagefault" ] || skip "no $BUILD/scenarios/pagefault; run make"

# counts from the push summary line: field NAME -> profiles and samples
pushed() { # FILE WORD: "N profiles sent (M samples)" etc.
	sed -n "s/.* $2 \([0-9]*\) (\([0-9]*\) samples).*/\1 \2/p; s/.*: \([0-9]*\) profiles* $2 (\([0-9]*\) samples).*/\1 \2/p" "$1" | head -n 1
}

check_run() { # ERR LOG FOLDED: the counts add up to the recording's (its
	# folded output; the sampler's own counter may hold a sample that came
	# after the last read), nothing stored twice
	kernel=$(awk '{ s += $NF } END { print s + 0 }' "$3")
	set -- "$1" "$2" $(pushed "$1" sent) $(pushed "$1" dropped) $(pushed "$1" rejected) $(pushed "$1" unconfirmed)
	[ $# = 10 ] || fail "cannot read the push summary: $(grep 'push to' "$1")"
	sent_s=$4 dropped_s=$6 rejected_s=$8 unconf_s=${10}
	[ "$((sent_s + dropped_s + rejected_s + unconf_s))" = "$kernel" ] ||
		fail "pushed $sent_s + dropped $dropped_s + rejected $rejected_s + unconfirmed $unconf_s != $kernel samples recorded"
	jq -e '[.[] | select(.accepted) | .sha256] | length == (unique | length)' "$2" >/dev/null ||
		fail "a profile was stored twice: $(jq -c '[.[] | {status, sha: .sha256[0:8]}]' "$2")"
	jq -e '[.[] | select(.error != null)] | length == 0' "$2" >/dev/null ||
		fail "the stub found a malformed request: $(jq -c '[.[] | select(.error != null) | .error]' "$2")"
	stored=$(jq '[.[] | select(.accepted) | .samples] | add // 0' "$2")
	[ "$stored" -ge "$sent_s" ] && [ "$stored" -le $((sent_s + unconf_s)) ] ||
		fail "the stub stored $stored samples; argus says $sent_s sent, $unconf_s unconfirmed"
	echo "ok: $kernel samples: $sent_s sent, $unconf_s unconfirmed, $dropped_s dropped; stub stored $stored, none twice"
}

pstub_start
"$BUILD/scenarios/pagefault" --seconds 300 >/dev/null 2>&1 &   # ended at exit: three records outlast 30 s on a busy machine
LOAD=$!
at_exit 'kill $LOAD 2>/dev/null; wait $LOAD 2>/dev/null'

# failures scripted in the middle of a continuous run
pstub_script '[{"status":200},{"status":500},{"status":200},{"delay_s":3},{"close":true},{"status":200}]'
"$ARGUS" record -d 7 --every 1 --push "http://127.0.0.1:$PPORT" --labels run=ci --push-timeout 1.5 \
	--folded >"$TMP/out" 2>"$TMP/err" || fail "record --push exited $?: $(cat "$TMP/err")"
sleep 3 # the hanging request's reply
pstub_log "$TMP/log.json"
n=$(jq '[.[] | select(.accepted)] | length' "$TMP/log.json")
[ "$n" -ge 4 ] || fail "only $n profiles stored in a 7 s run at --every 1"
jq -e 'all(.[]; .labels.run == "ci" and .labels.__app__ == "argus" and .labels.service_name == "argus"
	and .kind == "pyroscope")' "$TMP/log.json" \
	>/dev/null || fail "labels: $(jq -c '[.[] | .labels]' "$TMP/log.json")"
jq -e '[.[] | select(.accepted) | .stacks | keys[]] | any(test("do_anonymous_page|handle_mm_fault"))' \
	"$TMP/log.json" >/dev/null || fail "no page-fault stack reached the server"
grep -q 'answered 500' "$TMP/err" || fail "the 500 was not said: $(cat "$TMP/err")"
check_run "$TMP/err" "$TMP/log.json" "$TMP/out"

# a command's recording is its program's service, in the series and in
# every sample; the process's cgroup (argus runs a load in its own) a label
pstub_script '[]'
"$ARGUS" record -d 2 --push "parca+http://127.0.0.1:$PPORT" -- "$BUILD/scenarios/pagefault" --seconds 30 \
	>/dev/null 2>"$TMP/err4" || fail "record --push -- CMD exited $?: $(cat "$TMP/err4")"
pstub_log "$TMP/log4.json"
jq -e 'length == 1 and .[0].accepted and .[0].labels.__name__ == "pagefault"
	and .[0].labels.service_name == "pagefault" and .[0].plabels.service_name == ["pagefault"]
	and (.[0].plabels.comm | index("pagefault")) != null' "$TMP/log4.json" >/dev/null ||
	fail "record -- CMD push labels: $(jq -c '.[0] | del(.stacks)' "$TMP/log4.json")"
echo "ok: record -- pagefault pushed as service pagefault$(jq -r '.[0].plabels.cgroup // [] | map(", cgroup " + .) | join("")' "$TMP/log4.json")"

# the server comes up late: the queued intervals go when it does
kill $PSTUB; wait $PSTUB 2>/dev/null
port=$(free_port)
( sleep 3; python3 "$ROOT/tests/push_stub.py" --port "$port" --max-seconds 120 >"$TMP/late.out" 2>&1 ) &
LATE=$!
at_exit 'kill $LATE 2>/dev/null'
"$ARGUS" record -d 6 --every 1 --push "parca+http://127.0.0.1:$port" --push-wait 20 --folded \
	>"$TMP/out2" 2>"$TMP/err2" || fail "record --push to a late server exited $?: $(cat "$TMP/err2")"
grep -q 'retrying in' "$TMP/err2" || fail "no retry while the server was down: $(cat "$TMP/err2")"
PPORT=$port
pstub_log "$TMP/log2.json"
curl -sf --noproxy '*' -X POST "http://127.0.0.1:$port/_stub/quit" >/dev/null
check_run "$TMP/err2" "$TMP/log2.json" "$TMP/out2"
[ "$(pushed "$TMP/err2" dropped)" = "0 0" ] || fail "profiles dropped with room in the queue: $(grep 'push to' "$TMP/err2")"
# without an output format, nothing on stdout; the summary on stderr
"$ARGUS" record -d 2 --push "parca+http://127.0.0.1:$port" --push-wait 2 >"$TMP/out3" 2>"$TMP/err3"
[ -s "$TMP/out3" ] && fail "record --push wrote to stdout without a format"
grep -q 'push to .*dropped 1 (' "$TMP/err3" || fail "push to a stopped server not said: $(cat "$TMP/err3")"
echo "push record: all checks passed"
