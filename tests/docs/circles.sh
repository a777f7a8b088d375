#!/bin/sh
# No call circle between core/'s object files, nor between tui/'s
# (doc/ARCHITECTURE.md, "The rule", 3): a part split from a file calls down
# into what it shares with it, never back.  tests/docs/circles.py reads the
# built objects' symbol tables (nm); without nm or the objects it skips.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || fail "no $ROOT"
need_cmd nm
need_cmd python3
ls "$BUILD"/core/*/*.o >/dev/null 2>&1 || skip "no objects in $BUILD/core; run make first"
ls "$BUILD"/tui/*.o >/dev/null 2>&1 || skip "no objects in $BUILD/tui; run make first"
out=$(python3 tests/docs/circles.py "$BUILD"); rc=$?
[ $rc -eq 77 ] && skip "${out#SKIPPED: }"
[ $rc -eq 0 ] || fail "call circle between core or tui files: $(echo "$out" | tr '\n' ';')"
echo "$out"
