#!/bin/sh
# Record -> replay -> export gives back what was measured: `argus diagnose
# --session` on the anonymous page-fault scenario, then
#  - the session's window count and per-window samples match the JSON diagnose printed,
#  - `argus export --format folded --cond load` equals the session's loaded windows
#    summed per stack (computed with jq from the file itself), and the same for ref,
#  - `argus replay --batch --json` gives the verdict diagnose printed,
#  - the default session path is used without --session, and --no-session writes none.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd jq
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
[ -x "$BUILD/scenarios/pagefault" ] || skip "no scenario loads; run make"

S="$TMP/s.jsonl"
"$ARGUS" diagnose --batch --json --pairs 3 --load "$BUILD/scenarios/pagefault" \
	--session "$S" >"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/err"
[ $rc -eq 0 ] || fail "diagnose exited $rc"
[ -s "$S" ] || fail "no session written"
[ "$(head -n 1 "$S" | jq -r '.format')" = argus-session ] || fail "no session header"
head -n 1 "$S" | jq -e '.options.command == "diagnose" and .options.pairs == 3 and (.caps.kinds | length) > 0' \
	>/dev/null || fail "header lacks the options or the caps"

# windows: as many as diagnose measured, in order, with the same samples
# except argus's own (left out of the session as out of the verdict): never
# more in the session, and at most a tenth fewer (or 10).  How much CPU argus
# itself takes in a window is the machine's: symbolizing a new process's
# user stacks reads its files (36 samples of 449 seen on a quiet machine);
# windows out of order or lost differ by far more (ref and load, ~2x)
jq -c '[.windows[] | .samples]' "$TMP/out" >"$TMP/w.diag"
jq -sc '[.[] | select(.type == "window" and .step == 0) | .samples]' "$S" >"$TMP/w.ses"
[ "$(jq length "$TMP/w.ses")" -eq "$(jq length "$TMP/w.diag")" ] ||
	fail "expected as many windows in the session as diagnose measured"
jq -e --slurpfile s "$TMP/w.ses" '. as $d | [range(0; length) | [$d[.] - $s[0][.], $d[.]]]
	| all(.[0] >= 0 and .[0] <= ([10, .[1] / 10] | max))' "$TMP/w.diag" >/dev/null ||
	fail "windows differ: diagnose $(cat "$TMP/w.diag") session $(cat "$TMP/w.ses")"
me=$(head -n 1 "$S" | jq .options.exclude_tgid)
[ "$me" -gt 0 ] 2>/dev/null || fail "the header does not say which process was left out"
jq -se --argjson me "$me" '[.[] | select(.type == "window") | .stacks[] | select(.[1] == $me)]
	| length == 0' "$S" >/dev/null || fail "argus's own stacks are in the session"

# folded export == the windows of that condition summed per stack: kernel
# frames alone with --kernel-only, else the user frames (a stack's 5th item,
# issue 27) first and the kernel's marked _[k] when the session has any
for c in load ref; do
	for mode in kernel user; do
		opt=""; [ $mode = kernel ] && opt=--kernel-only
		"$ARGUS" export "$S" --format folded --cond $c $opt >"$TMP/f.$c" ||
			fail "export folded $c $opt failed"
		head -n 1 "$TMP/f.$c" | grep -q "^# argus-window secs=.* cond=$c\$" || fail "no argus-window line ($c)"
		grep -v '^#' "$TMP/f.$c" | sort >"$TMP/f.$c.sorted"
		jq -rs --arg c $c --arg mode $mode '
			([.[] | select(.type == "window") | .stacks[] | select(length > 4 and (.[4] | length) > 0)]
			 | length > 0 and $mode == "user") as $u
			| [.[] | select(.type == "window" and .step == 0 and .cond == $c) | .stacks[]
			| {k: (if $u then ((.[4] // []) + (.[0] | map(. + "_[k]"))) else .[0] end | join(";")),
			   n: .[3]}] | group_by(.k)
			| map("\(.[0].k) \(map(.n) | add)") | .[]' "$S" | sort >"$TMP/j.$c"
		[ -s "$TMP/j.$c" ] || fail "jq found no $c stacks"
		cmp -s "$TMP/f.$c.sorted" "$TMP/j.$c" || {
			diff "$TMP/f.$c.sorted" "$TMP/j.$c" | head -n 10
			fail "export --format folded --cond $c $opt differs from the session's $c windows"
		}
		echo "folded $c ($mode): $(wc -l <"$TMP/j.$c") stacks, $(awk '{n += $NF} END {print n}' "$TMP/j.$c") samples match"
	done
done

# replay gives the verdict diagnose printed
"$ARGUS" replay "$S" --batch --json >"$TMP/r.json" || fail "replay --batch --json failed"
a=$(jq -c '.verdict | {found, subsystem, path, leaf}' "$TMP/out")
b=$(jq -c '.verdict | {found, subsystem, path, leaf}' "$TMP/r.json")
[ "$a" = "$b" ] || fail "replay verdict $b differs from diagnose's $a"
jq -e '.truncated == false and (.events | map(.type) | index("verdict")) != null' "$TMP/r.json" \
	>/dev/null || fail "replay events lack the verdict"
# (whether the verdict is right is diagnose_anon's business: a busy machine
# may hide the load; the round trip must give back whatever was measured)

# the JSON export: the same verdict, the tree with both conditions
"$ARGUS" export "$S" --format json >"$TMP/x.json" || fail "export json failed"
c=$(jq -c '.verdict | {found, subsystem, path, leaf}' "$TMP/x.json")
[ "$a" = "$c" ] || fail "export json verdict $c differs from diagnose's $a"
jq -e '.verdict_from == "session" and .tree.name == "all" and .tree.load.total > 0 and .tree.ref.total > 0' \
	"$TMP/x.json" >/dev/null || fail "export json lacks the tree's two conditions"

# default path and --no-session
mkdir -p "$TMP/state"
XDG_STATE_HOME="$TMP/state" "$ARGUS" diagnose --batch --json --pairs 1 --window 0.2 \
	--load "$BUILD/scenarios/pagefault" >/dev/null 2>"$TMP/err2" || { cat "$TMP/err2"; fail "diagnose (default session) failed"; }
n=$(ls "$TMP/state/argus/sessions/"argus-*.jsonl 2>/dev/null | wc -l)
[ "$n" -eq 1 ] || fail "expected one session under XDG_STATE_HOME, found $n"
XDG_STATE_HOME="$TMP/state" "$ARGUS" diagnose --batch --json --pairs 1 --window 0.2 --no-session \
	--load "$BUILD/scenarios/pagefault" >/dev/null 2>"$TMP/err3" || { cat "$TMP/err3"; fail "diagnose --no-session failed"; }
n=$(ls "$TMP/state/argus/sessions/"argus-*.jsonl 2>/dev/null | wc -l)
[ "$n" -eq 1 ] || fail "--no-session wrote a session"
echo "ok: $b"
