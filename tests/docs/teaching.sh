#!/bin/sh
# The README's "Teaching with recorded sessions" holds on the shipped files
# (no privileges): each session's verdict takes the route the README names
# below __handle_mm_fault; the first reference window has no sample of the
# load (it was paused) and shows the idle machine (tests/data/session-quiet.sh),
# or, while the README says other work ran, holds that work; the first
# loaded window is mostly the load; clear_page_erms rises significantly in
# the page-fault session, and `x` on it says so (and on exc_page_fault,
# skid); no descent line of a replayed analysis says a share over 100%; the
# replay starts empty, n shows the first window, the second pair is
# calibrated, the end marks the ◆ path; the replayed pane offers only the
# keys that work in a replay, and the key the README says steps back does,
# at 80x24 and 160x45.
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

# the first loaded window shows the load's kernel paths appear: the load
# (the victim, filtered to, in the aggressor's) holds most of its non-idle
# samples (a single-threaded load on 2 CPUs leaves the other one idle)
first_load_share() {
	jq -rs '(.[] | select(.type == "header") | .options) as $o
		| (($o.victim // $o.load) | sub(" .*"; "") | sub(".*/"; "") | .[0:15]) as $c
		| [.[] | select(.type == "window" and .step == 0 and .cond == "load")][0] as $w
		| ([$w.stacks[] | select(.[2] == $c) | .[3]] | add // 0) as $n
		| ([$w.stacks[] | select(.[1] != 0) | .[3]] | add // 0) as $all
		| if $all > 0 then (100 * $n / $all | floor) else 0 end' "$D/session-$1.jsonl"
}
# the first reference window: what the README says it shows
first_ref() {
	jq -r 'select(.type=="window" and .step==0 and .cond=="ref") | .stacks[] | .[2]' "$D/session-$1.jsonl" | sort -u
}
if tr '\n' ' ' <"$ROOT/README.md" | grep -q 'a compiler (`cc1`'; then
	# recorded on a busy machine, and the README says so
	first_ref pagefault | grep -qx cc1 || fail "README says a compiler ran: no cc1 in pagefault's reference"
	first_ref cow_fault | grep -qx pagefault || fail "README says another page-fault loop ran in cow_fault's reference"
else
	# "the first reference window shows the idle machine": the idle tasks
	# hold >= 90% of it, and no other process is in any window
	# (tests/data/session-quiet.sh, which tests/data/record-sessions.sh
	# checks each recording with)
	tr '\n' ' ' <"$ROOT/README.md" | tr -s ' ' |
		grep -q 'first reference window (the load paused) shows the idle machine' ||
		fail "README lost its claim on the first reference window"
	for n in pagefault file_fault cow_fault aggressor; do
		"$D/session-quiet.sh" "$D/session-$n.jsonl" || fail "$n: not the quiet machine the README says"
		sh=$(first_load_share $n)
		[ "$sh" -ge 50 ] || fail "$n: the load holds $sh% of the first loaded window, not most of it"
	done
	tr '\n' ' ' <"$D/README" | tr -s ' ' | grep -q 'recorded by tests/data/record-sessions.sh on [^ ]* at a 1-minute load average of [0-9]' ||
		fail "tests/data/README does not say the load average of the recording"
fi

# "a glossary of over N kernel functions ships with argus"
n=$(tr '\n' ' ' <"$ROOT/README.md" | sed -n 's/.*a glossary of over \([0-9]*\) kernel functions.*/\1/p')
[ -n "$n" ] || fail "README no longer says how large the glossary is"
have=$(grep -c '^	G("' "$ROOT/core/analysis/glossary_table.c")
[ "$have" -gt "$n" ] || fail "README says a glossary of over $n functions; core/analysis/glossary_table.c has $have"
echo "glossary: $have functions (README: over $n)"

"$ARGUS" export "$D/session-pagefault.jsonl" --format json >"$TMP/pf.json" || fail "export json"
jq -e '[.. | objects | select(.name? == "clear_page_erms" and .significant == true and .delta > 0)] | length > 0' \
	"$TMP/pf.json" >/dev/null || fail "clear_page_erms does not rise significantly in the page-fault session"

# the replayed pane: its hints are the replay's keys, not r/u/:/f; and `x`
# says what the README says it does on exc_page_fault and clear_page_erms
if command -v tmux >/dev/null 2>&1; then
	. "$(dirname "$0")/../tui/tmux.inc"
	start 160 45 LANG=C.UTF-8 TERM=xterm-256color -- replay "$D/session-pagefault.jsonl"
	wait_for "agent (replay)"
	keys '}'
	wait_for "replay event"
	# explain NAME: x on the first node named NAME (search, then > to the
	# next match while the name only contains NAME), the popup's text
	explain() {
		keys / && sleep 0.2 && keys "$1" Enter
		i=0
		while :; do
			keys x
			wait_for "what is "
			screen | grep -q "what is $1 " && break
			keys Escape
			wait_gone "what is "
			i=$((i + 1))
			[ $i -lt 5 ] || fail "cannot select $1"
			keys '>'
			sleep 0.2
		done
		screen >"$TMP/x-$1.txt"
		keys Escape
		wait_gone "what is $1"
	}
	explain clear_page_erms
	LC_ALL=C tr -s ' x|' ' ' <"$TMP/x-clear_page_erms.txt" | LC_ALL=C tr '\n' ' ' >"$TMP/x-cpe.flat"
	grep -q 'first-touch page faults' "$TMP/x-cpe.flat" || { cat "$TMP/x-clear_page_erms.txt"; fail "x on clear_page_erms: not why first-touch faults cost"; }
	# a rise: "N times more" over a busy reference, "new under load" over
	# an idle one (the shipped files); significant either way
	LC_ALL=C grep -Eq '(times more|new under load).*the difference is significant' "$TMP/x-cpe.flat" ||
		{ cat "$TMP/x-clear_page_erms.txt"; fail "x on clear_page_erms does not show a significant rise"; }
	explain exc_page_fault
	LC_ALL=C tr -s ' x|' ' ' <"$TMP/x-exc_page_fault.txt" | LC_ALL=C tr '\n' ' ' | grep -q 'sampling skid' ||
		{ cat "$TMP/x-exc_page_fault.txt"; fail "x on exc_page_fault does not speak of sampling skid"; }
	keys q
	expect_sane_exit
	echo "x on clear_page_erms: a significant rise; on exc_page_fault: skid"
	back=$(sed -n 's/.*`\(.\)` steps back.*/\1/p' "$ROOT/README.md" | head -1)
	[ -n "$back" ] || fail "the README does not say which key steps back"
	for size in "80 24" "160 45"; do
		set -- $size
		start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color -- replay "$D/session-cow_fault.jsonl"
		wait_for "agent (replay)"
		# "The tree starts empty. Press n to step forward ... From the second
		# pair on, the tree is calibrated ... until the verdict appears and its
		# path is marked ◆"
		# (the first event holds until n: waiting for it is no weaker than one look)
		wait_re '^ *─ all +0 ' || fail "$1x$2: the replayed tree does not start empty"
		keys n
		wait_for "replay event 1/"
		wait_re 'replay event 1/[0-9]*: window' || fail "$1x$2: n is not the first window"
		screen | grep -q 'ref/s' && { screen; fail "$1x$2: calibrated after one window"; }
		keys n n n
		wait_for "ref/s"
		keys '}'
		wait_for "n next"
		screen | grep -q '◆' || { screen; fail "$1x$2: no ◆ path at the end"; }
		screen | grep -q 'r another\|f focus' && { screen; fail "$1x$2: the replay offers r/f"; }
		# "`K` steps back": the key the README names, and the pane's hint too
		ev=$(screen | grep -o 'replay event [0-9]*/[0-9]*' | head -1)
		n=${ev##*/}
		screen | grep -q "n next  $back back" || { screen; fail "$1x$2: the hint does not say $back back"; }
		keys "$back"
		wait_for "replay event $((n - 1))/$n" || fail "$1x$2: $back does not step back"
		keys q
		expect_sane_exit
		echo "$1x$2: replay hints"
	done
fi
echo ok
