#!/bin/sh
# argus replay as an unprivileged user (setpriv to nobody when run as root)
# over a shipped session (tests/data/session-pagefault.jsonl, copied to a
# readable place): it opens before the first event, n steps forward and the
# tree changes, } reaches the verdict (status bar and footer say so, the
# verdict path is marked), p steps back, x explains a node from the
# glossary with its numbers in words, w writes the markdown report, q quits.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"
need_cmd jq
SRC="$ROOT/tests/data/session-pagefault.jsonl"
[ -f "$SRC" ] || skip "no $SRC"
W="$TMP/work"
mkdir -p "$W"
cp "$SRC" "$W/pf.jsonl"
chmod 755 "$TMP" "$W"
chmod 644 "$W/pf.jsonl"
N=$(tail -n +2 "$SRC" | grep -c .)
if [ "$(id -u)" = 0 ]; then
	need_cmd setpriv
	chmod 777 "$W"
	# nobody can reach argus in the worktree?
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$ARGUS" ||
		skip "user nobody cannot run $ARGUS (a path component is not searchable)"
	ARGUS="setpriv --reuid=65534 --regid=65534 --clear-groups $ARGUS"
	who=nobody
else
	who=$(id -un)
fi
cd "$W" || fail "cannot cd to $W"
start 120 40 LANG=C.UTF-8 TERM=xterm-256color HOME="$W" -- replay "$W/pf.jsonl"
wait_for "replay event 0/$N"
screen | grep -q 'clear_page_erms' && fail "the tree shows data before the first event"

keys n
wait_for "replay event 1/$N: window"
wait_for "reference window 1 of step 0"
keys n
wait_for "replay event 2/$N: window"
wait_for "ref/s"      # two conditions: the tree is calibrated now
keys '}'
wait_for "replay event $N/$N: verdict"
wait_for " verdict: "   # "mm: ..." or "the increase spreads over 2 branches: mm: ..."
screen | grep -q ' verdict: .*mm: ' || fail "the verdict line does not name mm"
wait_for "◆ do_anon"   # the name may be shortened in the middle (do_anon…us_page)
keys b
wait_for "replay event $((N - 1))/$N"
keys '}'
wait_for "replay event $N/$N: verdict"

# x on a node: the glossary text and the numbers in words
keys / d o _ a n o n Enter
keys x
wait_for "what is do_anonymous_page"
wait_for "First touch of anonymous memory"
wait_for "times a second while loaded"
keys q
wait_gone "what is do_anonymous_page"

# w: the markdown report, named after the session
keys w
wait_for "wrote ./pf.md"
[ -f "$W/pf.md" ] || fail "no report written"
grep -q '^## Verdict' "$W/pf.md" || fail "report without a verdict section"
grep -q 'do_anonymous_page' "$W/pf.md" || fail "report without the verdict path"
owner=$(stat -c %U "$W/pf.md")
[ "$owner" = "$who" ] || fail "report owned by $owner, expected $who"

keys q
expect_sane_exit
echo "ok: replayed $N events as $who"
