#!/bin/sh
# schedtime — the scheduler-time programs' cost on their worst load, a pipe
# ping-pong (a context switch and a wakeup every few microseconds), in one
# run, interleaved (ROUNDS rounds of SECS s each):
#   none          the ping-pong alone
#   self          bpf/schedtime.bpf.c tracking only the ping-pong (as the
#                 wall-clock tree tracks a victim and `argus model` its load)
#   self-exact    the same without sampling (every interval charged)
#   all           tracking every task of the machine
#   other         tracking another process (the shell running this) while
#                 the ping-pong runs untracked: a victim of a message-heavy
#                 aggressor, the case of the early exit (issue 26)
#   old-self, old-all   the programs of an older tree (OLD=DIR: a source
#                 tree with build/libargus.a made, or OLD_REV=REV: built
#                 here from git, e.g. OLD_REV=e0770a7, the version before
#                 the issue-15 overhead work), when given
# Columns: throughput medians and their ratio to `none` (on a machine
# shared with other work this ratio is noisy: other tasks take the CPUs the
# ping-pong bounces between); bpf ns/switch and bpf %cpu: the programs' own
# run time (BPF run-time statistics, measured in extra rounds with them on)
# per sched_switch and as a share of one CPU over the run — the figure noise
# blurs least.  Target: the per-event step budget, 5% of one CPU
# (KIND_EVENT_BUDGET_PCT), and a ratio >= 0.95.
cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
BUILD=${BUILD:-$ROOT/build}
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-2}
[ "$(id -u)" = 0 ] || { echo "SKIPPED: schedtime benchmark needs root"; exit 0; }
[ -f "$BUILD/libargus.a" ] || { echo "SKIPPED: run make first"; exit 0; }
TMP=$(mktemp -d /tmp/argus-bench.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
LIBS="$(pkg-config --libs libbpf libcjson libcurl libdw) -lelf -lz -lm"
cc -O1 -g -I"$ROOT/core" -I"$BUILD" -I"$ROOT/bpf" -o "$TMP/run" \
	"$ROOT/tests/live/schedtime_run.c" "$BUILD/libargus.a" $LIBS || { echo "cannot build the driver"; exit 1; }
if [ -n "${OLD_REV:-}" ] && [ -z "${OLD:-}" ]; then
	OLD="$TMP/old"
	mkdir -p "$OLD" && git -C "$ROOT" archive "$OLD_REV" | tar -x -C "$OLD" &&
		make -s -C "$OLD" -j2 build/libargus.a >"$TMP/old.log" 2>&1 ||
		{ tail -5 "$TMP/old.log"; echo "cannot build $OLD_REV"; exit 1; }
fi
MODES="none self self-exact all other"
if [ -n "${OLD:-}" ]; then
	cc -O1 -g -I"$OLD/core" -I"$OLD/build" -I"$OLD/bpf" -o "$TMP/run-old" \
		"$OLD/tests/live/schedtime_run.c" "$OLD/build/libargus.a" $LIBS ||
		{ echo "cannot build the old driver"; exit 1; }
	MODES="$MODES old-self old-all old-other"
fi
for m in $MODES; do : >"$TMP/$m"; : >"$TMP/$m.ev"; done
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	for m in $MODES; do
		for st in "" -stats; do
			[ $m = none ] && [ -n "$st" ] && continue
			case $m in
			none) set -- "$TMP/run" pingpong "$SECS" ;;
			old-*) set -- "$TMP/run-old" pingpong "$SECS" "${m#old-}$st" ;;
			*) set -- "$TMP/run" pingpong "$SECS" "$m$st" ;;
			esac
			"$@" >"$TMP/out" 2>&1 || { cat "$TMP/out"; exit 1; }
			if [ -z "$st" ]; then
				sed -n 's/^ops_per_sec //p' "$TMP/out" >>"$TMP/$m"
			else
				sed -n 's/^events \([0-9]*\) bpf_ns \([0-9]*\) .*/\1 \2/p' "$TMP/out" >>"$TMP/$m.ev"
			fi
		done
	done
done
med() { sort -n "$1" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
none=$(med "$TMP/none")
echo "load: pipe ping-pong, $ROUNDS rounds of $SECS s interleaved; load average after $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-12s %10s %10s %7s %7s %16s %12s\n' tracking alone with ratio target "bpf ns/switch" "bpf %cpu"
for m in $MODES; do
	[ $m = none ] && continue
	w=$(med "$TMP/$m")
	ns=$(awk '{ e += $1; n += $2 } END { printf "%.0f", (e ? n / e : 0) }' "$TMP/$m.ev")
	cpu=$(awk -v r="$ROUNDS" -v s="$SECS" '{ n += $2 } END { printf "%.1f", n / (r * s * 1e9) * 100 }' "$TMP/$m.ev")
	printf '%-12s %10s %10s %7s %7s %16s %12s\n' "$m" "$none" "$w" \
		"$(awk -v a="$w" -v b="$none" 'BEGIN { printf "%.3f", (b ? a / b : 0) }')" 5% "$ns" "$cpu"
done
