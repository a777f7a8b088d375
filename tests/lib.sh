# Shared helpers for the shell tests (sourced).
# skip REASON: print SKIPPED reason and exit 77 (tests/run.sh lists it).
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
need_root() { [ "$(id -u)" = 0 ] || skip "needs root (BPF and perf_event)"; }
need_cmd() { command -v "$1" >/dev/null 2>&1 || skip "needs $1"; }
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${ARGUS:=$ROOT/argus}"
: "${BUILD:=$ROOT/build}"
TMP=$(mktemp -d /tmp/argus-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
