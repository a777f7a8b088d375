#!/bin/sh
# Issue 27 end to end, real BPF: argus diagnose over tests/scenarios/callsite
# (reads /dev/zero through main > callsite_run > callsite_fill >
# callsite_read_zero > callsite_read_raw).  Built with frame pointers, the
# verdict's call site names those functions, in the verdict JSON, the
# session (a replay by an unprivileged user: markdown), and the folded
# export (user frames first, kernel frames _[k]; --kernel-only without) and
# pprof (go tool pprof sees the functions and the program's mapping, with
# its full path and build-id, exported without root).
# Built without, the call site is cut after the leaf and says why.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd jq
need_cmd go
FP="$BUILD/scenarios/callsite_fp"
NOFP="$BUILD/scenarios/callsite"
[ -x "$FP" ] && [ -x "$NOFP" ] || fail "missing $FP or $NOFP (run make)"
[ -x "$ARGUS" ] || fail "missing $ARGUS (run make)"

"$ARGUS" diagnose --batch --json --load "$FP" --pairs 3 --fixed \
	--session "$TMP/fp.jsonl" >"$TMP/fp.json" 2>"$TMP/fp.err"
rc=$?
tail -3 "$TMP/fp.err"
[ $rc = 0 ] || fail "argus diagnose (callsite_fp) exited $rc"
jq -e '.verdict.path | index("read_zero")' "$TMP/fp.json" >/dev/null ||
	fail "the verdict path does not reach read_zero: $(jq -c .verdict.path "$TMP/fp.json")"
jq -c '.verdict.call_sites' "$TMP/fp.json"
# what the call sites cannot see is counted and said, 0 included (issue 27)
jq -e '(.windows | length > 0 and all(.[]; .ustack_errors >= 0)) and .verdict.ustack_errors >= 0
	and .verdict.call_sites_source == "sampler"' "$TMP/fp.json" >/dev/null ||
	fail "no ustack_errors in the windows or the verdict, or call_sites_source is not sampler"
jq -s -e '[.[] | select(.type == "window")] | length > 0 and all(.[]; has("ustack_errors"))' \
	"$TMP/fp.jsonl" >/dev/null || fail "the session's windows lack ustack_errors"
# the largest call site: the program's own chain, leaf to main, most of the rise
jq -e '.verdict.call_sites[0] as $c | ($c.frames | index("callsite_read_raw (callsite_fp)"))
	and ($c.frames | index("callsite_fill (callsite_fp)"))
	and ($c.frames | index("main (callsite_fp)")) and $c.share > 0.5' \
	"$TMP/fp.json" >/dev/null || fail "the first call site is not callsite_fp's chain with most of the rise"
# nothing guessed: its frames are in calling order, root first
jq -e '.verdict.call_sites[0].frames as $f | ($f | index("main (callsite_fp)")) <
	($f | index("callsite_fill (callsite_fp)"))' "$TMP/fp.json" >/dev/null ||
	fail "call site frames are not root first"

# the session replays without root
chmod 644 "$TMP/fp.jsonl"
chmod 755 "$TMP"
export_as_nobody "$TMP/fp.jsonl" --format markdown >"$TMP/fp.md" 2>"$TMP/md.err" ||
	fail "unprivileged export markdown failed: $(cat "$TMP/md.err")"
grep -A4 '^Called from' "$TMP/fp.md"
grep -A4 '^Called from' "$TMP/fp.md" | grep -q 'callsite_fill (callsite_fp)' ||
	fail "the markdown report of the replayed session names no callsite_fill"

"$ARGUS" export "$TMP/fp.jsonl" --format folded >"$TMP/fp.folded" || fail "export folded failed"
grep -q '^__libc_start_call_main (libc.so.6);main (callsite_fp);callsite_run (callsite_fp);callsite_fill (callsite_fp);.*;read_zero_\[k\]' \
	"$TMP/fp.folded" || fail "no folded line with the user frames before read_zero_[k]"
"$ARGUS" export "$TMP/fp.jsonl" --format folded --kernel-only >"$TMP/k.folded" ||
	fail "export folded --kernel-only failed"
grep -q '(callsite_fp)\|_\[k\]' "$TMP/k.folded" && fail "--kernel-only still has user frames or _[k] marks"
grep -q 'read_zero' "$TMP/k.folded" || fail "--kernel-only lost the kernel frames"

# pprof: user functions in their module's mapping, the kernel's apart; the
# mapping names the program's full path and build-id (what pprof tools find
# symbols by), from the session alone: exported by an unprivileged user
export_as_nobody "$TMP/fp.jsonl" --format pprof >"$TMP/fp.pb.gz" 2>"$TMP/pp.err" ||
	fail "unprivileged export pprof failed: $(cat "$TMP/pp.err")"
HOME="$TMP" go tool pprof -top -cum "$TMP/fp.pb.gz" >"$TMP/top.txt" 2>"$TMP/top.err" ||
	fail "go tool pprof -top failed: $(head -3 "$TMP/top.err")"
grep -E ' callsite_fill$' "$TMP/top.txt" || fail "go tool pprof -top lists no callsite_fill"
grep -qE ' read_zero$' "$TMP/top.txt" || fail "go tool pprof -top lists no read_zero"
HOME="$TMP" go tool pprof -raw "$TMP/fp.pb.gz" 2>/dev/null | sed -n '/^Mappings/,$p' >"$TMP/maps.txt"
# go tool pprof -raw: "ID: start/limit/offset FILE BUILDID [FN]"
fp_path=$(realpath "$FP")
fp_bid=$(readelf -n "$FP" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$fp_bid" ] || fail "readelf -n finds no build-id in $FP"
cat "$TMP/maps.txt"
grep -qF " $fp_path $fp_bid " "$TMP/maps.txt" ||
	fail "no mapping with callsite_fp's path $fp_path and build-id $fp_bid: $(cat "$TMP/maps.txt")"
grep -qE ' /[^ ]*/libc\.so\.6 [0-9a-f]{40} ' "$TMP/maps.txt" ||
	fail "no libc mapping with its path and build-id: $(cat "$TMP/maps.txt")"
grep -q 'kernel.kallsyms' "$TMP/maps.txt" || fail "no kernel mapping: $(cat "$TMP/maps.txt")"

# without frame pointers: cut after the leaf, with the reason
bin="$ARGUS"
[ -x "${ARGUS_SAN:-}" ] && bin="$ARGUS_SAN"
"$bin" diagnose --batch --json --load "$NOFP" --pairs 2 --fixed --no-session \
	>"$TMP/nofp.json" 2>"$TMP/nofp.err"
rc=$?
[ $rc = 0 ] || { cat "$TMP/nofp.err"; fail "argus diagnose (callsite) exited $rc"; }
jq -c '.verdict.call_sites' "$TMP/nofp.json"
jq -e '.verdict.call_sites[0].frames == ["[ends in callsite: no frame pointers]",
	"callsite_read_raw (callsite)"]' "$TMP/nofp.json" >/dev/null ||
	fail "the no-frame-pointer call site is not cut after callsite_read_raw with its reason"
echo "call sites: ok"
