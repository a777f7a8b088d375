#!/bin/sh
# callsite_wall — issue 27 item 1 in the wall-clock tree: blocked and
# runnable time carry the user stack where the wait began (taken by the
# scheduler-time programs at each sampled block or preemption,
# bpf/schedtime.bpf.c block_ustack), as on-CPU samples carry theirs.
# tests/scenarios/callsite_fp --nap 3000: each 256 KiB read of /dev/zero (tens
# of microseconds) is followed by a 3 ms raw nanosleep from main >
# callsite_run > callsite_fill > callsite_nap_raw, so most of its time is
# blocked there.  With --time wall:
#  - the verdict is blocked time in the nanosleep, and its first call site
#    is that chain, leaf to main, with most of the rise;
#  - the session's folded export has the chain before [blocked];
#  - its pprof, exported without root, lists callsite_nap_raw under the
#    blocked sample type (go tool pprof -sample_index=blocked);
#  - built without frame pointers, the chain is cut after its leaf and says
#    why, as the sampler's is.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd jq
need_cmd go
FP="$BUILD/scenarios/callsite_fp"
NOFP="$BUILD/scenarios/callsite"
[ -x "$FP" ] && [ -x "$NOFP" ] || fail "missing $FP or $NOFP (run make)"
[ -x "$ARGUS" ] || fail "missing $ARGUS (run make)"

run() { # program name
	"$ARGUS" diagnose --batch --json --time wall --load "$1 --nap 3000" --pairs 3 --fixed \
		--session "$TMP/$2.jsonl" >"$TMP/$2.json" 2>"$TMP/$2.err"
	rc=$?
	tail -3 "$TMP/$2.err"
	[ $rc = 0 ] || fail "argus diagnose --time wall ($2) exited $rc"
	echo "$2: $(jq -r .verdict.summary "$TMP/$2.json")"
	jq -c '.verdict.call_sites[0] | {share, frames}' "$TMP/$2.json"
	[ "$(jq -r .verdict.time "$TMP/$2.json")" = blocked ] ||
		fail "$2: the verdict is not blocked time: $(jq -r .verdict.summary "$TMP/$2.json")"
	jq -e '.verdict.path | any(.[]; test("nanosleep"))' "$TMP/$2.json" >/dev/null ||
		fail "$2: the verdict path is not the nanosleep: $(jq -c .verdict.path "$TMP/$2.json")"
}

run "$FP" fp
jq -e '.verdict.call_sites[0] as $c | ($c.frames | index("callsite_nap_raw (callsite_fp)"))
	and ($c.frames | index("callsite_fill (callsite_fp)"))
	and ($c.frames | index("main (callsite_fp)")) and $c.share > 0.5
	and ($c.frames | index("main (callsite_fp)")) < ($c.frames | index("callsite_nap_raw (callsite_fp)"))' \
	"$TMP/fp.json" >/dev/null ||
	fail "the blocked verdict's first call site is not callsite_fp's chain, root first, with most of the rise"

"$ARGUS" export "$TMP/fp.jsonl" --format folded >"$TMP/fp.folded" || fail "export folded failed"
grep -q 'main (callsite_fp);callsite_run (callsite_fp);callsite_fill (callsite_fp);callsite_nap_raw (callsite_fp);\[blocked\]_\[k\];.*nanosleep' \
	"$TMP/fp.folded" || { grep blocked "$TMP/fp.folded" | head -3; fail "no folded line with the chain before [blocked]"; }

chmod 644 "$TMP/fp.jsonl"
chmod 755 "$TMP"
export_as_nobody "$TMP/fp.jsonl" --format pprof >"$TMP/fp.pb.gz" 2>"$TMP/pp.err" ||
	fail "unprivileged export pprof failed: $(cat "$TMP/pp.err")"
HOME="$TMP" go tool pprof -sample_index=blocked -top -cum "$TMP/fp.pb.gz" >"$TMP/top.txt" \
	2>"$TMP/top.err" || fail "go tool pprof -sample_index=blocked failed: $(head -3 "$TMP/top.err")"
grep -E ' callsite_nap_raw$' "$TMP/top.txt" ||
	{ head -20 "$TMP/top.txt"; fail "go tool pprof lists no callsite_nap_raw under blocked"; }

run "$NOFP" nofp
jq -e '.verdict.call_sites[0].frames as $f | ($f | index("callsite_nap_raw (callsite)")) and
	$f[0] == "[ends in callsite: no frame pointers]" and ($f | index("main (callsite)") | not)' \
	"$TMP/nofp.json" >/dev/null ||
	fail "without frame pointers the call site is not cut at its leaf with the reason"
echo "callsite_wall: ok"
