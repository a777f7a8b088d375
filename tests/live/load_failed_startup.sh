#!/bin/sh
# A load that fails before anything was measured is reported as failed
# (issue 24 item 5), whatever phase it was in: `argus diagnose --batch
# --json` of a load that writes "boom" to stderr and exits 3 at once (in
# its start-up), and of a Python-like failure (an error line, exit 1 after
# 0.5 s), and of one that writes "out-boom" to stdout and exits 2, says
# "the load failed: exited (N)" with the load's last line, and
# exits 6 (man argus, EXIT STATUS), not 5 ("ended too soon") and not 0.
# A load that ends with 0 just as soon is not a failure: exit 5.
. "$(dirname "$0")/../lib.sh"
need_root
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"

# case NAME EXPECTED-RC COMMAND: diagnose COMMAND, check its exit status
case_rc() {
	"$ARGUS" diagnose --batch --json --no-session --load "$3" > "$TMP/$1.json" 2> "$TMP/$1.err"
	rc=$?
	echo "--- $1: exit $rc"
	cat "$TMP/$1.err"
	[ $rc -eq "$2" ] || fail "$1: argus exited $rc, not $2"
}

case_rc boom 6 "sh -c 'echo boom >&2; exit 3'"
grep -q 'the load failed: exited (3)' "$TMP/boom.err" || fail "boom: stderr does not say the load failed"
grep -q 'its last line: "boom"' "$TMP/boom.err" || fail "boom: the failure does not quote the load's last line"

# Python with a syntax error: the traceback's last line, then exit 1
cat > "$TMP/py.sh" <<'EOS'
sleep 0.5
echo '  File "load.py", line 3' >&2
echo 'SyntaxError: invalid syntax' >&2
exit 1
EOS
case_rc py 6 "sh $TMP/py.sh"
grep -q 'the load failed: exited (1)' "$TMP/py.err" || fail "py: stderr does not say the load failed"
grep -q 'its last line: "SyntaxError: invalid syntax"' "$TMP/py.err" ||
	fail "py: the failure does not quote the load's last line"

# a load that says why on its stdout (a shell script's echo): quoted too
case_rc outboom 6 "sh -c 'echo out-boom; exit 2'"
grep -q 'its last line: "out-boom"' "$TMP/outboom.err" ||
	fail "outboom: the failure does not quote the last line the load wrote to stdout"
grep -q 'out-boom' "$TMP/outboom.json" && fail "outboom: the load's stdout reached argus's stdout (the JSON)"

# the same start-up ending well: too short, not failed
case_rc ok 5 "sh -c 'echo fine >&2; exit 0'"
grep -q 'the load failed' "$TMP/ok.err" && fail "ok: a load that exited 0 is called failed"
echo ok
