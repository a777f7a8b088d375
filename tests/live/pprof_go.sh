#!/bin/sh
# pprof with a real consumer and producer, go tool pprof (Debian's
# golang-go; no privileges needed).  For every shipped session and both
# conditions: argus's pprof decodes with `go tool pprof -raw` to exactly
# the stacks and counts of the folded export of the same session, and
# `-top` totals the same samples; the pprof pair through `argus diff` gives
# the session's own verdict; `go tool pprof -proto` re-encodes the profile
# (Go's writer) and argus reads that back to the same verdict and samples.
# Bad input (truncated, gzip garbage, binary garbage, user frames only) is
# refused with exit status 1 and a message naming the file.
. "$(dirname "$0")/../lib.sh"
need_cmd jq
need_cmd python3
command -v go >/dev/null 2>&1 || skip "needs go (golang-go: make deps) for go tool pprof"
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
D="$ROOT/tests/data"
export HOME="${HOME:-$TMP}" GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath" PPROF_TMPDIR="$TMP/pprof"
RAW="python3 $ROOT/tests/pprof_raw.py"
n=0
for s in "$D"/session-*.jsonl; do
	b=$(basename "$s" .jsonl)
	for c in ref load; do
		"$ARGUS" export "$s" --format pprof --cond $c -o "$TMP/$b-$c.pb.gz" 2>"$TMP/err" ||
			fail "export pprof $b $c: $(cat "$TMP/err")"
		"$ARGUS" export "$s" --format folded --cond $c >"$TMP/$b-$c.folded" ||
			fail "export folded $b $c"
		go tool pprof -raw "$TMP/$b-$c.pb.gz" >"$TMP/$b-$c.raw" 2>"$TMP/err" ||
			fail "go tool pprof -raw $b $c: $(cat "$TMP/err")"
		$RAW compare "$TMP/$b-$c.raw" "$TMP/$b-$c.folded" >"$TMP/cmp" ||
			fail "$b $c: go tool pprof -raw differs from the folded export: $(cat "$TMP/cmp")"
		total=$(awk '!/^#/ { s += $NF } END { print s + 0 }' "$TMP/$b-$c.folded")
		top=$(go tool pprof -top -sample_index=samples "$TMP/$b-$c.pb.gz" 2>/dev/null |
			sed -n 's/.* of \([0-9]*\) total.*/\1/p' | head -n 1)
		[ "$top" = "$total" ] || fail "$b $c: go tool pprof -top total '$top', folded export $total"
		n=$((n + 1))
		echo "ok: $b $c: $(cat "$TMP/cmp"); -top total $top"
	done
	# both conditions in one file: -raw shows the labels argus promised
	"$ARGUS" export "$s" --format pprof -o "$TMP/$b.pb.gz" || fail "export pprof $b"
	go tool pprof -raw "$TMP/$b.pb.gz" >"$TMP/$b.raw" 2>/dev/null || fail "go tool pprof -raw $b"
	for l in 'condition:\[ref\]' 'condition:\[load\]' 'subsystem:\[' 'comm:\[' 'window:\[' 'pid:\['; do
		grep -q "$l" "$TMP/$b.raw" || fail "$b: no label $l in go tool pprof -raw"
	done
	grep -q '^PeriodType: cpu nanoseconds' "$TMP/$b.raw" && grep -q '^Period: 1001001' "$TMP/$b.raw" &&
		grep -q '^Duration: ' "$TMP/$b.raw" && grep -q '^Time: ' "$TMP/$b.raw" &&
		grep -q 'samples/count cpu/nanoseconds' "$TMP/$b.raw" ||
		fail "$b: sample types, period or times missing: $(head -n 12 "$TMP/$b.raw")"

	# the round trip: pprof -> argus diff gives the session's verdict
	want=$("$ARGUS" export "$s" --format json | jq -c '[.verdict.found, .verdict.path]')
	"$ARGUS" diff "$TMP/$b-ref.pb.gz" "$TMP/$b-load.pb.gz" --batch --json >"$TMP/d.json" 2>"$TMP/err" ||
		fail "diff pprof $b: $(cat "$TMP/err")"
	got=$(jq -c '[.verdict.found, .verdict.path]' "$TMP/d.json")
	[ "$got" = "$want" ] || fail "$b: diff of the pprof pair says $got, the session $want"
	"$ARGUS" diagnose --batch --json --ref-file "$TMP/$b-ref.pb.gz" --load-file "$TMP/$b-load.pb.gz" \
		>"$TMP/dg.json" 2>"$TMP/err" || fail "diagnose --ref-file/--load-file $b: $(cat "$TMP/err")"
	[ "$(jq -c '[.verdict.found, .verdict.path]' "$TMP/dg.json")" = "$want" ] ||
		fail "$b: diagnose --ref-file/--load-file says $(jq -c '.verdict.path' "$TMP/dg.json")"
	# one file holding both conditions reads as either
	"$ARGUS" diff "$TMP/$b.pb.gz" "$TMP/$b.pb.gz" --batch --json >"$TMP/d2.json" || fail "diff both $b"
	[ "$(jq -c '[.verdict.found, .verdict.path]' "$TMP/d2.json")" = "$want" ] ||
		fail "$b: the two-condition pprof read twice gives another verdict"

	# Go's own encoder: go tool pprof -proto, read back by argus
	for c in ref load; do
		go tool pprof -proto "$TMP/$b-$c.pb.gz" >"$TMP/$b-$c.go.pb.gz" 2>/dev/null ||
			fail "go tool pprof -proto $b $c"
	done
	"$ARGUS" diff "$TMP/$b-ref.go.pb.gz" "$TMP/$b-load.go.pb.gz" --batch --json \
		--session "$TMP/$b-go.jsonl" >"$TMP/d3.json" 2>"$TMP/err" || fail "diff go-encoded $b: $(cat "$TMP/err")"
	[ "$(jq -c '[.verdict.found, .verdict.path]' "$TMP/d3.json")" = "$want" ] ||
		fail "$b: the go-re-encoded pair gives $(jq -c '.verdict.path' "$TMP/d3.json"), the session $want"
	for c in ref load; do
		got=$(jq -s --arg c $c '[.[] | select(.type == "window" and .cond == $c) | .samples] | add' "$TMP/$b-go.jsonl")
		want_n=$(awk '!/^#/ { s += $NF } END { print s + 0 }' "$TMP/$b-$c.folded")
		[ "$got" = "$want_n" ] || fail "$b $c: go-re-encoded pprof read back to $got samples, folded $want_n"
	done
	echo "ok: $b: verdict $(jq -r '.verdict.path[-1] // "none"' "$TMP/d.json") from argus's pprof, the two-condition file and go's re-encoding"
done
[ $n -ge 10 ] || fail "only $n profiles checked"

# wall-clock time (issue 27 item 5): a session with time accounting has a
# sample type per kind in nanoseconds, go tool pprof totals the blocked one
# to the [blocked] samples of the folded export times the period, the waker
# is a label it filters by, and the kind is no frame; a session without it
# keeps the two sample types
s="$D/session-aggressor.jsonl"
"$ARGUS" export "$s" --format pprof -o "$TMP/wall.pb.gz" || fail "export pprof aggressor"
go tool pprof -raw "$TMP/wall.pb.gz" >"$TMP/wall.raw" 2>/dev/null || fail "go tool pprof -raw aggressor"
grep -q '^samples/count cpu/nanoseconds\[dflt\] blocked/nanoseconds runnable/nanoseconds$' "$TMP/wall.raw" ||
	fail "aggressor: sample types: $(grep -A1 '^Samples:' "$TMP/wall.raw")"
grep -q 'waker:\[task aggressor (tgid [0-9]*)\]' "$TMP/wall.raw" && grep -q 'ran_instead:\[idle\]' "$TMP/wall.raw" ||
	fail "aggressor: no waker / ran_instead label in go tool pprof -raw"
grep -q '\[blocked\]\|\[on-cpu\]\|\[runnable\]\|\[woken by' "$TMP/wall.raw" && fail "aggressor: a kind or waker frame is still a location"
blocked=$("$ARGUS" export "$s" --format folded --cond load | awk '/^\[blocked\];/ { s += $NF } END { print s + 0 }')
[ "$blocked" -gt 0 ] || fail "aggressor: no [blocked] samples in the folded export"
for f in "" "-tagfocus=waker=aggressor"; do
	got=$(go tool pprof -top -sample_index=blocked -unit=ns $f "$TMP/wall.pb.gz" 2>"$TMP/err" |
		sed -n 's/.* of \([0-9]*\)ns total.*/\1/p' | head -n 1)
	[ "$got" = "$((blocked * 1001001))" ] ||
		fail "aggressor: go tool pprof -sample_index=blocked $f totals '$got' ns, want $blocked x 1001001: $(cat "$TMP/err")"
done
go tool pprof -top -sample_index=blocked "$TMP/wall.pb.gz" 2>/dev/null | grep -q '^Type: blocked$' ||
	fail "aggressor: go tool pprof does not show Type: blocked"
go tool pprof -raw "$TMP/session-pagefault.pb.gz" 2>/dev/null | grep -q '^samples/count cpu/nanoseconds\[dflt\]$' ||
	fail "pagefault: a profile without time accounting has other sample types"
echo "ok: wall-clock pprof: blocked/nanoseconds totals $blocked samples x the period, waker and ran_instead labels"

# bad input: a clear message naming the file, exit 1, never a crash
p="$TMP/session-pagefault-load.pb.gz"
head -c 100 "$p" >"$TMP/cut.pb.gz"
printf '\037\213\010\000garbage-garbage-garbage' >"$TMP/junk.pb.gz"
head -c 300 /dev/urandom | tr -d '\000' | sed '1s/^/\x00/' >"$TMP/bin.dat"
$RAW user-only "$TMP/user.pb.gz"
for f in cut.pb.gz junk.pb.gz bin.dat user.pb.gz; do
	"$ARGUS" diff "$TMP/$f" "$p" --batch >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc = 1 ] || fail "$f: exit status $rc, expected 1: $(cat "$TMP/err")"
	grep -q "$f" "$TMP/err" || fail "$f: the message does not name the file: $(cat "$TMP/err")"
	echo "ok: refused $f: $(head -n 1 "$TMP/err")"
done
grep -q 'no kernel frames' "$TMP/err" || fail "user-only pprof: $(cat "$TMP/err")"
echo "pprof: go tool pprof reads all $n profiles argus wrote, totals and stacks equal the folded exports"
