#!/bin/sh
# Cost of user-space stacks (issue 27): the callsite load (raw read() of
# /dev/zero through five frames of its own, built with frame pointers: a
# kernel sample with a full user stack every time) alone, under
# `argus record` at FREQ Hz with kernel stacks only (--kernel-only) and with
# the user stacks (the default), and under `perf record -a -g` at the same
# frequency.  Conditions interleaved, the order rotating each round, in one
# run; one load process per CPU.
#
# The ratio is the cost of a read: ops per CPU-second, the CPU-seconds being
# the loads' own (the sampling interrupt, the BPF program and the kernel's
# user-stack walk are charged to the task they interrupt) plus the sampler
# process's during the run (argus symbolizing, perf writing its file).
# "bpf %/CPU" is argus's sampling program's own run time per CPU.
#   ROUNDS (default 5)  SECS per run (default 4)  FREQ (default 999)
cd "$(dirname "$0")/../.." || exit 2
ROOT=${ROOT:-$(pwd)}
ARGUS=${ARGUS:-$ROOT/argus}
BUILD=${BUILD:-$ROOT/build}
LOAD="$BUILD/scenarios/callsite_fp"
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-4}
FREQ=${FREQ:-999}
NCPU=$(nproc)
TMP=$(mktemp -d /tmp/argus-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

if [ "$(id -u)" != 0 ]; then echo "SKIPPED: ustack needs root"; exit 0; fi
[ -x "$LOAD" ] && [ -x "$ARGUS" ] || { echo "ustack: run make first" >&2; exit 1; }
conds="alone kernel user"
if command -v perf >/dev/null 2>&1 &&
   perf record -a -g -F 99 -o "$TMP/probe.data" -- true >/dev/null 2>&1; then
	conds="$conds perf"
else
	echo "(perf record not usable here: perf row left out)"
fi

HZ_TCK=$(getconf CLK_TCK)
cpu_of() { # pid -> CPU seconds so far (user + system)
	awk -v t="$HZ_TCK" '{ sub(/^.*\) /, ""); printf "%.3f", ($12 + $13) / t }' "/proc/$1/stat" 2>/dev/null ||
		echo 0
}

run_cond() { # cond -> "ops/s ops/cpu-s bpf%perCPU" on stdout
	sampler=""
	case $1 in
	kernel) "$ARGUS" record --freq "$FREQ" --kernel-only --folded >/dev/null 2>"$TMP/argus.err" &
		sampler=$! ;;
	user)   "$ARGUS" record --freq "$FREQ" --format pprof >"$TMP/argus.pb" 2>"$TMP/argus.err" &
		sampler=$! ;;
	perf)   perf record -a -g -F "$FREQ" -o "$TMP/perf.data" >/dev/null 2>"$TMP/perf.err" &
		sampler=$! ;;
	esac
	sleep 1 # let the sampler attach (the same pause alone)
	s0=0; s1=0
	[ -n "$sampler" ] && s0=$(cpu_of "$sampler")
	i=0; loads=""; : >"$TMP/load.out"
	while [ $i -lt "$NCPU" ]; do
		"$LOAD" --seconds "$SECS" >>"$TMP/load.out" &
		loads="$loads $!"
		i=$((i + 1))
	done
	wait $loads
	[ -n "$sampler" ] && s1=$(cpu_of "$sampler")
	bpf=-
	if [ -n "$sampler" ]; then
		kill -INT "$sampler"
		wait "$sampler"
		case $1 in kernel|user)
			b=$(sed -n 's/.*sampler cost \([0-9.]*\)% of one CPU.*/\1/p' "$TMP/argus.err")
			bpf=$(awk -v b="${b:-0}" -v n="$NCPU" 'BEGIN { printf "%.3f", b / n }') ;;
		esac
	fi
	tr ' ' '\n' <"$TMP/load.out" | awk -F= -v s0="$s0" -v s1="$s1" -v bpf="$bpf" '
		$1 == "ops" { ops += $2 } $1 == "ops_per_sec" { rate += $2 } $1 == "cpu_seconds" { cpu += $2 }
		END { c = cpu + s1 - s0
		      printf "%.0f %.0f %s\n", rate, (c > 0 ? ops / c : 0), bpf }'
}

echo "callsite_fp: $NCPU process(es), ${SECS}s per run, $ROUNDS rounds, $FREQ Hz, $NCPU CPUs, $(uname -r)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$TMP/results"
round=1
while [ "$round" -le "$ROUNDS" ]; do
	order=$(echo $conds | awk -v r="$round" '{ for (i = 0; i < NF; i++) printf "%s ", $(((i + r - 1) % NF) + 1) }')
	for c in $order; do
		v=$(run_cond "$c")
		echo "$round $c $v" >>"$TMP/results"
		printf '  round %d %-7s %s\n' "$round" "$c" "$v"
	done
	round=$((round + 1))
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
awk -v conds="$conds" '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ w[$2, $1] = $3; e[$2, $1] = $4; b[$2, $1] = $5; if ($1 > R) R = $1; has[$2] = 1 }
	END {
		nc = split(conds, cs, " ")
		printf "%-8s %9s %10s %9s %9s %9s %10s\n", "cond", "ops/s", "ops/CPU-s", "vs alone",
			"slowdown", "vs perf", "bpf %/CPU"
		for (i = 1; i <= nc; i++) {
			c = cs[i]; n = 0; m = 0; nb = 0; np = 0
			for (r = 1; r <= R; r++) {
				x[++n] = w[c, r]; y[n] = e[c, r]
				if (e["alone", r] > 0) q[++m] = e[c, r] / e["alone", r]
				if (b[c, r] != "-") z[++nb] = b[c, r]
				if (has["perf"] && e["perf", r] > 0) v[++np] = e[c, r] / e["perf", r]
			}
			ratio = median(q, m)
			printf "%-8s %9.0f %10.0f %9.3f %8.1f%% %9s %10s\n", c, median(x, n), median(y, n),
				ratio, 100 * (1 - ratio), np ? sprintf("%.3f", median(v, np)) : "-",
				nb ? sprintf("%.3f", median(z, nb)) : "-"
			delete x; delete y; delete q; delete z; delete v
		}
		print "vs alone / vs perf: median over rounds of ops/CPU-s divided by the same"
		print "round'"'"'s alone / perf -g (above 1: costs less than perf)"
	}' "$TMP/results"
