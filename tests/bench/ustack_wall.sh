#!/bin/sh
# Cost of user-space stacks in the wall-clock accounting (issue 27): the
# scheduler-time programs take the user stack at every sampled block and
# preemption (bpf/schedtime.bpf.c block_ustack).  Two loads that block
# often, each diagnosed with --time wall --time-budget 0 (watched all the
# time, so the cost is not capped by the duty cycle), with the user stacks
# (the default) and with --kernel-only, interleaved, the order rotating each
# round, in one run:
#   pipe      tests/scenarios/callsite_fp --pipe 100: eight threads blocked in
#             pipe reads, each with the program's own five-frame user stack
#             (frame pointers: a full walk every time)
#   pingpong  tier3 as a ping-pong victim (two clients, no think time; ~10^5
#             switches a second), its user stacks cut early in libc (no frame
#             pointers), beside a spinner
# Per row: the programs' cost while attached, % of one CPU (BPF run-time
# statistics, from diagnose's cost line), median over rounds, and the
# ratio user / kernel-only; and whether the verdict had call sites.
#   ROUNDS (default 3)
cd "$(dirname "$0")/../.." || exit 2
ROOT=${ROOT:-$(pwd)}
ARGUS=${ARGUS:-$ROOT/argus}
S=${BUILD:-$ROOT/build}/scenarios
ROUNDS=${ROUNDS:-3}
TMP=$(mktemp -d /tmp/argus-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

if [ "$(id -u)" != 0 ]; then echo "SKIPPED: ustack_wall needs root"; exit 0; fi
command -v jq >/dev/null 2>&1 || { echo "SKIPPED: ustack_wall needs jq"; exit 0; }
[ -x "$S/callsite_fp" ] && [ -x "$S/tier3" ] && [ -x "$ARGUS" ] ||
	{ echo "ustack_wall: run make first" >&2; exit 1; }

run() { # load mode -> "cost% callsites"
	case $1 in
	pipe) set -- "$2" --time wall --load "$S/callsite_fp --pipe 100" ;;
	pingpong) set -- "$2" --victim "$S/tier3 --clients 2 --front-us 0 --back-us 0 --lock-us 0 --io 0 --think-ms 0 --warmup 0 --seconds 60" --load "$S/spinner" ;;
	esac
	mode=$1; shift
	[ "$mode" = kernel ] && set -- "$@" --kernel-only
	"$ARGUS" diagnose --batch --json --no-session --fixed --pairs 3 --time-budget 0 "$@" \
		>"$TMP/out.json" 2>"$TMP/err" </dev/null
	cost=$(sed -n 's/.*programs cost \([0-9.]*\)% of one CPU.*/\1/p' "$TMP/err")
	cs=$(jq -r '.verdict.call_sites // [] | length' "$TMP/out.json" 2>/dev/null)
	echo "${cost:-?} ${cs:-?}"
}

echo "ustack_wall: $ROUNDS rounds, $(nproc) CPUs, $(uname -r); load average $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$TMP/results"
round=1
while [ "$round" -le "$ROUNDS" ]; do
	for load in pipe pingpong; do
		order="user kernel"
		[ $((round % 2)) = 0 ] && order="kernel user"
		for m in $order; do
			v=$(run "$load" "$m")
			echo "$round $load $m $v" >>"$TMP/results"
			printf '  round %d %-8s %-6s cost %s%% call sites %s\n' "$round" "$load" "$m" $v
		done
	done
	round=$((round + 1))
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
awk '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ c[$2, $3, $1] = $4; cs[$2, $3, $1] = $5; if ($1 > R) R = $1 }
	END {
		printf "%-9s %14s %14s %10s %22s\n", "load", "user (%CPU)", "kernel (%CPU)", "ratio", "call sites user/kernel"
		split("pipe pingpong", L, " ")
		for (l = 1; l <= 2; l++) {
			n = 0
			for (r = 1; r <= R; r++) {
				u[++n] = c[L[l], "user", r]; k[n] = c[L[l], "kernel", r]
				if (k[n] > 0) q[n] = u[n] / k[n]
				su = su " " cs[L[l], "user", r]; sk = sk " " cs[L[l], "kernel", r]
			}
			printf "%-9s %14.2f %14.2f %10.3f %22s\n", L[l], median(u, n), median(k, n), median(q, n),
				su " /" sk
			delete u; delete k; delete q; su = ""; sk = ""
		}
		print "cost: the scheduler programs while attached (BPF run-time statistics), median over rounds;"
		print "ratio: median of each round'"'"'s user / kernel-only"
	}' "$TMP/results"
