#!/bin/sh
# lib.sh — what the real-software loads (tests/real/*.sh) share: a scratch
# directory on the disk (/var/tmp: ext4 on the virtio disk, so fsync and
# direct I/O reach the device), a free port on 127.0.0.1, and one exit path
# that ends every process the script started and removes the scratch
# directory, on SIGTERM (how argus ends a load), SIGINT, SIGHUP or a normal
# exit.  A load script starts its processes with real_bg and then calls
# real_wait; it never runs a long command in the foreground, because the
# shell defers a trap until a foreground command returns.
#   REAL_SECONDS   end by itself after this long (default: run until killed)
set -u
REAL_PIDS=
REAL_SCR=
real_cleanup() {
	# ignored, not reset: argus signals the leader up to three times (the
	# process, its group, each member of its cgroup), and a second SIGTERM
	# arriving after a reset would end this shell before the rm below
	trap - EXIT
	trap '' TERM INT HUP
	# argus sends SIGTERM to the whole process group and SIGKILLs what is
	# left 2 s later, so this is quick: the children end on SIGTERM within
	# milliseconds (no polling loop, no extra processes)
	for p in $REAL_PIDS; do kill -TERM "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "$REAL_SCR" ] && rm -rf "$REAL_SCR"
}
trap 'real_cleanup; exit 0' TERM INT HUP
trap 'real_cleanup' EXIT

real_die() { echo "$0: $*" >&2; exit 1; }

# real_need CMD...: exit 77 (skipped) when a program is missing
real_need() {
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 ||
			{ echo "$0: SKIPPED: $c is not installed (make deps)" >&2; exit 77; }
	done
}

# sets REAL_SCR to a new scratch directory, owned by this shell (.owner:
# its PID); first removes the directories of loads that died without
# cleaning up (SIGKILL: argus's last resort when a load outlives SIGTERM
# by 2 s, as on a saturated machine), as argus does with its cgroups
real_scratch() {
	for d in "${REAL_TMPDIR:-/var/tmp}"/argus-real.*; do
		[ -d "$d" ] || continue
		o=$(cat "$d/.owner" 2>/dev/null) || o=
		if [ -n "$o" ]; then
			kill -0 "$o" 2>/dev/null || rm -rf "$d"
		elif [ -n "$(find "$d" -maxdepth 0 -mmin +10 2>/dev/null)" ]; then
			rm -rf "$d" # an old one without an owner
		fi
	done
	REAL_SCR=$(mktemp -d "${REAL_TMPDIR:-/var/tmp}/argus-real.XXXXXX") ||
		real_die "cannot make a scratch directory under ${REAL_TMPDIR:-/var/tmp}"
	echo $$ > "$REAL_SCR/.owner"
}

# prints a port on 127.0.0.1 that nothing listens on now
real_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# real_bg CMD ARGS...: start CMD in the background, remembered for the cleanup
real_bg() {
	"$@" &
	REAL_PIDS="$REAL_PIDS $!"
}

# waits until 127.0.0.1:PORT accepts connections (up to 10 s)
real_wait_port() {
	i=0
	while [ $i -lt 200 ]; do
		python3 -c "import socket,sys; s = socket.socket(); s.settimeout(0.2); sys.exit(s.connect_ex(('127.0.0.1', $1)))" \
			2>/dev/null && return 0
		sleep 0.05
		i=$((i + 1))
	done
	real_die "nothing listens on 127.0.0.1:$1 after 10 s"
}

# waits for the background processes, or REAL_SECONDS, then cleans up
real_wait() {
	if [ -n "${REAL_SECONDS:-}" ]; then
		real_bg sleep "$REAL_SECONDS"
		sp=$!
		wait "$sp"
	else
		wait
	fi
	real_cleanup
	exit 0
}
