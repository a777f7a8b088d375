#!/bin/sh
# The prompt budget (no root: `argus diff --agent llm` on the shipped
# page-fault session's two conditions) against tests/llm_stub.py playing a
# llama-server with a context of 8192 tokens (--max-prompt-bytes 32768: 4
# bytes a token; over it, HTTP 400 exceed_context_size_error):
#  2. with the default context_tokens (8192) the tree fits under its own cap
#     of 6000 bytes (the step schema goes once, as the tool: the fixed prompt
#     is ~4000 estimated tokens, not ~6200): no warning, the LLM's verdict;
#     with context_tokens 6144 the same tree is pruned: the one request is
#     within the stub's limit and answered, the LLM's verdict is used, the
#     tree text keeps the path under study and ends with "… N of M nodes
#     pruned", and stderr says "prompt pruned to fit 6144 tokens: K of M
#     nodes sent" with K + N = M;
#  3. context_tokens = 16384 in the config file sends what 8192 sent (the
#     tree's cap binds), more than 6144 (no warning: the context did not cut
#     it);
#  4. a context too small for argus's prompt (4096) is refused at once, with
#     the size that would do, and nothing is sent;
#  5. (root, tmux) the warning is in the agent pane of a live diagnosis of
#     build/scenarios/pagefault (at 6144 tokens);
#  1. (last) a stub of 4096 tokens while argus is told 4M: the stub refuses
#     the prompt, argus says why with the server's numbers and what to set
#     (no retry), and the heuristic agent takes the turn.
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

# ---- 2: the default context holds the tree under its own cap -------------------------
diag default
[ "$(cat "$TMP/default.rc")" = 0 ] || fail "default: diff exited $(cat "$TMP/default.rc")"
[ "$(jq length "$TMP/stub/default.log")" = 1 ] || fail "default: expected one request"
[ "$(jq '.[0].prompt_bytes <= 32768' "$TMP/stub/default.log")" = true ] ||
	fail "the default prompt is over the server's context"
grep -q 'llm turn: .*: ok$' "$TMP/default.err" ||
	fail "at 8192 tokens the turn was not the LLM's, or the context pruned the tree"
grep -q '^verdict: anonymous page faults: do_anonymous_page' "$TMP/default.out" ||
	fail "default: not the LLM's verdict"
tree_text default 0 >"$TMP/default.tree"
sent8=$(grep -c '  ref .*  load .*  delta ' "$TMP/default.tree")
echo "8192 tokens: $sent8 nodes (the tree's 6000-byte cap), $(jq '.[0].prompt_bytes' "$TMP/stub/default.log") bytes"

# ---- 2: a smaller context prunes it ---------------------------------------------------
diag pruned ARGUS_LLM_CONTEXT_TOKENS=6144
[ "$(cat "$TMP/pruned.rc")" = 0 ] || fail "pruned: diff exited $(cat "$TMP/pruned.rc")"
[ "$(jq length "$TMP/stub/pruned.log")" = 1 ] || fail "pruned: expected one request"
[ "$(jq '.[0].prompt_bytes <= 24576' "$TMP/stub/pruned.log")" = true ] ||
	fail "the pruned prompt is over a 6144-token context"
grep -q 'llm turn: .*: ok; prompt pruned to fit 6144 tokens: ' "$TMP/pruned.err" ||
	fail "no pruning warning on stderr, or the turn was not the LLM's"
sent=$(sed -n 's/.*prompt pruned to fit 6144 tokens: \([0-9]*\) of \([0-9]*\) nodes sent.*/\1/p' "$TMP/pruned.err")
all=$(sed -n 's/.*prompt pruned to fit 6144 tokens: \([0-9]*\) of \([0-9]*\) nodes sent.*/\2/p' "$TMP/pruned.err")
[ -n "$sent" ] && [ "$sent" -lt "$all" ] || fail "the warning's counts ($sent of $all) are not a pruning"
grep -q '^  llm: prompt pruned to fit 6144 tokens: ' "$TMP/pruned.out" ||
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
[ "$sent8" -gt "$sent" ] || fail "8192 tokens sent $sent8 nodes, not more than 6144's $sent"
echo "6144 tokens: $sent of $all nodes, $(jq '.[0].prompt_bytes' "$TMP/stub/pruned.log") bytes"

# ---- 3: a larger context from the config file -------------------------------------------
# the tree's own cap (6000 bytes) binds, as at 8192: no warning, and this
# 8192-token server still takes it
printf 'context_tokens = 16384\n' >"$XDG_CONFIG_HOME/argus/config"
diag bigger
rm -f "$XDG_CONFIG_HOME/argus/config"
[ "$(cat "$TMP/bigger.rc")" = 0 ] || fail "bigger: diff exited $(cat "$TMP/bigger.rc")"
grep -q 'llm turn: .*: ok$' "$TMP/bigger.err" || fail "at 16384 tokens the turn was not the LLM's, or a warning"
tree_text bigger 0 >"$TMP/bigger.tree"
sent16=$(grep -c '  ref .*  load .*  delta ' "$TMP/bigger.tree")
[ "$sent16" -gt "$sent" ] || fail "16384 tokens sent $sent16 nodes, not more than $sent"
[ "$sent16" = "$sent8" ] || fail "16384 tokens sent $sent16 nodes, 8192 $sent8: the cap binds both"
grep -qF "… $((all - sent16)) of $all nodes pruned to fit the prompt budget" "$TMP/bigger.tree" ||
	fail "the 16384-token tree lacks its pruned line"
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
	start 160 45 LANG=C.UTF-8 TERM=xterm-256color ARGUS_LLM_CONTEXT_TOKENS=6144 -- \
		--agent llm --load "$PF --seconds 60" \
		--pairs 3 --session "$TMP/tui.session"
	# the turn's lines: in the agent pane (zoomed, to see them all) and the
	# session's transcript
	i=0
	until grep -q 'llm: prompt pruned to fit 6144 tokens: [0-9]* of [0-9]* nodes sent' \
		"$TMP/tui.session" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 600 ] || { screen; stub_log "$TMP/stub/tui.log"; jq -c '.[] | .prompt_bytes' "$TMP/stub/tui.log";
			grep -o '"llm: [^"]*"' "$TMP/tui.session"; fail "no pruning warning in the session's transcript"; }
		sleep 0.1
	done
	keys Tab
	keys z
	wait_for "prompt pruned to fit 6144 tokens: "
	screen | grep -o 'llm: prompt pruned to fit 6144 tokens: [0-9]* of [0-9]* nodes sent'
	stub_log "$TMP/stub/tui.log"
	[ "$(jq '[.[].prompt_bytes] | max <= 24576' "$TMP/stub/tui.log")" = true ] ||
		fail "the live prompt is over the server's context"
	keys q
	expect_sane_exit
else
	echo "(the agent pane: needs root, $PF and tmux; the batch warning above is the same line)"
fi
# ---- 1: a server with less context than argus is told -------------------------------
# a llama-server of 4096 tokens (16384 bytes) while argus believes 4M
kill "$STUB" 2>/dev/null
wait "$STUB" 2>/dev/null
rm -f "$TMP/stub.out"
stub_start --max-prompt-bytes 16384
llm_env openai
diag huge ARGUS_LLM_CONTEXT_TOKENS=4000000
[ "$(cat "$TMP/huge.rc")" = 0 ] || fail "huge: diff exited $(cat "$TMP/huge.rc")"
[ "$(jq '.[0].prompt_bytes > 16384' "$TMP/stub/huge.log")" = true ] ||
	fail "the prompt is within the stub's limit: this test would prove nothing"
grep -q 'answered HTTP 400: the request exceeds the available context size' "$TMP/huge.err" ||
	fail "the server's refusal is not reported"
grep -Eq 'the server counted [0-9]+ prompt tokens against its context of 4096: set context_tokens \(ARGUS_LLM_CONTEXT_TOKENS\) to 4096 or less' "$TMP/huge.err" ||
	fail "the refusal does not say the server's numbers and what to set"
grep -q 'the heuristic agent took this turn' "$TMP/huge.err" || fail "no fallback said"
[ "$(jq length "$TMP/stub/huge.log")" = 1 ] || fail "a refused prompt was sent again (retried)"

canary_check
echo ok
