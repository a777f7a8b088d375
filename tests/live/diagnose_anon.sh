#!/bin/sh
# `argus diagnose` on the anonymous page-fault scenario names
# do_anonymous_page on its verdict path, and ends the load it started.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd jq
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
[ -x "$BUILD/scenarios/pagefault" ] || skip "no scenario loads; run make"

cp "$BUILD/scenarios/pagefault" "$TMP/anonload"
"$ARGUS" diagnose --batch --json -- "$TMP/anonload" >"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/err"
[ $rc -eq 0 ] || fail "diagnose exited $rc"
jq -c '.verdict' "$TMP/out"
[ "$(jq -r '.verdict.found' "$TMP/out")" = true ] || fail "no bottleneck found"
# the load's path is the verdict, or (where other processes' work on a busy
# machine also differs between the windows and the increase spreads) one
# of its branches carrying a quarter of the increase at least
jq -e '(.verdict.subsystem == "mm" and (.verdict.path | index("do_anonymous_page"))) or
	([.verdict.branches // [] | .[] | select(.share >= 0.25 and (.path | index("do_anonymous_page")))] | length > 0)' "$TMP/out" >/dev/null ||
	fail "the verdict is not mm through do_anonymous_page (nor a branch of it)"
# sequential stopping (tests/live/seqstop.sh checks it and --fixed's 12 windows)
p=$(jq -r '.stopping.pairs' "$TMP/out")
[ "$(jq ".windows | length" "$TMP/out")" -eq $((2 * p)) ] || fail "expected 2 x $p windows"
jq -e --argjson p "$p" '[.windows[] | select(.cond == "ref")] | length == $p' "$TMP/out" >/dev/null ||
	fail "expected $p reference windows"
pgrep -f "$TMP/anonload" && fail "the load is still running after diagnose"
echo "ok: $(jq -r '.verdict.summary' "$TMP/out")"
exit 0
