#!/bin/sh
# Overhead of sampling: the page-fault loop's throughput alone, under
# `argus record` (system-wide) at 99 and 999 Hz, and under
# `perf record -a -g` at the same frequencies.  Conditions are interleaved
# (the order rotates each round) in one run.  The table gives each
# condition's median throughput, the median of its per-round ratios to that
# round's "alone", and for argus the sampler's own BPF run time per CPU
# (kernel.bpf_stats), which host noise does not blur.  The load runs one
# process per CPU (--procs), so every CPU is busy and a sampler's user-space
# work counts too.
#   ROUNDS (default 6)  SECS per run (default 4)  PROCS (default nproc)
cd "$(dirname "$0")/../.." || exit 2
ROOT=${ROOT:-$(pwd)}
ARGUS=${ARGUS:-$ROOT/argus}
BUILD=${BUILD:-$ROOT/build}
LOAD="$BUILD/scenarios/pagefault"
ROUNDS=${ROUNDS:-6}
SECS=${SECS:-4}
PROCS=${PROCS:-$(nproc)}
NCPU=$(nproc)
TMP=$(mktemp -d /tmp/argus-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

if [ "$(id -u)" != 0 ]; then echo "SKIPPED: overhead needs root"; exit 0; fi
[ -x "$LOAD" ] && [ -x "$ARGUS" ] || { echo "overhead: run make first" >&2; exit 1; }
conds="alone argus99 argus999"
if command -v perf >/dev/null 2>&1 &&
   perf record -a -g -F 99 -o "$TMP/probe.data" -- true >/dev/null 2>&1; then
	conds="$conds perf99 perf999"
else
	echo "(perf record not usable here: perf rows left out)"
fi

run_cond() { # cond -> "pages/s bpf%perCPU" on stdout
	sampler=""
	case $1 in
	argus*) "$ARGUS" record --freq "${1#argus}" --folded >"$TMP/argus.folded" 2>"$TMP/argus.err" &
		sampler=$! ;;
	perf*)  perf record -a -g -F "${1#perf}" -o "$TMP/perf.data" >/dev/null 2>"$TMP/perf.err" &
		sampler=$! ;;
	esac
	sleep 1 # let the sampler attach (the same pause for "alone")
	r=$("$LOAD" --seconds "$SECS" --procs "$PROCS" | sed -n 's/.*pages_per_sec=\([0-9]*\).*/\1/p')
	bpf=-
	if [ -n "$sampler" ]; then
		kill -INT "$sampler"
		wait "$sampler"
		case $1 in argus*)
			b=$(sed -n 's/.*sampler cost \([0-9.]*\)% of one CPU.*/\1/p' "$TMP/argus.err")
			bpf=$(awk -v b="${b:-0}" -v n="$NCPU" 'BEGIN { printf "%.3f", b / n }') ;;
		esac
	fi
	echo "${r:-0} $bpf"
}

echo "page-fault loop: $PROCS process(es) x 64 MiB, ${SECS}s per run, $ROUNDS rounds, $NCPU CPUs, $(uname -r)"
: >"$TMP/results"
round=1
while [ "$round" -le "$ROUNDS" ]; do
	# rotate the order each round so drift does not favour one condition
	order=$(echo $conds | awk -v r="$round" '{ for (i = 0; i < NF; i++) printf "%s ", $(((i + r - 1) % NF) + 1) }')
	for c in $order; do
		v=$(run_cond "$c")
		echo "$round $c $v" >>"$TMP/results"
		printf '  round %d %-9s %s\n' "$round" "$c" "$v"
	done
	round=$((round + 1))
done

echo
awk -v conds="$conds" '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ v[$2, $1] = $3; b[$2, $1] = $4; if ($1 > R) R = $1 }
	END {
		nc = split(conds, cs, " ")
		printf "%-10s %12s %10s %10s %12s\n", "condition", "pages/s", "vs alone", "slowdown", "bpf %/CPU"
		for (i = 1; i <= nc; i++) {
			c = cs[i]; n = 0; m = 0; nb = 0
			for (r = 1; r <= R; r++) {
				x[++n] = v[c, r]
				if (v["alone", r] > 0) q[++m] = v[c, r] / v["alone", r]
				if (b[c, r] != "-") y[++nb] = b[c, r]
			}
			ratio = median(q, m)
			printf "%-10s %12.0f %10.3f %9.1f%% %12s\n", c, median(x, n), ratio,
				100 * (1 - ratio), nb ? sprintf("%.3f", median(y, nb)) : "-"
			delete x; delete q; delete y
		}
	}' "$TMP/results"
