#!/bin/sh
# The README's "Teaching with recorded sessions" holds on the shipped files
# (no privileges): each session's verdict takes the route the README names
# below __handle_mm_fault; the first reference window has no sample of the
# load (it was paused) and holds the other work the README says ran;
# clear_page_erms rises significantly in the page-fault session (what `x`
# explains); no descent line of a replayed analysis says a share over 100%;
# the replayed pane offers only the keys that work in a replay, at 80x24
# and 160x45.
. "$(dirname "$0")/../lib.sh"
need_cmd jq
[ -x "$ARGUS" ] || fail "no $ARGUS; run make"
D="$ROOT/tests/data"
grep -q '^## Teaching with recorded sessions' "$ROOT/README.md" || fail "README lost its teaching section"

route() {
	S="$D/session-$1.jsonl"
	"$ARGUS" replay --batch "$S" >"$TMP/$1.txt" || fail "$1: replay --batch failed"
	p=$(grep '^path:' "$TMP/$1.txt")
	echo "$p" | grep -q -- "__handle_mm_fault > $2" || fail "$1: the verdict path ($p) does not go __handle_mm_fault > $2"
	grep -qF -- "\`$(echo "$2" | sed 's/ > .*//')" "$ROOT/README.md" || fail "README does not name $2"
	# the load paused in the reference windows: none of its samples there
	comm=$(jq -r 'select(.type=="header") | .options.load' "$S" | sed 's/ .*//; s,.*/,,')
	n=$(jq -rs --arg c "$comm" '[.[] | select(.type=="window" and .step==0 and .cond=="ref") | .stacks[] |
		select(.[2] == $c) | .[3]] | add // 0' "$S")
	[ "$n" = 0 ] || fail "$1: the reference windows hold $n samples of the load $comm"
	# the descent re-run over the recorded windows: no share over 100%
	"$ARGUS" export "$S" --format folded --cond ref -o "$TMP/$1.ref" || fail "$1: export ref"
	"$ARGUS" export "$S" --format folded -o "$TMP/$1.load" || fail "$1: export load"
	"$ARGUS" diff "$TMP/$1.ref" "$TMP/$1.load" --batch >"$TMP/$1.diff" 2>&1 || fail "$1: diff failed"
	if grep -E '(^|[^0-9.])[0-9]{3,}% of' "$TMP/$1.diff" | grep -vE '(^|[^0-9.])100% of' | grep .; then
		fail "$1: a share over 100%"
	fi
	echo "$1: __handle_mm_fault > $2"
}
route pagefault do_anonymous_page
route file_fault "do_fault > __do_fault > filemap_fault"
route cow_fault do_wp_page
route aggressor "do_fault > __do_fault > shmem_fault"

# the other work the README says ran in the first reference window
first_ref() {
	jq -r 'select(.type=="window" and .step==0 and .cond=="ref") | .stacks[] | .[2]' "$D/session-$1.jsonl" | sort -u
}
# (when re-recorded on a quiet machine, tests/data/record-sessions.sh, the
# README drops that note and this checks nothing else ran much)
if grep -q 'a compiler (`cc1`' "$ROOT/README.md"; then
	first_ref pagefault | grep -qx cc1 || fail "README says a compiler ran: no cc1 in pagefault's reference"
	first_ref cow_fault | grep -qx pagefault || fail "README says another page-fault loop ran in cow_fault's reference"
else
	for n in pagefault file_fault cow_fault; do
		first_ref $n | grep -qx 'cc1\|pagefault\|as' && fail "$n: other work in the reference the README does not mention"
	done
fi

"$ARGUS" export "$D/session-pagefault.jsonl" --format json >"$TMP/pf.json" || fail "export json"
jq -e '[.. | objects | select(.name? == "clear_page_erms" and .significant == true and .delta > 0)] | length > 0' \
	"$TMP/pf.json" >/dev/null || fail "clear_page_erms does not rise significantly in the page-fault session"

# the replayed pane: its hints are the replay's keys, not r/u/:/f
if command -v tmux >/dev/null 2>&1; then
	. "$(dirname "$0")/../tui/tmux.inc"
	for size in "80 24" "160 45"; do
		set -- $size
		start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color -- replay "$D/session-cow_fault.jsonl"
		wait_for "agent (replay)"
		keys '}'
		wait_for "n next"
		screen | grep -q 'r another\|f focus' && { screen; fail "$1x$2: the replay offers r/f"; }
		keys q
		expect_sane_exit
		echo "$1x$2: replay hints"
	done
fi
echo ok
