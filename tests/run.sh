#!/bin/sh
# Runs the whole test suite and prints one line per test and the totals.
#   unit tests   build-san/tests/test_*   (cmocka, ASan/UBSan)
#   live tests   tests/live/*.sh          (BPF on this kernel; root)
#   screen tests tests/tui/*.sh           (tmux send-keys / capture-pane)
#   fuzz smoke   tests/fuzz/run.sh 10     (when the fuzz targets exist)
# A test script exits 0 (pass), 77 (skipped: its last output line says why)
# or anything else (fail).  Nothing is silently green: skips are listed.
# ONLY=pattern runs the tests whose name matches.
cd "$(dirname "$0")/.." || exit 2
ROOT=$(pwd)
export ARGUS="${ARGUS:-$ROOT/argus}" ARGUS_SAN="$ROOT/build-san/argus" ROOT
export BUILD="$ROOT/build"
LOGDIR=${LOGDIR:-$ROOT/build/test-logs}
mkdir -p "$LOGDIR"
pass=0 fail=0 skip=0 failed="" skipped=""

run_one() { # name command...
	name=$1; shift
	case "$name" in *${ONLY:-}*) ;; *) return ;; esac
	log="$LOGDIR/$(echo "$name" | tr '/ ' '__').log"
	start=$(date +%s)
	"$@" >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0)  pass=$((pass + 1)); printf 'PASS     %-40s %3ss\n' "$name" "$secs" ;;
	77) skip=$((skip + 1)); why=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)
	    skipped="$skipped\n  $name: $why"
	    printf 'SKIPPED  %-40s %s\n' "$name" "$why" ;;
	*)  fail=$((fail + 1)); failed="$failed $name"
	    printf 'FAIL     %-40s (exit %s) log: %s\n' "$name" "$rc" "$log"
	    tail -n 25 "$log" | sed 's/^/    | /' ;;
	esac
}

for t in build-san/tests/test_*; do
	[ -x "$t" ] || continue
	run_one "unit/$(basename "$t")" "$t"
done
for kind in docs live tui; do
	for t in tests/$kind/*.sh; do
		[ -f "$t" ] || continue
		run_one "$kind/$(basename "$t" .sh)" sh "$t"
	done
done
if [ -x tests/fuzz/run.sh ]; then
	run_one "fuzz/smoke" tests/fuzz/run.sh "${FUZZ_SMOKE_SECONDS:-10}"
fi

echo "----"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ $skip -gt 0 ] && printf "skipped:$skipped\n"
[ $fail -eq 0 ] || { echo "failed:$failed"; exit 1; }
[ $pass -gt 0 ] || { echo "no test ran"; exit 1; }
exit 0
