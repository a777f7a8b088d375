#!/bin/sh
# Live (root).  A focus (f) on another node while a proposal waits does not
# replace the session's verdict (issue 24 item 8): at 80x24 and 160x45,
# --load of the page-fault loop until the agent's first proposal waits;
# search do_syscall_64 (another branch: the loop's munmap calls, and every
# process's system calls) and press f; its finding is labelled as one
# ("finding (focus on ..."); q.  Then `argus replay --batch --json` of the
# session and `argus export --format json` keep the verdict the session
# gave before the focus (the load's page-fault path, through
# handle_mm_fault), not the focus's "no bottleneck found under ..." or its
# own path; the session keeps the focus as an exploration.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd jq
. "$(dirname "$0")/tmux.inc"
need_scenario PF pagefault

for size in "80 24" "160 45"; do
	set -- $size
	S="$TMP/s-$1.jsonl"
	start_proposal "$S" "step 1 (run 1 of at most" 40 "$1" "$2" LANG=C.UTF-8 \
		TERM=xterm-256color XDG_STATE_HOME="$TMP/state" -- --load "$PF --seconds 120" \
		--pairs 3 --session "$S" --theme mono
	wait_for "a accept"
	# the diagnosis the session holds before the focus
	first=$(jq -rs '[.[] | select(.type=="verdict" and .exploration == null)] | last | .verdict.leaf // empty' "$S")
	[ -n "$first" ] || fail "$1x$2: no verdict in the session when the proposal waits"
	jq -se '[.[] | select(.type=="verdict" and .exploration == null)] | last | .verdict.path | index("handle_mm_fault")' \
		"$S" >/dev/null || fail "$1x$2: the first verdict ($first) is not the load's page-fault path"
	keys /
	keys "do_syscall_64" Enter
	wait_re '^.{0,60}do_syscall_64' || fail "$1x$2: the search did not reach do_syscall_64"
	keys f
	wait_long "finding (focus on" 30
	keys q
	expect_sane_exit
	jq -se 'any(.[]; .type=="verdict" and (.exploration | tostring | startswith("focus on do_syscall_64")))' \
		"$S" >/dev/null || fail "$1x$2: the focus on do_syscall_64 is not recorded as an exploration"
	"$ARGUS" replay --batch --json "$S" > "$TMP/replay.json" || fail "$1x$2: replay --batch failed"
	leaf=$(jq -r '.verdict.leaf // empty' "$TMP/replay.json")
	summary=$(jq -r '.verdict.summary // empty' "$TMP/replay.json")
	echo "$1x$2: before the focus $first; replay: $leaf ($(echo "$summary" | cut -c1-120))"
	[ "$leaf" = "$first" ] || fail "$1x$2: the focus replaced the verdict: $first became $leaf"
	case "$summary" in
	"no bottleneck found"*) fail "$1x$2: the session's verdict became '$summary'" ;;
	esac
	"$ARGUS" export "$S" --format json > "$TMP/export.json" || fail "$1x$2: export failed"
	jq -e --arg l "$first" '.verdict.leaf == $l' "$TMP/export.json" >/dev/null ||
		fail "$1x$2: the export's verdict is $(jq -r '.verdict.leaf' "$TMP/export.json"), not $first"
done
echo ok
