#!/bin/sh
# A session cut at an arbitrary byte (argus killed mid-write, a full disk)
# replays up to its last complete event with a clear note: --batch --json at
# several cut points, the markdown export of a cut file, and the TUI showing
# the note and stepping to the last complete event.  A file cut inside its
# header is refused with a reason.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"
need_cmd jq
SRC="$ROOT/tests/data/session-cow_fault.jsonl"
[ -f "$SRC" ] || skip "no $SRC"
size=$(stat -c %s "$SRC")
hdr=$(head -n 1 "$SRC" | wc -c)

for frac in 13 37 50 71 99; do
	cut=$((size * frac / 100 + 7))
	head -c "$cut" "$SRC" >"$TMP/cut.jsonl"
	# complete lines in the cut file, and whether it ends mid-line
	lines=$(tr -cd '\n' <"$TMP/cut.jsonl" | wc -c)
	tail -c 1 "$TMP/cut.jsonl" | od -An -c | grep -q '\\n' && midline=0 || midline=1
	"$ARGUS" replay "$TMP/cut.jsonl" --batch --json >"$TMP/r.json" 2>"$TMP/err" ||
		{ cat "$TMP/err"; fail "replay of a file cut at byte $cut failed"; }
	ev=$(jq '.events | length' "$TMP/r.json")
	[ "$ev" -eq $((lines - 1)) ] || fail "cut at $cut: $ev events, expected $((lines - 1))"
	if [ $midline = 1 ]; then
		jq -e '.truncated == true and (.notes | any(test("session ends mid-event at byte [0-9]+ .*replaying up to there")))' \
			"$TMP/r.json" >/dev/null || fail "cut at $cut: no truncation note"
	fi
	echo "cut at byte $cut of $size: $ev events, truncated=$(jq .truncated "$TMP/r.json")"
done

# the last cut (99%) has no verdict event: export says so, with the note
head -c $((size - 200)) "$SRC" >"$TMP/cut.jsonl"
"$ARGUS" replay "$TMP/cut.jsonl" --batch --json | jq -e '.verdict == null' >/dev/null ||
	fail "a file cut before its verdict replayed a verdict"
"$ARGUS" export "$TMP/cut.jsonl" --format markdown >"$TMP/cut.md" 2>"$TMP/err" || fail "export of a cut file failed"
grep -q 'session ends mid-event' "$TMP/err" || fail "export did not pass on the note"
grep -q 'session ends mid-event' "$TMP/cut.md" || fail "the report lacks the note"
grep -q 'holds no verdict up to here' "$TMP/cut.md" || fail "the report does not say the verdict is argus's own descent"

# inside the header: refused with the reason
head -c $((hdr / 2)) "$SRC" >"$TMP/hdr.jsonl"
"$ARGUS" replay "$TMP/hdr.jsonl" --batch 2>"$TMP/err" && fail "a cut header was accepted"
grep -q 'header is incomplete' "$TMP/err" || { cat "$TMP/err"; fail "no reason for the cut header"; }

# the TUI: the note before the first event, the last complete event at the end
head -c $((size * 50 / 100 + 7)) "$SRC" >"$TMP/cut.jsonl"
lines=$(tr -cd '\n' <"$TMP/cut.jsonl" | wc -c)
start 120 30 LANG=C.UTF-8 TERM=xterm-256color -- replay "$TMP/cut.jsonl"
wait_for "session ends mid-event at byte"
keys '}'
wait_for "replay event $((lines - 1))/$((lines - 1)): window"
keys q
expect_sane_exit
echo ok
