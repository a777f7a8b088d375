#!/bin/sh
# --decay SECONDS (issue 24 item 11: live mode accumulated forever; perf top
# users expect decay).  Bad values are usage errors (exit 2) saying why, a
# typo gets its did-you-mean, a measurement or recorded files refuse it.
# Live (root), at 80x24 and 160x45 with a page-fault loop keeping the kernel
# sampled: the header says "decay 1s", and the tree's total falls behind the
# status bar's count of samples (which keeps them all) to under a third of
# it; the session keeps every sample counted, not the decayed view.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"

for bad in abc 0 -1 nan; do
	"$ARGUS" --decay "$bad" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc = 2 ] || fail "--decay $bad: exit $rc, not 2"
	grep -qF -- "--decay: '$bad'" "$TMP/err" || { cat "$TMP/err"; fail "--decay $bad: no reason given"; }
	grep -q 'usage: argus --decay SECONDS' "$TMP/err" || fail "--decay $bad: no usage line"
done
"$ARGUS" --decy 5 2>"$TMP/err"
[ $? = 2 ] && grep -qF "did you mean '--decay'" "$TMP/err" || fail "--decy: no did-you-mean"
"$ARGUS" --decay 5 --static "$FOLDED_LIVE" --no-session 2>"$TMP/err"
[ $? = 2 ] && grep -qF 'recorded files keep their counts' "$TMP/err" || fail "--decay with --static"
"$ARGUS" --help | grep -q -- '--decay SECONDS' || fail "--help does not list --decay"

need_root
need_scenario PF pagefault
"$PF" --seconds 600 >/dev/null &
BUSY=$!
at_exit "kill $BUSY 2>/dev/null"

"$ARGUS" --decay 5 --load true 2>"$TMP/err"
[ $? = 2 ] && grep -qF 'is for the live tree' "$TMP/err" || fail "--decay with a load"

status_samples() {
	screen | grep -o '[0-9.]*[kMG]* samples' | tail -1 |
		awk '{ v = $1; m = 1; if (sub(/k$/, "", v)) m = 1e3; else if (sub(/M$/, "", v)) m = 1e6;
			print int(v * m) }'
}
tree_total() {
	screen | awk '$0 ~ /[─▾▸] all / { for (i = 1; i <= NF; i++) if ($i == "all") { print $(i + 1); exit } }' |
		awk '{ v = $1; m = 1; if (sub(/k$/, "", v)) m = 1e3; else if (sub(/M$/, "", v)) m = 1e6;
			print int(v * m) }'
}

for size in "80 24" "160 45"; do
	set -- $size
	S="$TMP/s-$1.jsonl"
	start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color XDG_STATE_HOME="$TMP/state" \
		-- --theme mono --decay 1 --session "$S"
	wait_for " samples"
	screen | head -n 1 | grep -qF 'decay 1s' || { screen; fail "$1x$2: the header does not say decay 1s"; }
	# until the tree shows under a third of what was counted (at most 60 s):
	# without decay the two stay equal
	i=0 ok=0
	while [ $i -lt 600 ]; do
		s=$(status_samples) t=$(tree_total)
		if [ -n "$s" ] && [ -n "$t" ] && [ "$s" -ge 3000 ] && [ "$t" -gt 0 ] &&
		   [ $((t * 3)) -lt "$s" ]; then
			ok=1
			break
		fi
		i=$((i + 1))
		sleep 0.1
	done
	echo "$1x$2: status bar $s samples, tree $t"
	[ $ok = 1 ] || { screen; fail "$1x$2: the tree kept $t of $s samples with --decay 1"; }
	keys q
	expect_sane_exit
	# the session: every sample, not the decayed view
	"$ARGUS" replay --batch "$S" >"$TMP/r.txt" || fail "$1x$2: replay --batch failed"
	w1=$(sed -n 's/.*loaded window 1 of step 0: \([0-9]*\) samples.*/\1/p' "$TMP/r.txt")
	[ -n "$w1" ] && [ "$w1" -gt $((t * 2)) ] ||
		{ cat "$TMP/r.txt"; fail "$1x$2: the session holds ${w1:-no} samples, the decayed tree showed $t"; }
	tm kill-server
done
echo ok
