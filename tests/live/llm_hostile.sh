#!/bin/sh
# An LLM reply is untrusted text (tests/data/llm/hostile.json through
# tests/llm_stub.py, both providers): its text, a step's rationale and
# expectation and the verdict's summary hold "\u001b[2J\u001b]0;PWN\u0007",
# and its steps carry filter.cgroup "../../../../etc", then
# "../../../../proc/self".  With `diagnose --auto` neither step may run (the
# cgroup resolves outside the cgroup2 mount: refused with that reason; the
# heuristic agent may take the turn with a step of its own), no
# ESC or BEL byte may reach stdout, stderr or a replay of the session, and
# the load must be gone at the end.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/llm_lib.sh"
need_root
need_cmd jq
need_cmd curl
[ -x "$ARGUS" ] || fail "no $ARGUS; run make"
[ -x "$BUILD/scenarios/pagefault" ] || fail "no scenario loads in $BUILD/scenarios; run make"
cp "$BUILD/scenarios/pagefault" "$TMP/llmhost_pf"
stub_start
ESCBEL=$(printf '[\033\007]')
for prov in openai anthropic; do
	stub_script "$ROOT/tests/data/llm/hostile.json"
	llm_env $prov
	"$ARGUS" diagnose --batch --json --agent llm --auto --steps 2 --pairs 2 --window 0.3 \
		--session "$TMP/$prov.session" --load "$TMP/llmhost_pf" >"$TMP/$prov.out" 2>"$TMP/$prov.err"
	rc=$?
	cat -v "$TMP/$prov.err" | tail -n 20
	[ $rc -eq 0 ] || fail "$prov: diagnose exited $rc"
	for f in "$TMP/$prov.out" "$TMP/$prov.err"; do
		grep -q "$ESCBEL" "$f" && fail "$prov: an ESC or BEL byte of the LLM reply reached $(basename "$f")"
	done
	grep -qF 'PWN' "$TMP/$prov.out" "$TMP/$prov.err" || fail "$prov: the LLM's text is nowhere (the test saw nothing)"
	grep -q "outside the cgroup2 mount" "$TMP/$prov.out" "$TMP/$prov.err" ||
		fail "$prov: the cgroup ../../../../etc was not refused with its reason"
	# the heuristic may take the refused turn with a step of its own (scoped
	# to the load's own cgroup, argus-PID-N); no step with the LLM's cgroup
	# may have run
	jq -e '[.steps[]? | select(.spec.filter.cgroup != null and
	        (.spec.filter.cgroup | test("/argus-[0-9]+-[0-9]+$") | not))] | length == 0' \
		"$TMP/$prov.out" >/dev/null ||
		fail "$prov: a step with a cgroup outside cgroupfs ran: $(jq -c '[.steps[]? | {state, spec}]' "$TMP/$prov.out")"
	"$ARGUS" replay --batch "$TMP/$prov.session" >"$TMP/$prov.replay" 2>&1 || fail "$prov: replay failed"
	grep -q "$ESCBEL" "$TMP/$prov.replay" && fail "$prov: replay --batch printed an ESC or BEL byte"
	"$ARGUS" export "$TMP/$prov.session" --format markdown >"$TMP/$prov.md" 2>&1 || fail "$prov: export failed"
	grep -q "$ESCBEL" "$TMP/$prov.md" && fail "$prov: the markdown report holds an ESC or BEL byte"
	pgrep -f "$TMP/llmhost_pf" >/dev/null && fail "$prov: the load is still running"
	echo "$prov: steps refused: $(grep -o 'outside the cgroup2 mount' "$TMP/$prov.out" "$TMP/$prov.err" | wc -l) mentions; no ESC/BEL in out, err, replay, report"
done
exit 0
