#!/bin/sh
# Overhead of sampling: the page-fault loop alone, under `argus record`
# (system-wide) at 99 and 999 Hz, and under `perf record -a -g` at the same
# frequencies.  Conditions are interleaved (the order rotates each round) in
# one run.  The load runs one process per CPU (--procs).
#
# The ratio that counts is the cost of a page fault: pages per CPU-second,
# where the CPU-seconds are the load's own (the sampling interrupt and the
# BPF program are charged to the task they interrupt) plus the sampler
# process's during the run (perf writing its file, argus reading maps).
# Other processes competing for the CPUs (a shared machine) blur it far less
# than wall-clock throughput, which is shown too.  "bpf %/CPU" is argus's
# sampling program's own run time (kernel.bpf_stats) per CPU.
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

HZ_TCK=$(getconf CLK_TCK)
cpu_of() { # pid -> CPU seconds so far (user + system, all threads)
	awk -v t="$HZ_TCK" '{ sub(/^.*\) /, ""); printf "%.3f", ($12 + $13) / t }' "/proc/$1/stat" 2>/dev/null ||
		echo 0
}

run_cond() { # cond -> "pages/s pages/cpu-s bpf%perCPU" on stdout
	sampler=""
	case $1 in
	argus*) "$ARGUS" record --freq "${1#argus}" --folded >"$TMP/argus.folded" 2>"$TMP/argus.err" &
		sampler=$! ;;
	perf*)  perf record -a -g -F "${1#perf}" -o "$TMP/perf.data" >/dev/null 2>"$TMP/perf.err" &
		sampler=$! ;;
	esac
	sleep 1 # let the sampler attach (the same pause for "alone")
	s0=0; s1=0
	[ -n "$sampler" ] && s0=$(cpu_of "$sampler")
	"$LOAD" --seconds "$SECS" --procs "$PROCS" >"$TMP/load.out"
	[ -n "$sampler" ] && s1=$(cpu_of "$sampler")
	bpf=-
	if [ -n "$sampler" ]; then
		kill -INT "$sampler"
		wait "$sampler"
		case $1 in argus*)
			b=$(sed -n 's/.*sampler cost \([0-9.]*\)% of one CPU.*/\1/p' "$TMP/argus.err")
			bpf=$(awk -v b="${b:-0}" -v n="$NCPU" 'BEGIN { printf "%.3f", b / n }') ;;
		esac
	fi
	tr ' ' '\n' <"$TMP/load.out" | awk -F= -v s0="$s0" -v s1="$s1" -v bpf="$bpf" '
		{ v[$1] = $2 }
		END { c = v["cpu_seconds"] + s1 - s0
		      printf "%.0f %.0f %s\n", v["pages_per_sec"], (c > 0 ? v["pages"] / c : 0), bpf }'
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
report() { # results file -> the table
awk -v conds="$conds" '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ w[$2, $1] = $3; e[$2, $1] = $4; b[$2, $1] = $5; if ($1 > R) R = $1; has[$2] = 1 }
	END {
		nc = split(conds, cs, " ")
		printf "%-10s %9s %11s %9s %9s %9s %10s\n", "condition", "pages/s", "pages/CPU-s",
			"vs alone", "slowdown", "vs perf", "bpf %/CPU"
		for (i = 1; i <= nc; i++) {
			c = cs[i]; n = 0; m = 0; nb = 0; np = 0
			p = c; sub(/^argus/, "perf", p)
			for (r = 1; r <= R; r++) {
				x[++n] = w[c, r]; y[n] = e[c, r]
				if (e["alone", r] > 0) q[++m] = e[c, r] / e["alone", r]
				if (b[c, r] != "-") z[++nb] = b[c, r]
				if (p != c && has[p] && e[p, r] > 0) v[++np] = e[c, r] / e[p, r]
			}
			ratio = median(q, m)
			printf "%-10s %9.0f %11.0f %9.3f %8.1f%% %9s %10s\n", c, median(x, n), median(y, n),
				ratio, 100 * (1 - ratio), np ? sprintf("%.3f", median(v, np)) : "-",
				nb ? sprintf("%.3f", median(z, nb)) : "-"
			delete x; delete y; delete q; delete z; delete v
		}
		print "vs alone / vs perf: median over rounds of pages/CPU-s divided by the same"
		print "round'"'"'s alone / perf at the same frequency (above 1: argus costs less)"
	}' "$1"
}
report "$TMP/results"
