#!/bin/sh
# The markdown report reads well in a bug tracker (issue 24 item 10): its
# title names what was found and in which load (not the file name), the
# load's command has its own line (not only inside the options), a step
# proposed twice (vetoed, then proposed again: one step number) has one
# "### Step 1" heading, and the descent each proposal re-tells is written
# once.  The session is the shipped page-fault one with a veto and a second
# proposal put in (jq); no privileges needed.
. "$(dirname "$0")/../lib.sh"
need_cmd jq
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
SRC="$ROOT/tests/data/session-pagefault-step.jsonl"
[ -f "$SRC" ] || skip "no $SRC"
grep -q '"type":"proposal"' "$SRC" || fail "the fixture has no proposal"

# proposal 1, vetoed; proposal 1 again (the same descent), accepted, run
jq -c 'if .type == "proposal" then
		., {type: "decision", t: .t, step: 1, action: "veto", by: "human",
		    reason: "not yet", original: .spec, edited: null}, .
	else . end' "$SRC" > "$TMP/s.jsonl" || fail "jq could not build the session"
[ "$(grep -c '"type":"proposal"' "$TMP/s.jsonl")" = 2 ] || fail "the session lacks its two proposals"

"$ARGUS" export "$TMP/s.jsonl" --format markdown -o "$TMP/r.md" || fail "export markdown failed"
head -n 3 "$TMP/r.md"
leaf=$(tail -n 1 "$SRC" | jq -r '.verdict.leaf')
load=$(head -n 1 "$SRC" | jq -r '.options.load')
head -n 1 "$TMP/r.md" | grep -qF "$leaf" || fail "the title does not name the verdict ($leaf)"
head -n 1 "$TMP/r.md" | grep -qF "$load" || fail "the title does not name the load ($load)"
head -n 1 "$TMP/r.md" | grep -qF "s.jsonl" && fail "the title is the file name"
grep -qxF -- "- load: \`$load\`" "$TMP/r.md" || fail "no line of its own for the load's command"
n=$(grep -c '^### Step 1$' "$TMP/r.md")
[ "$n" = 1 ] || fail "$n headings for step 1, want 1"
grep -q 'vetoed\|veto' "$TMP/r.md" || fail "the veto is not in the report"
n=$(grep -c 'clear_page_erms: a leaf' "$TMP/r.md")
[ "$n" -le 2 ] || fail "the descent is written $n times (the decisions once, the steps once)"
grep -q 'as in an earlier step' "$TMP/r.md" || fail "the repeated descent is not said to repeat"
echo ok
