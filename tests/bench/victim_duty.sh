#!/bin/sh
# victim_duty — the wall-clock accounting's cost and accuracy with its duty
# cycle (the default, --time-budget 5) against watched all the time
# (--time-budget 0), side by side in one run, interleaved (issue 26 item 2):
#   pingpong     tier3 as a ping-pong (2 clients, no think time: ~10^5
#                context switches a second), the message-heavy victim, beside
#                a CPU spinner: runnable, [ran instead: spinner]
#   io_victim, lock_victim, starved   the victims of tests/bench/scenarios.sh
#                (they switch little: the duty cycle should not engage)
# Per run: the verdict right or not (the frame expected on its path), the
# programs' cost in % of one CPU (BPF run-time statistics, from argus's
# stderr line), the attached fraction, on-phases, and the windows' mean
# thread-s/s (the victim's wall time accounted).  Then per victim and mode:
# right n/N, mean cost, mean thread-s/s.
#   REPEAT=N (default 3)  VICTIMS="pingpong starved ..."
# Needs root (BPF); prints SKIPPED otherwise.
cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
ARGUS=${ARGUS:-$ROOT/argus}
S=${BUILD:-$ROOT/build}/scenarios
REPEAT=${REPEAT:-3}
VICTIMS=${VICTIMS:-pingpong io_victim lock_victim starved}
[ "$(id -u)" = 0 ] || { echo "SKIPPED: victim duty benchmark needs root"; exit 0; }
command -v jq >/dev/null || { echo "SKIPPED: victim duty benchmark needs jq"; exit 0; }
[ -x "$ARGUS" ] && [ -x "$S/tier3" ] || { echo "SKIPPED: run make first"; exit 0; }
TMP=$(mktemp -d /tmp/argus-vduty.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

args() { # victim -> diagnose arguments|expected regex on the path
	case $1 in
	pingpong) echo "--victim|$S/tier3 --clients 2 --front-us 0 --back-us 0 --lock-us 0 --io 0 --think-ms 0 --warmup 0 --seconds 60|$S/spinner|ran instead: spinner" ;;
	io_victim) echo "--victim|$S/io_victim|$S/evictor|folio_wait_bit|io_schedule" ;;
	lock_victim) echo "--victim|$S/lock_victim|$S/lock_holder|rwsem_down_write_slowpath" ;;
	starved) echo "--victim|$S/starved|$S/spinner|ran instead: spinner" ;;
	esac
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; REPEAT=$REPEAT"
printf '%-12s %-6s %-4s %7s %8s %6s %7s %9s\n' victim budget ok time cost% attach phases thread-s/s
: >"$TMP/rows"
r=0
while [ "$r" -lt "$REPEAT" ]; do
	r=$((r + 1))
	for v in $VICTIMS; do
		a=$(args "$v")
		vic=$(echo "$a" | cut -d'|' -f2) load=$(echo "$a" | cut -d'|' -f3) want=$(echo "$a" | cut -d'|' -f4-)
		order="5 0"
		[ $((r % 2)) = 0 ] && order="0 5"
		for b in $order; do
			"$ARGUS" diagnose --victim "$vic" --load "$load" --time-budget "$b" --no-session \
				>"$TMP/out.json" 2>"$TMP/out.err" || { tail -3 "$TMP/out.err"; continue; }
			ok=no
			jq -r '[.verdict.path[]?] + [.verdict.branches[]?.path[]?] | join(" > ")' "$TMP/out.json" |
				grep -Eq "$want" && ok=yes
			line=$(grep 'wall-clock accounting' "$TMP/out.err")
			cost=$(echo "$line" | sed -n 's/.*programs cost \([0-9.]*\)% of one CPU.*/\1/p')
			att=$(echo "$line" | sed -n 's/.*attached \([0-9]*\)% of.*/\1/p')
			ph=$(echo "$line" | sed -n 's/.* in \([0-9]*\) on-phase.*/\1/p')
			[ -n "$att" ] || att=100
			[ -n "$ph" ] || ph=0
			ts=$(jq -r --arg f "$(jq -r .options.freq_hz "$TMP/out.json")" \
				'[.windows[] | .samples / .secs / ($f | tonumber)] | add / length' "$TMP/out.json")
			t=$(jq -r '.elapsed_s // .time_s // 0' "$TMP/out.json")
			printf '%-12s %-6s %-4s %7.1f %8s %5s%% %7s %9.2f\n' "$v" "$b" "$ok" "$t" "${cost:-?}" "$att" "$ph" "$ts"
			echo "$v $b $ok ${cost:-0} $ts" >>"$TMP/rows"
		done
	done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "summary (budget 5: duty-cycled when over it; 0: watched all the time):"
awk '{ k = $1 " " $2; n[k]++; ok[k] += ($3 == "yes"); c[k] += $4; t[k] += $5 }
	END { for (k in n) printf "  %-18s right %d/%d  cost %.2f%% of a CPU  thread-s/s %.2f\n",
		k, ok[k], n[k], c[k] / n[k], t[k] / n[k] }' "$TMP/rows" | sort
