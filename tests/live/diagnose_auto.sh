#!/bin/sh
# diagnose --auto: on the page-fault scenario the heuristic agent proposes a
# tracepoint_stacks step on exceptions:page_fault_user, it is auto-accepted
# (decision "auto"), run against the same load, and the verdict's notes cite
# its result.  Without --auto the proposal is not run and stderr says so.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd python3
[ -x "$ARGUS" ] || fail "no $ARGUS; run make"
[ -x "$BUILD/scenarios/pagefault" ] || fail "no scenario loads in $BUILD/scenarios; run make"

# The calibration must find the page-fault path first; on a machine shared
# with other loads one run may find nothing, so up to two tries.
try=0
while :; do
	try=$((try + 1))
	"$ARGUS" diagnose --batch --json --auto --steps 1 --budget 400 --session "$TMP/s.jsonl" -- \
		"$BUILD/scenarios/pagefault" --seconds 120 >"$TMP/out.json" 2>"$TMP/err" ||
		{ cat "$TMP/err"; fail "diagnose --auto failed"; }
	grep -q '"found":true' "$TMP/out.json" && break
	# a page-fault load with no bottleneck found is a wrong verdict: FAIL
	[ $try -lt 2 ] || { cat "$TMP/err"; fail "the calibration found no bottleneck twice on the page-fault load"; }
done
grep -v "window [0-9]" "$TMP/err"
python3 - "$TMP/out.json" <<'EOP' || fail "diagnose --auto did not run and cite the step"
import json, sys
d = json.load(open(sys.argv[1]))
v = d["verdict"]
assert v["found"] and v["subsystem"] == "mm", v["summary"]
assert len(d["steps"]) == 1, d["steps"]
s = d["steps"][0]
assert s["decision"] == "auto", s["decision"]
assert s["spec"]["kind"] == "tracepoint_stacks", s["spec"]
assert s["spec"]["target"] in ("exceptions:page_fault_user", ["exceptions:page_fault_user"]), s["spec"]
assert s["preflight"]["ok"], s["preflight"]
assert s["state"] == "done", (s["state"], s["reason"])
t = s["targets"][0]
assert t["rate"]["load"] > t["rate"]["ref"] and t["significant"], t
notes = v.get("notes", [])
cited = [n for n in notes if "page_fault_user" in n and "step 1" in n]
assert cited, notes
print("cited:", cited[0])
assert any("step 1" in x for x in d["decisions"]), d["decisions"]
EOP
# the session holds the step: proposal, "auto" decision, result, windows
need_cmd jq
{
	jq -s -e 'any(.[]; .type=="proposal" and .step==1 and .spec.kind=="tracepoint_stacks")' \
		"$TMP/s.jsonl" >/dev/null || fail "the session lacks the step's proposal"
	jq -s -e 'any(.[]; .type=="decision" and .step==1 and .action=="accept" and .by=="auto" and
		.original.kind=="tracepoint_stacks")' "$TMP/s.jsonl" >/dev/null ||
		fail "the session lacks the auto decision"
	jq -s -e 'any(.[]; .type=="step_result" and .step==1 and .status=="ok" and
		(.summary | contains("page_fault_user")))' "$TMP/s.jsonl" >/dev/null ||
		fail "the session lacks the step's result"
	jq -s -e '[.[] | select(.type=="window" and .step==1)] | length >= 2' "$TMP/s.jsonl" >/dev/null ||
		fail "the session lacks the step's windows"
}
grep -q "auto-accepted" "$TMP/err" || fail "stderr does not say the step was auto-accepted"

# Without --auto: proposed, not run, said on stderr.
"$ARGUS" diagnose --batch --json -- "$BUILD/scenarios/pagefault" --seconds 60 \
	>"$TMP/out2.json" 2>"$TMP/err2" || { cat "$TMP/err2"; fail "diagnose failed"; }
# no vacuous pass: the verdict must be found here too (one retry, as above)
if ! grep -q '"found":true' "$TMP/out2.json"; then
	"$ARGUS" diagnose --batch --json -- "$BUILD/scenarios/pagefault" --seconds 60 \
		>"$TMP/out2.json" 2>"$TMP/err2" || { cat "$TMP/err2"; fail "diagnose failed"; }
	grep -q '"found":true' "$TMP/out2.json" ||
		{ cat "$TMP/err2"; fail "without --auto: no bottleneck found twice on the page-fault load"; }
fi
grep -q "runs steps only with --auto" "$TMP/err2" ||
	{ cat "$TMP/err2"; fail "without --auto: the proposal was not mentioned on stderr"; }
python3 - "$TMP/out2.json" <<'EOP' || fail "without --auto: a step ran or was not recorded"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["steps"]
assert len(s) == 1 and s[0]["decision"].startswith("not run"), s
assert "state" not in s[0] and "targets" not in s[0], s[0]
EOP
echo "ok: diagnose_auto"
