# Shared helpers for the shell tests (sourced).
# skip REASON: print SKIPPED reason and exit 77 (tests/run.sh lists it).
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
need_root() { [ "$(id -u)" = 0 ] || skip "needs root (BPF and perf_event)"; }
need_cmd() { command -v "$1" >/dev/null 2>&1 || skip "needs $1"; }
# need_built PATH: skip when a program the build makes is not there
need_built() { [ -x "$1" ] || skip "no $1; run make first"; }
# need_scenario VAR NAME: VAR=$BUILD/scenarios/NAME (tests/scenarios/NAME.c),
# skipping when it is not built
need_scenario() { eval "$1=\$BUILD/scenarios/$2"; need_built "$BUILD/scenarios/$2"; }
# export_as_nobody ARGS...: `argus export ARGS` as an unprivileged user
# (nobody, through setpriv; as this user where setpriv is missing), to show
# a session replays without root; the caller makes the session readable
export_as_nobody() {
	if command -v setpriv >/dev/null 2>&1; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$ARGUS" export "$@"
	else
		"$ARGUS" export "$@"
	fi
}
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${ARGUS:=$ROOT/argus}"
: "${BUILD:=$ROOT/build}"
TMP=$(mktemp -d /tmp/argus-test.XXXXXX)
# at_exit CMD: run CMD when the test exits (latest first); one EXIT trap for
# all, so helpers sourced together (tmux, the LLM stub) don't undo each other
AT_EXIT=""
at_exit() { AT_EXIT="$1; $AT_EXIT"; }
trap 'eval "$AT_EXIT"; rm -rf "$TMP"' EXIT
# driver_libs: what a program linked with build/libargus.a needs besides it
# (the Makefile's PKGS without the terminal ones; libdw for core/probe/usym.c)
driver_libs() { echo "$(pkg-config --libs libbpf libcjson libcurl libdw) -lelf -lz -lm"; }
# build_driver NAME [CFLAGS]: tests/live/NAME.c, a driver over core/'s own
# API, compiled with build/libargus.a into $TMP/NAME; fails when it cannot be
build_driver() {
	need_cmd cc
	need_cmd pkg-config
	cc ${2:--O1 -g} -I"$ROOT/core" -I"$BUILD" -I"$ROOT/bpf" -o "$TMP/$1" \
		"$ROOT/tests/live/$1.c" "$BUILD/libargus.a" \
		$(driver_libs) || fail "cannot build the driver"
}

# window_kinds SESSION: each recorded window's samples by kind (the stack's
# first frame: [on-cpu], [runnable], [blocked], else [kernel]) and process,
# one line a window: where a victim's time went when a window does not add
# up to its wall time (tests/live/victim_errors, diagnose_victims)
window_kinds() {
	jq -r 'select(.type == "window") | "window \(.index) \(.cond) \(.secs) s, \(.samples) samples, lost \(.lost): " +
		([.stacks[] | {k: ((if .[0][0] | startswith("[") then .[0][0] else "[kernel]" end) + " " + .[2]), n: .[3]}] |
		 group_by(.k) | map("\(.[0].k) \(map(.n) | add)") | join(", "))' "$1"
}
