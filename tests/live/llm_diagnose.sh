#!/bin/sh
# A whole diagnosis conversation with the LLM agent in batch mode, both
# providers, against tests/llm_stub.py scripted by
# tests/data/llm/diagnose_{openai,anthropic}.json: the LLM proposes a
# tracepoint_stacks step on exceptions:page_fault_user (a tool call in the
# OpenAI API, strict JSON text in the Anthropic one), then gives a verdict
# naming handle_mm_fault > do_anonymous_page, which agent_llm checks against
# the measured tree and completes from it.
#
# With `diagnose --auto` (the step executor) the step runs through real
# probes (filtered to the load's comm, llmdiag_pf, a name no other test
# uses: tests of other builds may run page-fault loads on the machine): steps[0] must show user page faults far above the reference, the
# verdict must cite it and the second prompt must carry the step's result.  Without it the proposal
# is declined (no step can run) and the second prompt says so.  Either way:
# the first prompt holds the calibrated tree (handle_mm_fault with numbers),
# the verdict is the LLM's (no fallback), the JSON has the timing split, the
# hypotheses and the LLM accounting, the session has llm_turn events, and the
# API key is in no file argus wrote.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/llm_lib.sh"
need_root
need_cmd jq
need_cmd curl
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
[ -x "$BUILD/scenarios/pagefault" ] || skip "no scenario loads; run make"
cp "$BUILD/scenarios/pagefault" "$TMP/llmdiag_pf"
stub_start
mkdir -p "$TMP/stub"
AUTO=
"$ARGUS" diagnose --help | grep -q -- '--auto' && AUTO="--auto --steps 1 --budget 400"
echo "stub on 127.0.0.1:$PORT; ${AUTO:-no --auto in this build: the step is proposed, not run}"

for prov in openai anthropic; do
	stub_script "$ROOT/tests/data/llm/diagnose_$prov.json"
	llm_env $prov
	# shellcheck disable=SC2086
	"$ARGUS" diagnose --batch --json --agent llm $AUTO --session "$TMP/$prov.session" \
		--load "$TMP/llmdiag_pf" >"$TMP/$prov.out" 2>"$TMP/$prov.err"
	rc=$?
	stub_log "$TMP/stub/$prov.log"
	cat "$TMP/$prov.err"
	[ $rc -eq 0 ] || fail "$prov: diagnose exited $rc"
	jq -c '{verdict: .verdict.path, decisions, hypotheses, timing, llm}' "$TMP/$prov.out"

	[ "$(jq length "$TMP/stub/$prov.log")" -eq 2 ] ||
		fail "$prov: expected 2 LLM requests (step, verdict), got $(jq length "$TMP/stub/$prov.log")"
	prompt() { # the user message of request $1
		jq -r ".[$1].body" "$TMP/stub/$prov.log" |
			jq -r '.messages[-1].content | if type == "array" then .[0].text else . end'
	}
	prompt 0 >"$TMP/$prov.p0"
	prompt 1 >"$TMP/$prov.p1"
	grep -Eq '^ +handle_mm_fault  ref [0-9.]+  load [0-9.]+  delta [-+]?[0-9.]+ ' "$TMP/$prov.p0" || {
		sed -n '/CALIBRATED TREE/,/EARLIER STEPS/p' "$TMP/$prov.p0" | head -40
		fail "$prov: the first prompt lacks the calibrated tree (handle_mm_fault with numbers)"
	}
	jq -e '.verdict.found and .verdict.subsystem == "mm" and (.verdict.path | index("handle_mm_fault")) and
	       .verdict.leaf == "do_anonymous_page" and .verdict.summary == "anonymous page faults: do_anonymous_page"' \
		"$TMP/$prov.out" >/dev/null || fail "$prov: not the LLM's verdict through do_anonymous_page"
	jq -e '.verdict.evidence.rate_load > .verdict.evidence.rate_ref' "$TMP/$prov.out" >/dev/null ||
		fail "$prov: the verdict's numbers are not the tree's"
	jq -e '.agent == "llm" and .llm.fallbacks == 0 and .llm.requests == 2 and .llm.tokens_in == 3400' \
		"$TMP/$prov.out" >/dev/null || fail "$prov: LLM accounting wrong: $(jq -c .llm "$TMP/$prov.out")"
	jq -e '.timing | (.measuring_s > 0) and (.thinking_s > 0) and (.waiting_for_human_s == 0)' \
		"$TMP/$prov.out" >/dev/null || fail "$prov: the timing split is missing"
	jq -e '.hypotheses | map(.name + "=" + .state) | (index("anonymous page faults=supported") and
	       index("THP compaction=refuted"))' "$TMP/$prov.out" >/dev/null ||
		fail "$prov: the hypotheses ledger is wrong"
	grep -q 'YOUR HYPOTHESES SO FAR' "$TMP/$prov.p1" && grep -q 'hypothesis: anonymous page faults: open' "$TMP/$prov.p1" ||
		fail "$prov: the ledger was not sent back in the second turn"
	[ "$(grep -c '"type":"llm_turn"' "$TMP/$prov.session")" -eq 2 ] ||
		fail "$prov: the session does not hold 2 llm_turn events"
	jq -e '.decisions | map(select(test("^llm: [0-9.]+ s, 1500 tokens in, 120 out"))) | length == 1' \
		"$TMP/$prov.out" >/dev/null || fail "$prov: the turn's latency and tokens are not in the transcript"
	if [ -n "$AUTO" ]; then
		jq -c '.steps[0] | {decision, state, windows: [.windows[]? | {cond, secs, events}], t: .targets[0].rate}' "$TMP/$prov.out"
		jq -e '.steps[0] | .decision == "auto" and .state == "done" and .spec.kind == "tracepoint_stacks" and
		       .targets[0].significant and .targets[0].rate.load > 10 * (.targets[0].rate.ref + 1) and
		       .targets[0].rate.load > 1000' \
			"$TMP/$prov.out" >/dev/null ||
			fail "$prov: step 0 has no real numbers: $(jq -c '.steps[0].targets' "$TMP/$prov.out")"
		jq -e '.verdict.notes | map(select(test("^step 1, tracepoint_stacks: page_fault_user"))) | length == 1' \
			"$TMP/$prov.out" >/dev/null || fail "$prov: the verdict does not cite the step"
		grep -q 'result of step 1' "$TMP/$prov.p1" || fail "$prov: the second prompt lacks the step's result"
	else
		jq -e '.decisions | map(select(test("^proposed tracepoint_stacks exceptions:page_fault_user.*: not run"))) | length == 1' \
			"$TMP/$prov.out" >/dev/null || fail "$prov: the proposal is not in decisions"
		grep -q 'no step can run in this mode' "$TMP/$prov.p1" ||
			fail "$prov: the second prompt does not say the step was declined"
	fi
	pgrep -f "$TMP/llmdiag_pf" >/dev/null && fail "$prov: the load is still running"
done
canary_check
[ -n "$AUTO" ] || echo "note: verdict-only (no diagnose --auto in this build): the step was proposed, validated, not run"
exit 0
