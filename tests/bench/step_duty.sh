#!/bin/sh
# step_duty — what the duty cycle buys on the demo's first step
# (tracepoint_stacks on exceptions:page_fault_user over the page-fault loop),
# side by side in one run, ROUNDS times alternately:
#   full   the step attached all the time (--budget 400: never duty-cycled)
#   duty   the default budget (5% of a CPU): duty-cycled when over it
# Per round: the final duty, the cost while attached, the average cost over
# the run (% of one CPU, BPF run time), the loop's loaded page-fault rate per
# attached second and the step's state.  What must hold: duty's average
# within the budget where full's is over it, and the two rates alike.
cd "$(dirname "$0")/../.." || exit 2
ARGUS=${ARGUS:-./argus}
PF=${BUILD:-build}/scenarios/pagefault
ROUNDS=${ROUNDS:-3}
[ "$(id -u)" = 0 ] || { echo "SKIPPED: needs root"; exit 0; }
[ -x "$ARGUS" ] && [ -x "$PF" ] || { echo "SKIPPED: run make first"; exit 0; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM
cat > "$TMP/pf.json" <<EOS
{"kind": "tracepoint_stacks", "target": "exceptions:page_fault_user", "duration_s": 3}
EOS
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %5s %6s %12s %12s %14s %s\n' mode round duty attached_pct average_pct load_faults/s state
for r in $(seq 1 "$ROUNDS"); do
	for mode in full duty; do
		b=5; [ $mode = full ] && b=400
		"$ARGUS" step --only-load --budget $b "$TMP/pf.json" -- "$PF" --seconds 60 \
			>"$TMP/o.json" 2>/dev/null || { echo "$mode $r: argus step failed"; continue; }
		jq -r --arg m $mode --arg r "$r" '[$m, $r, (.overhead.duty // 1),
			(.overhead.attached_pct // -1), (.overhead.pct // -1), .targets[0].rate.load, .state] |
			@tsv' "$TMP/o.json" |
			awk -F'\t' '{ printf "%-6s %5s %6.2f %12.2f %12.2f %14.0f %s\n", $1, $2, $3, $4, $5, $6, $7 }'
	done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
