#!/bin/sh
# kinds — each step kind's cost to its load: the load's throughput with the
# step attached vs without, interleaved (alone, with, alone, with ...) for
# ROUNDS rounds of SECS seconds, in one run; prints the median ratio per
# kind.  Targets (default settings): sample <= 2 %, the others <= 5 %.
#   kind                load                       step
#   sample              pagefault                  sample, 99 Hz (the step default)
#   sample_999          pagefault                  sample, 999 Hz
#   tracepoint_stacks   pagefault                  exceptions:page_fault_user, automatic 1-in-N
#   offcpu              pipe ping-pong             offcpu, every task
#   counts              pagefault                  exceptions:*
#   counts_kmem         pagefault                  exceptions:* and kmem:* (~6 events a fault)
# offcpu and tracepoint_latency run on a ping-pong over pipes: a context
# switch and two syscalls every few microseconds, their worst case.
# tracepoint_latency runs raw_syscalls:sys_enter/sys_exit on the ping-pong
# load (every syscall is an interval: a worst case) and
# block_rq_issue/complete would need a disk-bound load (not measured).
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd cc
need_cmd pkg-config
[ -x "$BUILD/scenarios/pagefault" ] || skip "no $BUILD/scenarios; run make"
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-2}

build_driver kinds_run -O2
RUN="$TMP/kinds_run"

tput() { sed -n 's/.*_per_sec=\([0-9.]*\).*/\1/p' "$1" | tail -n 1; }

# load LOAD... : runs the load for SECS and prints its throughput
load() {
	case "$1" in
	pingpong) "$RUN" load-pingpong "$SECS" >"$TMP/out" ;;
	*) "$BUILD/scenarios/$1" --seconds "$SECS" >"$TMP/out" ;;
	esac
	tput "$TMP/out"
}

# with SPEC LOAD: the load's throughput while the step runs; the step's own
# BPF cost per event (run-time statistics) goes to $TMP/cost
with() {
	"$RUN" "$1" $((SECS + 1)) >"$TMP/step" 2>&1 &
	sp=$!
	i=0
	while ! grep -q '^attached' "$TMP/step" 2>/dev/null; do
		sleep 0.05; i=$((i + 1))
		if [ $i -gt 200 ] || ! kill -0 $sp 2>/dev/null; then
			cat "$TMP/step" >&2; kill $sp 2>/dev/null; echo 0; return
		fi
	done
	load "$2"
	wait $sp 2>/dev/null
	awk '/^stats.run_ns/ {ns=$2} /^stats.run_cnt/ {n=$2}
	     END { if (n > 0) printf "%.0f %.0f\n", ns / n, n }' "$TMP/step" >>"$TMP/cost"
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

printf '%-20s %-10s %12s %12s %8s %7s %9s %10s\n' kind load alone with ratio target ns/event events/s
bench() { # NAME TARGET LOAD SPEC
	: >"$TMP/ratios"; : >"$TMP/cost"; a_all=""; w_all=""
	for r in $(seq "$ROUNDS"); do
		if [ $((r % 2)) = 1 ]; then a=$(load "$3"); w=$(with "$4" "$3")
		else w=$(with "$4" "$3"); a=$(load "$3"); fi
		echo "$w $a" | awk '{ if ($2 > 0) printf "%.4f\n", $1 / $2 }' >>"$TMP/ratios"
		a_all="$a_all $a"; w_all="$w_all $w"
	done
	am=$(echo $a_all | tr ' ' '\n' | median); wm=$(echo $w_all | tr ' ' '\n' | median)
	rm_=$(median <"$TMP/ratios")
	ns=$(cut -d' ' -f1 "$TMP/cost" | median); ev=$(cut -d' ' -f2 "$TMP/cost" | median)
	printf '%-20s %-10s %12.0f %12.0f %8.3f %6s%% %9s %10.0f\n' "$1" "$3" "$am" "$wm" "$rm_" "$2" \
		"${ns:-?}" "$(echo "${ev:-0} $SECS" | awk '{print $1 / ($2 + 1)}')"
}

bench sample 2 pagefault '{"kind":"sample","duration_s":30}'
bench sample_999 2 pagefault '{"kind":"sample","freq_hz":999,"duration_s":30}'
bench tracepoint_stacks 5 pagefault '{"kind":"tracepoint_stacks","target":"exceptions:page_fault_user","duration_s":30}'
bench counts 5 pagefault '{"kind":"counts","target":"exceptions:*","duration_s":30}'
bench counts_kmem 5 pagefault '{"kind":"counts","target":["exceptions:*","kmem:*"],"duration_s":30}'
bench offcpu 5 pingpong '{"kind":"offcpu","duration_s":30}'
bench tracepoint_latency 5 pingpong '{"kind":"tracepoint_latency","begin":"raw_syscalls:sys_enter","end":"raw_syscalls:sys_exit","duration_s":30}'
echo "ratio = median over $ROUNDS rounds of (throughput with the step) / (alone), $SECS s each;"
echo "ns/event = the step's BPF run time per program run (run-time statistics on), events/s = runs per second:"
echo "their product is the step's own CPU cost, which predicts the slowdown of any load"
