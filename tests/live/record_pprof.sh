#!/bin/sh
# argus record --format pprof on the live kernel: go tool pprof reads it,
# its -top total equals what argus itself reads back, the window's length
# is the recording's, and the page-fault load's stacks are in it.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd jq
command -v go >/dev/null 2>&1 || skip "needs go (golang-go: make deps) for go tool pprof"
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
[ -x "$BUILD/scenarios/pagefault" ] || skip "no $BUILD/scenarios/pagefault; run make"
export HOME="${HOME:-$TMP}" GOCACHE="$TMP/gocache" PPROF_TMPDIR="$TMP/pprof"
"$ARGUS" record -d 3 --format pprof -- "$BUILD/scenarios/pagefault" --seconds 10 >"$TMP/r.pb.gz" 2>"$TMP/err" ||
	fail "record --format pprof exited $?: $(cat "$TMP/err")"
go tool pprof -raw "$TMP/r.pb.gz" >"$TMP/r.raw" 2>"$TMP/gerr" || fail "go tool pprof -raw: $(cat "$TMP/gerr")"
grep -q 'comm:\[pagefault\]' "$TMP/r.raw" || fail "no pagefault samples: $(head -n 20 "$TMP/r.raw")"
top=$(go tool pprof -top -sample_index=samples "$TMP/r.pb.gz" 2>/dev/null | sed -n 's/.* of \([0-9]*\) total.*/\1/p' | head -n 1)
"$ARGUS" diff "$TMP/r.pb.gz" "$TMP/r.pb.gz" --batch --json --session "$TMP/s.jsonl" >/dev/null 2>"$TMP/err" ||
	fail "argus cannot read its own recording: $(cat "$TMP/err")"
back=$(jq -s '[.[] | select(.type == "window" and .cond == "load") | .samples] | add' "$TMP/s.jsonl")
secs=$(jq -s '[.[] | select(.type == "window" and .cond == "load") | .secs] | add' "$TMP/s.jsonl")
[ -n "$top" ] && [ "$top" = "$back" ] || fail "go tool pprof -top total '$top', argus read back $back"
awk -v s="$secs" 'BEGIN { exit !(s > 2.5 && s < 4) }' || fail "window length $secs s for a 3 s recording"
grep -q "do_anonymous_page\|handle_mm_fault" "$TMP/r.raw" || fail "no page-fault frames"
echo "ok: record --format pprof: $top samples, $secs s, read by go tool pprof and argus"
