#!/bin/sh
# real_fswalk_cold — a load that changes character while measured (issue 23
# item 4): the filesystem walk of real_fswalk after the caches are dropped,
# so its first pass is block I/O (the directory blocks read from the disk)
# and the later ones are not.  The verdict must be the later phase's (the
# walk's subsystem, fs, as real_smoke asserts) with the cold pass said as an
# earlier phase: verdict.phase, and a note.  Settling on the first pass
# (block: ... > submit_bio) is the FAIL this test is for.
# It walks /usr/share (the fswalk_cold_share row), whose cold pass is about
# two loaded windows: over all of /usr (fswalk_cold, the bench's) the cold
# pass outlasted the measurement once here, right after a large build
# (sync and the reads behind its writeback), and a phase that outlasts the
# measurement is the load as far as any measurement can tell.
. "$(dirname "$0")/../../lib.sh"
. "$(dirname "$0")/real.inc"
real_smoke fswalk_cold_share
jq -e '.verdict.phase.earlier | type == "string"' "$TMP/out" >/dev/null ||
	fail "fswalk_cold_share: no earlier phase said: the cold pass and the warm walk were judged as one load"
jq -e '[.verdict.notes[]? | select(contains("are an earlier phase"))] | length == 1' "$TMP/out" \
	>/dev/null || fail "fswalk_cold_share: the verdict's notes do not say the earlier phase was left out"
echo "earlier phase: $(jq -r .verdict.phase.earlier "$TMP/out")"
exit 0
