#!/bin/sh
# argus record over a page-fault loop: the mm subtree holds
# do_anonymous_page below handle_mm_fault, in JSON and in folded output (the
# latter with the loop started by a shell, so forks must be followed).
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd python3
LOAD="$BUILD/scenarios/pagefault"
[ -x "$LOAD" ] || fail "missing $LOAD (run make)"
[ -x "$ARGUS" ] || fail "missing $ARGUS (run make)"

"$ARGUS" record --duration 3 --json -- "$LOAD" --seconds 5 >"$TMP/tree.json" 2>"$TMP/err.txt"
rc=$?
cat "$TMP/err.txt"
[ $rc = 0 ] || fail "argus record --json exited $rc"
grep -q 'kernel samples' "$TMP/err.txt" || fail "no summary line on stderr"

python3 - "$TMP/tree.json" <<'PY' || fail "JSON tree lacks mm > ... handle_mm_fault > ... do_anonymous_page"
import json, sys
root = json.load(open(sys.argv[1]))
assert root["name"] == "all", "root is %r" % root["name"]
assert root["total"] > 0, "no samples"
mm = [c for c in root["children"] if c["name"] == "mm"]
assert mm, "no mm subsystem node; top level: %s" % [c["name"] for c in root["children"]]
def find(n, name):
    if n["name"] == name:
        yield n
    for c in n.get("children", []):
        yield from find(c, name)
hmf = list(find(mm[0], "handle_mm_fault"))
assert hmf, "no handle_mm_fault in mm"
dap = [d for h in hmf for d in find(h, "do_anonymous_page")]
assert dap, "no do_anonymous_page below handle_mm_fault"
share = sum(d["total"] for d in dap) / root["total"]
print("do_anonymous_page below handle_mm_fault: %d of %d samples (%.0f%%)"
      % (sum(d["total"] for d in dap), root["total"], 100 * share))
PY

bin="$ARGUS"
[ -x "${ARGUS_SAN:-}" ] && bin="$ARGUS_SAN"   # the folded run under ASan/UBSan
# the load runs as a grandchild of the command: fork following must add it
"$bin" record --duration 2 --folded -- sh -c "\"$LOAD\" --seconds 4 & wait" \
	>"$TMP/out.folded" 2>"$TMP/err2.txt"
rc=$?
cat "$TMP/err2.txt"
[ $rc = 0 ] || fail "argus record --folded exited $rc"
grep -Eq '^([^ ]*;)?handle_mm_fault;([^ ]*;)?do_anonymous_page(;[^ ]*)? [0-9]+$' "$TMP/out.folded" ||
	fail "folded output lacks handle_mm_fault;...;do_anonymous_page"
# every line is "frames count"
bad=$(grep -Evc '^[^ ]+ [0-9]+$' "$TMP/out.folded")
[ "$bad" = 0 ] || fail "$bad malformed folded lines"
echo "ok: $(wc -l <"$TMP/out.folded") folded lines"
