#!/bin/sh
# Re-records the four teaching sessions (tests/data/session-*.jsonl) the way
# tests/data/README says, on a quiet machine: the README's walk-through
# ("the first reference window shows the idle machine") is only as true as
# the machine was quiet: sampling is system-wide (man/argus.1), so any other
# busy process is in both conditions.  Root; run from the repository after
# `make all`.  Waits (up to 10 min per session) for a quiet machine: a
# 1-minute load average under 0.5 and no process over 5% of a CPU.  Then
# each recording is checked (tests/data/session-quiet.sh: the idle tasks
# hold >= 90% of the first reference window, no other process > 2% of any
# window) and recorded again, up to 3 times, when something ran meanwhile;
# nothing is replaced unless all four are quiet.  --force records once,
# whatever the machine does.  After recording, tests/docs/teaching.sh checks
# the README's claims on the new files.  The load average of each recording
# is printed: say it in tests/data/README.
#   sudo tests/data/record-sessions.sh [--force]
# ARGUS_RECORD_DIR=DIR writes the sessions there instead (a trial run; the
# README check is skipped).
set -eu
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "record-sessions: needs root (BPF sampling)" >&2; exit 1; }
[ -x ./argus ] && [ -x build/scenarios/pagefault ] || { echo "record-sessions: run make all first" >&2; exit 1; }
force=0
[ "${1:-}" = --force ] && force=1
quiet() {
	la=$(cut -d' ' -f1 /proc/loadavg)
	busy=$(ps -eo pcpu=,comm= --sort=-pcpu | awk -v me="$$" '$1 > 5 {print $2; exit}')
	if awk -v l="$la" 'BEGIN {exit !(l > 0.5)}' || [ -n "$busy" ]; then
		echo "record-sessions: the machine is not quiet (load average $la${busy:+, $busy busy})" >&2
		return 1
	fi
}
wait_quiet() {
	i=0
	until quiet; do
		i=$((i + 1))
		[ $i -lt 120 ] || { echo "record-sessions: still busy after 10 minutes; --force records anyway" >&2; exit 1; }
		sleep 5
	done
}
rec() {
	name=$1; shift
	out="$dir/session-$name.jsonl"
	try=0
	while :; do
		[ $force = 1 ] || wait_quiet
		la0=$(cut -d' ' -f1-3 /proc/loadavg)
		./argus diagnose --batch --json "$@" --session "$out.new" >/dev/null
		la1=$(cut -d' ' -f1-3 /proc/loadavg)
		[ $force = 1 ] && break
		tests/data/session-quiet.sh "$out.new" && break
		try=$((try + 1))
		[ $try -lt 3 ] || { echo "record-sessions: $name: other work ran in 3 recordings; nothing replaced" >&2; exit 1; }
		echo "record-sessions: $name: other work ran meanwhile; recording again" >&2
	done
	echo "recorded $out.new at load average $la0 (after: $la1): $(./argus replay --batch "$out.new" | grep '^path:')"
}
dir=${ARGUS_RECORD_DIR:-tests/data}
trap 'rm -f "$dir"/session-*.jsonl.new' EXIT
rec pagefault --load build/scenarios/pagefault
rec file_fault --load build/scenarios/file_fault
rec cow_fault --load build/scenarios/cow_fault
rec aggressor --load build/scenarios/aggressor --victim build/scenarios/victim
for n in pagefault file_fault cow_fault aggressor; do
	chmod 644 "$dir/session-$n.jsonl.new" # replayed without root
	mv "$dir/session-$n.jsonl.new" "$dir/session-$n.jsonl"
done
[ "$dir" = tests/data ] || exit 0
ONLY=teaching tests/run.sh
