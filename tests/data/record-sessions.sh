#!/bin/sh
# Re-records the four teaching sessions (tests/data/session-*.jsonl) the way
# tests/data/README says, on a quiet machine: the README's walk-through
# ("the first reference window shows the machine without the load") is only
# as true as the machine was quiet.  Root; run from the repository after
# `make all`.  Refuses when the machine is busy (1-minute load average over
# 0.5, or another process using over 5% of a CPU) unless --force; after
# recording, tests/docs/teaching.sh checks the README's claims on the new
# files (adjust the README's note on "other work" if the machine was quiet).
#   sudo tests/data/record-sessions.sh [--force]
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
rec() {
	name=$1; shift
	if [ $force = 0 ]; then
		i=0
		until quiet; do
			i=$((i + 1))
			[ $i -lt 12 ] || { echo "record-sessions: still busy after a minute; --force records anyway" >&2; exit 1; }
			sleep 5
		done
	fi
	out="tests/data/session-$name.jsonl"
	./argus diagnose --batch --json "$@" --session "$out.new" >/dev/null
	mv "$out.new" "$out"
	echo "recorded $out: $(./argus replay --batch "$out" | grep '^path:')"
}
rec pagefault --load build/scenarios/pagefault
rec file_fault --load build/scenarios/file_fault
rec cow_fault --load build/scenarios/cow_fault
rec aggressor --load build/scenarios/aggressor --victim build/scenarios/victim
ONLY=teaching tests/run.sh
