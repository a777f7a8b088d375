#!/bin/sh
# usym_debugfile — user-space frames named from a separate debug file
# (issue 27 item 1: "separate debug files under /usr/lib/debug when
# installed"), as Debian's -dbgsym packages install them: a copy of
# tests/scenarios/callsite_fp stripped of every symbol its functions had
# (objcopy --strip-all; its build-id kept), its symbols in a debug file.
#  - without the debug file: the verdict's call sites cannot name
#    callsite_read_raw (nothing guessed from a stripped file);
#  - with it at /usr/lib/debug/.build-id/NN/REST.debug: they name the
#    program's own chain, leaf to main, as for the unstripped program.
# The debug file is removed on exit, whatever happens.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd jq
need_cmd objcopy
need_cmd readelf
FP="$BUILD/scenarios/callsite_fp"
[ -x "$FP" ] || skip "no $FP; run make"
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"

BIN="$TMP/cs_stripped"
cp "$FP" "$BIN" && objcopy --only-keep-debug "$FP" "$TMP/cs.debug" && objcopy --strip-all "$BIN" ||
	fail "cannot make the stripped copy and its debug file"
nm "$BIN" 2>/dev/null | grep -q callsite_read_raw && fail "the stripped copy still names callsite_read_raw"
bid=$(readelf -n "$BIN" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
[ ${#bid} -ge 8 ] || fail "the stripped copy has no build-id (readelf -n)"
DIR=/usr/lib/debug/.build-id/$(echo "$bid" | cut -c1-2)
DBG="$DIR/$(echo "$bid" | cut -c3-).debug"
[ -e "$DBG" ] && fail "$DBG exists already: not ours to replace"
made=
[ -d "$DIR" ] || made=$DIR
at_exit "rm -f '$DBG'; [ -z '$made' ] || rmdir -p '$made' 2>/dev/null"

run() { # name -> $TMP/name.json; the first call site's frames printed
	"$ARGUS" diagnose --batch --json --load "$BIN" --pairs 3 --fixed --no-session \
		>"$TMP/$1.json" 2>"$TMP/$1.err" || { tail -3 "$TMP/$1.err"; fail "argus diagnose ($1) exited $?"; }
	echo "$1: $(jq -c '.verdict.call_sites[0].frames // []' "$TMP/$1.json")"
}

run without
jq -e '[.verdict.call_sites[]?.frames[]] | any(test("callsite_read_raw"))' "$TMP/without.json" >/dev/null &&
	fail "callsite_read_raw named from a stripped file with no debug file"

mkdir -p "$DIR" && cp "$TMP/cs.debug" "$DBG" || fail "cannot install $DBG"
run with
jq -e '.verdict.call_sites[0] as $c | ($c.frames | index("callsite_read_raw (cs_stripped)"))
	and ($c.frames | index("callsite_fill (cs_stripped)")) and ($c.frames | index("main (cs_stripped)"))' \
	"$TMP/with.json" >/dev/null ||
	fail "with $DBG installed the first call site is not the program's chain: $(jq -c .verdict.call_sites "$TMP/with.json")"
echo "usym_debugfile: ok"
