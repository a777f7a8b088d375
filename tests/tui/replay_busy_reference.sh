#!/bin/sh
# A busy reference is warned about at every use (issue 24 item 7), a replay
# and a report too: the run writes the warning into its session as a note
# (tests/tui/busy_reference.sh checks that, as root); here a shipped
# session with that note added, unprivileged: `argus replay` at 80x24 and
# 160x45 says it in the agent pane from event 0 on (before the note's
# own place), whole (its last words seen); `export --format markdown` says it at the
# top, before the verdict.  The same session without the note: no warning
# (old sessions read as before).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"
SRC="$ROOT/tests/data/session-pagefault.jsonl"
[ -f "$SRC" ] || skip "no $SRC"
S="$TMP/busy.jsonl"
W='warning: the saved reference was recorded on a busy system (load average 3.10 on 2 CPUs (limit 0.50)): what the load does may hide under what ran then; save it again on an idle system ('"'"'argus reference save --strict'"'"')'
{
	head -n 1 "$SRC"
	printf '{"type":"note","t":0.01,"text":"%s"}\n' "$W"
	tail -n +2 "$SRC"
} >"$S"

for size in "80 24" "160 45"; do
	set -- $size
	start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color HOME="$TMP" -- replay "$S"
	wait_for "replay event 0/"
	wait_for "!! warning: the saved reference was recorded on a busy"
	wait_for "--strict')"
	# at event 0 the note (event 1) is not replayed yet: the warning is the
	# session's, said at any position
	screen | grep -q 'replay event 0/' || fail "$1x$2: not at event 0"
	keys q
	expect_sane_exit
	tm kill-server
done

"$ARGUS" export "$S" --format markdown -o "$TMP/r.md" || fail "export markdown failed"
wl=$(grep -nF '**warning: the saved reference was recorded on a busy system' "$TMP/r.md" | head -n 1 | cut -d: -f1)
vl=$(grep -n '^## Verdict' "$TMP/r.md" | head -n 1 | cut -d: -f1)
[ -n "$wl" ] || { cat "$TMP/r.md"; fail "the report does not warn about the busy reference"; }
[ -n "$vl" ] && [ "$wl" -lt "$vl" ] || fail "the warning is not above the verdict (line $wl, verdict $vl)"
grep -qF -- "--strict')**" "$TMP/r.md" || fail "the warning is cut in the report"

# an old session, without the note: nothing said
"$ARGUS" export "$SRC" --format markdown -o "$TMP/old.md" || fail "export of the old session failed"
grep -q 'busy system' "$TMP/old.md" && fail "a warning in a session without one"
start 80 24 LANG=C.UTF-8 TERM=xterm-256color HOME="$TMP" -- replay "$SRC"
wait_for "replay event 0/"
keys '}'
wait_for "◆ do_anonymous_page"
screen_joined | grep -q 'busy system' && fail "the replay of an old session warns"
keys q
expect_sane_exit
echo ok
