#!/bin/sh
# A recorder left running holds what is active, not every stack since it
# started (issue 21, item 5): `argus record --push URL --every 1` forgets
# the keys not sampled for --forget seconds and the stacks only they used,
# so its kernel counts map never fills however long it runs.  The load,
# keychurn, takes a new name every 10 ms (a new key each time, never seen
# again: a host's process churn at a rate no host reaches), so more keys
# pass through the map than it holds:
#   --forget 1: the map is never full, and more keys were forgotten than
#               the map holds (--keys);
#   --forget 0 (the old recorder): the same run fills it.  This side shows
#               the check can fail; if churn was too slow to fill it on
#               this machine, the test says so and fails, as the first side
#               would then prove nothing either.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/push_lib.sh"
need_root
need_cmd jq
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
[ -x "$BUILD/scenarios/keychurn" ] || skip "no $BUILD/scenarios/keychurn; run make"

KEYS=1024
pstub_start

rec() { # FORGET ERR: a 15 s recording of keychurn, pushed every second
	"$ARGUS" record --duration 15 --push "http://127.0.0.1:$PPORT" --every 1 --keys $KEYS \
		--forget "$1" -- "$BUILD/scenarios/keychurn" --seconds 60 >/dev/null 2>"$2" ||
		{ cat "$2"; fail "record --forget $1 failed"; }
}
map_full() { sed -n 's/.*map full \([0-9]*\).*/\1/p' "$1" | head -n 1; }

rec 1 "$TMP/forget.err"
grep 'kernel samples\|forgot\|push to' "$TMP/forget.err"
full=$(map_full "$TMP/forget.err")
forgot=$(sed -n 's/.*forgot \([0-9]*\) idle keys.*/\1/p' "$TMP/forget.err")
[ -n "$full" ] || fail "no summary line: $(cat "$TMP/forget.err")"
[ "$full" = 0 ] || fail "--forget 1: the counts map was full $full times"
[ -n "$forgot" ] || fail "--forget 1: nothing was forgotten"
[ "$forgot" -gt $KEYS ] ||
	fail "--forget 1: $forgot keys forgotten, not more than the map's $KEYS: the load did not churn enough to show it"
pstub_log "$TMP/log.json"
jq -e '[.[] | select(.error != null)] | length == 0' "$TMP/log.json" >/dev/null ||
	fail "the stub found a malformed profile"
jq -e 'length >= 5 and ([.[-3:][] | .samples] | all(. > 0))' "$TMP/log.json" >/dev/null ||
	fail "the last pushes carry no samples: $(jq -c '[.[] | .samples]' "$TMP/log.json")"

rec 0 "$TMP/keep.err"
grep 'kernel samples' "$TMP/keep.err"
grep -q 'forgot' "$TMP/keep.err" && fail "--forget 0 forgot keys"
full0=$(map_full "$TMP/keep.err")
[ -n "$full0" ] && [ "$full0" -gt 0 ] ||
	fail "--forget 0: the map did not fill (map full ${full0:-?}): this run cannot tell forgetting from not needing to"
echo "record_forget: --forget 1 forgot $forgot keys, map never full; --forget 0 filled it ($full0 samples lost)"
