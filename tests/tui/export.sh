#!/bin/sh
# argus export over the shipped sessions (no privileges, no terminal):
#  - markdown has the verdict, the path, the tree around it and the decisions,
#  - folded stacks of each condition parse back through `argus diff` and give
#    the same verdict leaf as the session,
#  - JSON carries the calibrated tree with both conditions and the verdict,
#  - usage errors are refused with exit status 2.
. "$(dirname "$0")/../lib.sh"
need_cmd jq
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
D="$ROOT/tests/data"
for name in pagefault file_fault cow_fault aggressor; do
	S="$D/session-$name.jsonl"
	[ -f "$S" ] || fail "no $S"
	leaf=$(tail -n 1 "$S" | jq -r '.verdict.leaf')
	[ -n "$leaf" ] && [ "$leaf" != null ] || fail "$name: the shipped session has no verdict"

	"$ARGUS" export "$S" --format markdown -o "$TMP/$name.md" || fail "$name: export markdown failed"
	grep -q '^## Verdict' "$TMP/$name.md" || fail "$name: no verdict section"
	grep -q '^\*\*Found\*\*' "$TMP/$name.md" || fail "$name: verdict not stated"
	grep -q "^Path ([a-z]*): .*\`$leaf\`" "$TMP/$name.md" || fail "$name: path to $leaf missing"
	grep -q '^## The tree around the path' "$TMP/$name.md" || fail "$name: no tree section"
	grep -q "| \*\*$leaf\*\* |" "$TMP/$name.md" || fail "$name: $leaf not marked in the tree table"
	grep -q '^## Decisions' "$TMP/$name.md" || fail "$name: no decisions"

	"$ARGUS" export "$S" --format folded --cond ref -o "$TMP/$name.ref" || fail "$name: folded ref"
	"$ARGUS" export "$S" --format folded -o "$TMP/$name.load" || fail "$name: folded (load)"
	head -n 1 "$TMP/$name.load" | grep -q 'cond=load' || fail "$name: folded default is not load"
	"$ARGUS" diff "$TMP/$name.ref" "$TMP/$name.load" --batch --json >"$TMP/$name.diff" 2>"$TMP/err" ||
		{ cat "$TMP/err"; fail "$name: argus diff could not read the exported folded stacks"; }
	jq -e --arg l "$leaf" '.verdict.path | index($l)' "$TMP/$name.diff" >/dev/null ||
		fail "$name: diff of the exported stacks lost $leaf ($(jq -c .verdict.path "$TMP/$name.diff"))"
	tot=$(grep -v '^#' "$TMP/$name.load" | awk '{n += $NF} END {print n}')
	want=$(jq -s '[.[] | select(.type == "window" and .step == 0 and .cond == "load") | .samples] | add' "$S")
	[ "$tot" = "$want" ] || fail "$name: folded load has $tot samples, the session $want"

	"$ARGUS" export "$S" --format json >"$TMP/$name.json" || fail "$name: export json"
	jq -e --arg l "$leaf" '.format == "argus-export" and .verdict.leaf == $l and
		.tree.ref.rate > 0 and .tree.load.rate > 0 and
		([.. | objects | select(.verdict_path? == true) | .name] | index($l)) != null' \
		"$TMP/$name.json" >/dev/null || fail "$name: json lacks the tree, both conditions or the verdict path"
	echo "$name: $leaf (markdown, folded through diff, json)"
done
"$ARGUS" export "$D/session-pagefault.jsonl" --format svg 2>/dev/null; [ $? -eq 2 ] || fail "unknown format not a usage error"
"$ARGUS" export "$D/session-pagefault.jsonl" --format json --cond ref 2>/dev/null; [ $? -eq 2 ] || fail "--cond with json not a usage error"
"$ARGUS" export "$D/ref.folded" --format json 2>"$TMP/err"; [ $? -eq 1 ] || fail "a folded file exported as a session"
grep -q 'not an argus session' "$TMP/err" || fail "no reason given for a non-session"
echo ok
