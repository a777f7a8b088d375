#!/bin/sh
# Bounded input: the largest accepted inputs are read with bounded memory and
# oversized ones are refused with the limit, not read into 600 MB.
#  - folded: a 1024-byte frame (the limit) is accepted; a 10^7-byte frame is
#    refused ("at most 1024"); peak RSS of each measured (/usr/bin/time -v)
#  - session: a 1 MiB note (the largest string) replays; a 100 MB note is
#    refused ("longer than ... KiB" or "a line of"); peak RSS measured
# The figures go to stdout (and BENCH.md via tests/bench/reliability.sh); the
# assertion is a memory bound, not a time: under 256 MB for the refusals
# (the old reader took 610 MB for the 100 MB note).  No root needed.
. "$(dirname "$0")/../lib.sh"
[ -x /usr/bin/time ] || skip "needs /usr/bin/time (GNU time) for peak RSS"
need_cmd python3
[ -x "$ARGUS" ] || fail "no $ARGUS; run make"
rss() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$1"; }
run() { # label expect-rc out args...
	label=$1 want=$2 out=$3; shift 3
	/usr/bin/time -v "$ARGUS" "$@" >"$out" 2>"$out.err"
	rc=$?
	kb=$(rss "$out.err")
	printf '%-44s exit %s  peak RSS %6s KiB\n' "$label" "$rc" "$kb"
	[ "$rc" = "$want" ] || { tail -n 5 "$out.err"; fail "$label: exit $rc, want $want"; }
}
python3 - "$TMP" "$ROOT/tests/data/session-pagefault.jsonl" <<'PY' || fail "cannot write the inputs"
import json, sys
tmp, src = sys.argv[1], sys.argv[2]
ref = "a;b;c 100\n"
open(tmp + "/ref.folded", "w").write(ref)
open(tmp + "/big-ok.folded", "w").write("a;" + "x" * 1024 + ";c 500\n")
open(tmp + "/big-bad.folded", "w").write("a;" + "x" * 10**7 + ";c 500\n")
lines = open(src).read().splitlines()
def note(n):
    return json.dumps({"type": "note", "t": 1.0, "text": "n" * n})
open(tmp + "/note-ok.jsonl", "w").write("\n".join(lines[:2] + [note(1 << 20)] + lines[2:]) + "\n")
open(tmp + "/note-bad.jsonl", "w").write("\n".join(lines[:2] + [note(100 * 10**6)] + lines[2:]) + "\n")
PY
run "folded: 1024-byte frame (accepted)" 0 "$TMP/o1" diff "$TMP/ref.folded" "$TMP/big-ok.folded" --batch
run "folded: 10^7-byte frame (refused)" 1 "$TMP/o2" diff "$TMP/ref.folded" "$TMP/big-bad.folded" --batch
grep -q "at most 1024" "$TMP/o2.err" || fail "the long frame's refusal lacks the limit: $(head -n 3 "$TMP/o2.err")"
[ "$(rss "$TMP/o2.err")" -lt 262144 ] || fail "the 10^7-byte frame took $(rss "$TMP/o2.err") KiB"
run "session: 1 MiB note (accepted)" 0 "$TMP/o3" replay --batch "$TMP/note-ok.jsonl"
run "session: 100 MB note (refused)" 1 "$TMP/o4" replay --batch "$TMP/note-bad.jsonl"
grep -Eq "longer than [0-9]+ KiB|a line of [0-9]+ bytes" "$TMP/o4.err" ||
	fail "the 100 MB note's refusal lacks the limit: $(head -c 300 "$TMP/o4.err")"
[ "$(rss "$TMP/o4.err")" -lt 262144 ] || fail "the 100 MB note took $(rss "$TMP/o4.err") KiB"
echo "bounded_input: ok"
