#!/bin/sh
# make bench: runs every benchmark section and prints its table.
#   build/bench/bench_*   C micro-benchmarks (tree merge, TUI redraw, ...)
#   tests/bench/*.sh      whole-program benchmarks (overhead vs perf, scenarios)
# Each section prints ratios measured side by side in one run; BENCH.md keeps
# the results with this command.  ONLY=substring runs matching sections.
cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
export ROOT ARGUS="$ROOT/argus" BUILD="$ROOT/build"
status=0
for b in build/bench/bench_*; do
	[ -x "$b" ] || continue
	case "$b" in *${ONLY:-}*) ;; *) continue ;; esac
	echo "== $(basename "$b")"
	"$b" || status=1
	echo
done
for s in tests/bench/*.sh; do
	[ "$(basename "$s")" = run.sh ] && continue
	case "$s" in *${ONLY:-}*) ;; *) continue ;; esac
	echo "== $(basename "$s" .sh)"
	sh "$s" || status=1
	echo
done
exit $status
