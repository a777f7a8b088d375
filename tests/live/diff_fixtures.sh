#!/bin/sh
# argus diff on recorded fixtures (no privileges needed): folded and perf
# script text name do_anonymous_page on the page-fault load; malformed
# files are refused with exit status 1 and the line number.
. "$(dirname "$0")/../lib.sh"
need_cmd jq
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
D="$ROOT/tests/data"

# path_has FILE NAME: verdict found and NAME on its path
path_has() {
	jq -e --arg n "$2" '.verdict.found == true and (.verdict.path | index($n) != null)' "$1" >/dev/null ||
		fail "$1: verdict path lacks $2: $(jq -c '.verdict.path' "$1")"
}

for kind in folded perfscript; do
	"$ARGUS" diff "$D/ref.$kind" "$D/load.$kind" --batch --json >"$TMP/$kind.json" 2>"$TMP/$kind.err" ||
		fail "diff $kind exited $?: $(cat "$TMP/$kind.err")"
	path_has "$TMP/$kind.json" do_anonymous_page
	jq -e '.verdict.subsystem == "mm" and (.decisions | length) > 0 and .steps == []' \
		"$TMP/$kind.json" >/dev/null || fail "$kind: unexpected JSON shape: $(head -c 300 "$TMP/$kind.json")"
	echo "ok: $kind -> $(jq -r '.verdict.path | join(" > ")' "$TMP/$kind.json")"
done

# --session: the comparison recorded as a session (header, two windows,
# the descent as transcript lines, the verdict), readable with jq
"$ARGUS" diff "$D/ref.folded" "$D/load.folded" --batch --json --session "$TMP/s.jsonl" >"$TMP/s.json" ||
	fail "diff --session exited $?"
jq -e -s '.[0].type == "header" and .[0].format == "argus-session" and .[0].version == 1
	and ([.[] | select(.type == "window")] | length) == 2
	and ([.[] | select(.type == "window")][0].samples) == 4057
	and ([.[] | select(.type == "transcript")] | length) > 3
	and ([.[] | select(.type == "verdict")][0].verdict.path | index("do_anonymous_page") != null)' \
	"$TMP/s.jsonl" >/dev/null || fail "session content: $(cut -c1-200 "$TMP/s.jsonl" | head -n 3)"
[ "$(stat -c %a "$TMP/s.jsonl")" = 600 ] || fail "session file mode $(stat -c %a "$TMP/s.jsonl"), expected 600"

# mixed formats: a perf script reference against a folded load
"$ARGUS" diff "$D/ref.perfscript" "$D/load.folded" --batch --json >"$TMP/mixed.json" ||
	fail "mixed diff exited $?"
path_has "$TMP/mixed.json" do_anonymous_page

# swapped: the folded fixtures carry cond= headers, so reading the loaded
# file as the reference is refused, naming the line
"$ARGUS" diff "$D/load.folded" "$D/ref.folded" --batch --json 2>"$TMP/err" >/dev/null
rc=$?
[ $rc = 1 ] || fail "swapped files with cond headers: exit $rc, expected 1"
grep -q "load.folded:1: window says cond=load" "$TMP/err" || fail "swapped: message: $(cat "$TMP/err")"

# malformed input: exit status 1, file and line named
head -n 5 "$D/load.folded" >"$TMP/bad.folded"
echo "asm_exc_page_fault;exc_page_fault;handle_mm_fault" >>"$TMP/bad.folded"
tail -n 3 "$D/load.folded" >>"$TMP/bad.folded"
"$ARGUS" diff "$D/ref.folded" "$TMP/bad.folded" --batch --json >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc = 1 ] || fail "malformed folded: exit $rc, expected 1"
grep -q "bad.folded:6: expected 'frames COUNT'" "$TMP/err" || fail "malformed folded: message: $(cat "$TMP/err")"
[ -s "$TMP/out" ] && fail "malformed folded: printed something on stdout"

head -n 30 "$D/load.perfscript" >"$TMP/bad.perfscript"
echo "garbage without a colon" >>"$TMP/bad.perfscript"
"$ARGUS" diff "$D/ref.perfscript" "$TMP/bad.perfscript" --batch --json >/dev/null 2>"$TMP/err"
rc=$?
[ $rc = 1 ] || fail "malformed perf script: exit $rc, expected 1"
grep -q "bad.perfscript:31: expected a perf script sample header" "$TMP/err" ||
	fail "malformed perf script: message: $(cat "$TMP/err")"

printf 'a;b 1\n\177ELF\000\001\002' >"$TMP/junk.bin"
"$ARGUS" diff "$D/ref.folded" "$TMP/junk.bin" --batch --json >/dev/null 2>"$TMP/err"
[ $? = 1 ] || fail "binary junk accepted"
grep -q "junk.bin: binary data" "$TMP/err" || fail "binary junk: message: $(cat "$TMP/err")"

: >"$TMP/empty.folded"
"$ARGUS" diff "$TMP/empty.folded" "$D/load.folded" --batch --json >/dev/null 2>"$TMP/err"
[ $? = 1 ] || fail "empty file accepted"
grep -q "empty.folded: no stacks" "$TMP/err" || fail "empty file: message: $(cat "$TMP/err")"

"$ARGUS" diff "$D/ref.folded" --batch --json >/dev/null 2>&1
[ $? = 2 ] || fail "one file: expected usage exit 2"

# no privileges needed: run once as nobody when we are root
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	cp "$ARGUS" "$TMP/argus" && chmod 755 "$TMP" "$TMP/argus"
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$TMP/argus" diff "$D/ref.folded" "$D/load.folded" --batch --json >"$TMP/nobody.json" 2>"$TMP/err" ||
		fail "diff as nobody failed: $(cat "$TMP/err")"
	path_has "$TMP/nobody.json" do_anonymous_page
	echo "ok: as nobody"
fi
# a folded file without its window length is counted as 1 s, and says so
# (issue 24 item 11: it was assumed silently); one with it says nothing
printf 'a;do_anonymous_page 10\n' > "$TMP/h0.folded"
printf 'a;do_anonymous_page 90\n' > "$TMP/h1.folded"
"$ARGUS" diff "$TMP/h0.folded" "$TMP/h1.folded" --batch --json >/dev/null 2>"$TMP/h.err" ||
	fail "diff of headerless files failed: $(cat "$TMP/h.err")"
n=$(grep -c "no '# argus-window secs=S' line: counted as one window of 1 s" "$TMP/h.err")
[ "$n" = 2 ] || fail "headerless folded files: $n notes, want 2: $(cat "$TMP/h.err")"
{ echo "# argus-window secs=2 cond=ref"; cat "$TMP/h0.folded"; } > "$TMP/w0.folded"
{ echo "# argus-window secs=2 cond=load"; cat "$TMP/h1.folded"; } > "$TMP/w1.folded"
"$ARGUS" diff "$TMP/w0.folded" "$TMP/w1.folded" --batch --json >/dev/null 2>"$TMP/w.err" ||
	fail "diff of files with window lengths failed: $(cat "$TMP/w.err")"
grep -q "counted as one window" "$TMP/w.err" && fail "a file with its window length is said to have none"
echo "ok: window lengths said"
echo "diff fixtures: all good"
