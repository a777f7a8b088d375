#!/bin/sh
# The prompt budget (no root: `argus diff --agent llm` on the shipped
# page-fault session's two conditions) against tests/llm_stub.py playing a
# llama-server with a context of 8192 tokens (--max-prompt-bytes 32768: 4
# bytes a token; over it, HTTP 400 exceed_context_size_error):
#  1. argus told the context is huge sends the whole tree: the stub refuses
#     it (the prompt is over 32768 bytes), argus says why with the server's
#     numbers and what to set, and the heuristic agent takes the turn;
#  2. with the default context_tokens (8192) the same tree is pruned: the
#     one request is within the stub's limit and answered, the LLM's verdict
#     is used, the tree text keeps the path under study and ends with
#     "… N of M nodes pruned", and stderr says "prompt pruned to fit 8192
#     tokens: K of M nodes sent" with K + N = M;
#  3. context_tokens = 16384 in the config file sends more nodes, within 4
#     bytes a token of 16384 (and so more than this 8192-token server takes:
#     refused, with its numbers);
#  4. a context too small for argus's prompt (4096) is refused at once, with
#     the size that would do, and nothing is sent;
#  5. (root, tmux) the warning is in the agent pane of a live diagnosis of
#     build/scenarios/pagefault.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/llm_lib.sh"
need_cmd jq
need_cmd curl
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
S="$ROOT/tests/data/session-pagefault.jsonl"
"$ARGUS" export "$S" --format folded --cond ref -o "$TMP/ref.folded" || fail "export ref"
"$ARGUS" export "$S" --format folded -o "$TMP/load.folded" || fail "export load"
stub_start --max-prompt-bytes 32768
llm_env openai
export ARGUS_DATADIR="$ROOT"
mkdir -p "$XDG_CONFIG_HOME/argus" "$TMP/stub"

# diag NAME [ENV...]: the batch diff with the LLM agent, the stub's log of it
diag() {
	n=$1; shift
	stub_script "$ROOT/tests/data/llm/verdict.json"
	env "$@" "$ARGUS" diff "$TMP/ref.folded" "$TMP/load.folded" --batch --agent llm \
		>"$TMP/$n.out" 2>"$TMP/$n.err"
	echo $? >"$TMP/$n.rc"
	stub_log "$TMP/stub/$n.log"
	echo "--- $n: exit $(cat "$TMP/$n.rc"), requests $(jq length "$TMP/stub/$n.log"), prompt bytes" \
		"$(jq -c '[.[].prompt_bytes]' "$TMP/stub/$n.log")"
	cat "$TMP/$n.err"
}
# the tree text of request $2 of run $1
tree_text() {
	jq -r ".[$2].body" "$TMP/stub/$1.log" | jq -r '.messages[-1].content' |
		sed -n '/^CALIBRATED TREE/,/^EARLIER STEPS/p'
}

# ---- 1: the whole tree is over the server's context ------------------------------------
diag huge ARGUS_LLM_CONTEXT_TOKENS=4000000
[ "$(cat "$TMP/huge.rc")" = 0 ] || fail "huge: diff exited $(cat "$TMP/huge.rc")"
[ "$(jq '.[0].prompt_bytes > 32768' "$TMP/stub/huge.log")" = true ] ||
	fail "the whole tree is within the stub's limit: this test would prove nothing"
grep -q 'answered HTTP 400: the request exceeds the available context size' "$TMP/huge.err" ||
	fail "the server's refusal is not reported"
grep -Eq 'the server counted [0-9]+ prompt tokens against its context of 8192: set context_tokens \(ARGUS_LLM_CONTEXT_TOKENS\) to 8192 or less' "$TMP/huge.err" ||
	fail "the refusal does not say the server's numbers and what to set"
grep -q 'the heuristic agent took this turn' "$TMP/huge.err" || fail "no fallback said"
[ "$(jq length "$TMP/stub/huge.log")" = 1 ] || fail "a refused prompt was sent again (retried)"

# ---- 2: the default budget prunes it --------------------------------------------------
diag pruned
[ "$(cat "$TMP/pruned.rc")" = 0 ] || fail "pruned: diff exited $(cat "$TMP/pruned.rc")"
[ "$(jq length "$TMP/stub/pruned.log")" = 1 ] || fail "pruned: expected one request"
[ "$(jq '.[0].prompt_bytes <= 32768' "$TMP/stub/pruned.log")" = true ] ||
	fail "the pruned prompt is over the server's context"
grep -q 'llm turn: .*: ok; prompt pruned to fit 8192 tokens: ' "$TMP/pruned.err" ||
	fail "no pruning warning on stderr, or the turn was not the LLM's"
sent=$(sed -n 's/.*prompt pruned to fit 8192 tokens: \([0-9]*\) of \([0-9]*\) nodes sent.*/\1/p' "$TMP/pruned.err")
all=$(sed -n 's/.*prompt pruned to fit 8192 tokens: \([0-9]*\) of \([0-9]*\) nodes sent.*/\2/p' "$TMP/pruned.err")
[ -n "$sent" ] && [ "$sent" -lt "$all" ] || fail "the warning's counts ($sent of $all) are not a pruning"
grep -q '^  llm: prompt pruned to fit 8192 tokens: ' "$TMP/pruned.out" ||
	fail "the warning is not a line of the turn's reasoning"
grep -q '^verdict: anonymous page faults: do_anonymous_page' "$TMP/pruned.out" ||
	fail "not the LLM's verdict"
tree_text pruned 0 >"$TMP/pruned.tree"
grep -qF "… $((all - sent)) of $all nodes pruned to fit the prompt budget" "$TMP/pruned.tree" || {
	tail -5 "$TMP/pruned.tree"
	fail "the tree sent lacks the '… $((all - sent)) of $all nodes pruned' line"
}
lines=$(grep -c '  ref .*  load .*  delta ' "$TMP/pruned.tree")
[ "$lines" = "$sent" ] || fail "the tree sent has $lines node lines, the warning says $sent"
# the path under study: the descent's largest rise down to clear_page_erms
for f in asm_exc_page_fault exc_page_fault handle_mm_fault __handle_mm_fault do_anonymous_page; do
	grep -Eq "^ +$f  ref " "$TMP/pruned.tree" || fail "the path under study lost $f"
done
echo "default budget: $sent of $all nodes, $(jq '.[0].prompt_bytes' "$TMP/stub/pruned.log") bytes"

# ---- 3: a larger context from the config file -------------------------------------------
printf 'context_tokens = 16384\n' >"$XDG_CONFIG_HOME/argus/config"
stub_script "$ROOT/tests/data/llm/verdict.json"
diag bigger
rm -f "$XDG_CONFIG_HOME/argus/config"
sent16=$(sed -n 's/.*prompt pruned to fit 16384 tokens: \([0-9]*\) of.*/\1/p' "$TMP/bigger.err")
[ -n "$sent16" ] && [ "$sent16" -gt "$sent" ] || fail "16384 tokens sent ${sent16:-?} nodes, not more than $sent"
[ "$(jq '.[0].prompt_bytes <= 4 * 16384' "$TMP/stub/bigger.log")" = true ] ||
	fail "the 16384-token prompt is over 4 bytes a token"
# the stub is a server of 8192 tokens: told 16384, argus is refused, and told so
grep -q 'the server counted [0-9]* prompt tokens against its context of 8192' "$TMP/bigger.err" ||
	fail "a context_tokens over the server's context is not refused with its numbers"
echo "16384 tokens: $sent16 of $all nodes, $(jq '.[0].prompt_bytes' "$TMP/stub/bigger.log") bytes"

# ---- 4: too small for argus's prompt --------------------------------------------------
diag tiny ARGUS_LLM_CONTEXT_TOKENS=4096
[ "$(cat "$TMP/tiny.rc")" != 0 ] || fail "a 4096-token context was accepted"
grep -Eq "the LLM's context of 4096 tokens cannot hold argus's prompt: .* set context_tokens \(ARGUS_LLM_CONTEXT_TOKENS\) to [0-9]+ or more" \
	"$TMP/tiny.err" || fail "no clear refusal of a 4096-token context"
[ "$(jq length "$TMP/stub/tiny.log")" = 0 ] || fail "a prompt was sent to a context too small for it"

# ---- 5: the warning in the agent pane (root: a live load) ----------------------------------
PF="$BUILD/scenarios/pagefault"
if [ "$(id -u)" = 0 ] && [ -x "$PF" ] && command -v tmux >/dev/null 2>&1; then
	. "$ROOT/tests/tui/tmux.inc"
	stub_script "$ROOT/tests/data/llm/verdict.json"
	start 160 45 LANG=C.UTF-8 TERM=xterm-256color -- --agent llm --load "$PF --seconds 60" \
		--pairs 3 --no-session
	i=0
	until screen | grep -q 'prompt pruned to fit 8192 tokens: [0-9]* of [0-9]* nodes sent'; do
		i=$((i + 1))
		[ $i -lt 600 ] || { screen; fail "no pruning warning in the agent pane"; }
		sleep 0.1
	done
	screen | grep -o 'llm: prompt pruned to fit 8192 tokens: [0-9]* of [0-9]* nodes sent'
	stub_log "$TMP/stub/tui.log"
	[ "$(jq '[.[].prompt_bytes] | max <= 32768' "$TMP/stub/tui.log")" = true ] ||
		fail "the live prompt is over the server's context"
	keys q
	expect_sane_exit
else
	echo "(the agent pane: needs root, $PF and tmux; the batch warning above is the same line)"
fi
canary_check
echo ok
