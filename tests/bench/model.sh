#!/bin/sh
# argus model against the 3-tier scenario (tests/scenarios/tier3):
#  1. prediction: for N clients, the model built at N (--mark 'steady begin',
#     calibrated at N to the throughput measured under the probe, then the
#     probe's own CPU taken out of the demands: --probe-correction stats)
#     predicts the throughput of the load without the probe at N ("unpr N",
#     the JSON's unprobed.throughput) and, with --what-if clients=2x, at 2N
#     ("pred 2N", from the corrected model); both are compared with tier3
#     run alone (no probe) at N and 2N, in the same round, interleaved.
#     Beside them, from the same run: the throughput measured under the
#     probe ("probed N", the JSON's throughput, what the model is calibrated
#     to) and the 2N what-if of the uncorrected model ("unc 2N",
#     prediction.throughput_probed), so the correction's effect shows
#     without the noise between runs; "corr %" is the probe CPU taken out
#     of the load's demand (% of one CPU) and "ns" the cost per program run
#     it used.  Targets: within 5% at N, within 15% at 2N.
#  2. overhead of the causality program: tier3 as a message ping-pong (no
#     think time, no CPU work, no lock, no I/O) alone and under argus model,
#     interleaved, with the duty cycle (the default) and without
#     (--no-duty); the ratio of throughputs, the share of the time the
#     probe was attached, and its own BPF run time in % of one CPU while
#     attached and on average (the step budget of the per-event kinds is
#     5%: the duty cycle holds the average to it); with OLD_ARGUS=path an
#     older argus binary in the same rounds, side by side (e.g. one built
#     from e0770a7, before the overhead work).
# The machine is shared: say so with the numbers (load average printed).
#   ROUNDS (default 2)  SECS per run (default 6)  THINK (ms, default 10)
#   PART=predict|overhead (default both) | family (part 3 alone; FAMN;
#   FAMONLY=pattern: only the apps whose name matches)
#   T3ARGS: more tier3 options for the prediction part (e.g. lighter CPU work
#   and a short think time, where the probe is a larger share of a request)
cd "$(dirname "$0")/../.." || exit 2
ROOT=${ROOT:-$(pwd)}
ARGUS=${ARGUS:-$ROOT/argus}
BUILD=${BUILD:-$ROOT/build}
T3="$BUILD/scenarios/tier3"
ROUNDS=${ROUNDS:-2}
SECS=${SECS:-6}
THINK=${THINK:-10}
TMP=$(mktemp -d /tmp/argus-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

if [ "$(id -u)" != 0 ]; then echo "SKIPPED: model needs root"; exit 0; fi
[ -x "$T3" ] && [ -x "$ARGUS" ] || { echo "model: run make first" >&2; exit 1; }
command -v python3 >/dev/null || { echo "model: needs python3" >&2; exit 1; }

alone() { # clients -> ops/s of tier3 without argus
	"$T3" --clients "$1" --seconds "$SECS" --think-ms "$THINK" --warmup 1 ${T3ARGS:-} 2>/dev/null |
		sed -n 's/.*ops_per_sec=\([0-9.]*\).*/\1/p'
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (shared by other work)"
PART=${PART:-all}
echo "command: ROUNDS=$ROUNDS SECS=$SECS THINK=$THINK PART=$PART${OLD_ARGUS:+ OLD_ARGUS=$OLD_ARGUS}${T3ARGS:+ T3ARGS=\"$T3ARGS\"} sh tests/bench/model.sh"
{ [ "$PART" = overhead ] || [ "$PART" = family ]; } ||
	printf '%-3s %-5s %9s %9s %7s %9s %9s %7s %9s %7s %9s %7s %7s %5s%s\n' N round "alone N" "unpr N" "err N" \
		"alone 2N" "pred 2N" "err 2N" "probed N" "err" "unc 2N" "err" "corr %" ns \
		"${OLD_ARGUS:+     old N  err N   old 2N  err 2N}"
build() { # argus-binary clients -> the model's JSON in $TMP/m.json
	"$1" model --duration "$SECS" --mark 'steady begin' --format json --what-if clients=2x -- \
		"$T3" --clients "$2" --seconds $((SECS + 2)) --think-ms "$THINK" --warmup 1 ${T3ARGS:-} \
		>"$TMP/m.json" 2>"$TMP/err" || { tail -3 "$TMP/err" >&2; return 1; }
	# unprobed N, pred 2N, probed N, uncorrected 2N, % of a CPU removed, ns
	# a run (an argus without the correction: its throughput and its
	# prediction for both, 0 0)
	python3 -c 'import json, sys
m = json.load(open(sys.argv[1])); p = m["prediction"]; c = m.get("probe_correction", {})
print(m.get("unprobed", {}).get("throughput", m["throughput"]), p["throughput"], m["throughput"],
      p.get("throughput_probed", p["throughput"]), c.get("cpus_removed", 0) * 100, c.get("switch_ns", 0))' "$TMP/m.json"
}
# 3. the family (PART=family): tests/scenarios/csapp's structures, each at N
#    clients (FAMN, default 2): alone at N, 2N, 4N; argus model at N with
#    --what-if clients=2x and clients=4x (two runs); per app: structure
#    right or wrong (the reference cs-client with N threads calling the
#    server task, the back for a chain, a lock where there is one), calls
#    per request client -> server, the check, the errors of the model
#    without the probe at N and of the what-ifs at 2N and 4N, and the
#    causality probe's cost (% of one CPU, its BPF run time over the run).  "tuned" apps
#    are the ones the model was changed on (the event loop: session 5;
#    TCP with client processes: the NET_RX sender and the calls at the
#    request's boundary, session 6); "measured" apps only measured.
if [ "$PART" = family ]; then
	CS="$BUILD/scenarios/csapp"
	FAMN=${FAMN:-2}
	[ -x "$CS" ] || { echo "model: no $CS; run make first" >&2; exit 1; }
	printf '%-22s %-8s %-9s %6s %-7s %9s %7s %7s %7s %6s  %s\n' app set structure calls valid "alone N" "err N" "err 2N" "err 4N" "cost%" why
	fam() { # name set server-task lock(0|1) chain(0|1) csapp-args...
		name=$1 set=$2 srv=$3 lk=$4 ch=$5
		shift 5
		case "$name" in *${FAMONLY:-}*) ;; *) return 0 ;; esac
		a1=$("$CS" "$@" --clients "$FAMN" --seconds "$SECS" 2>/dev/null | sed -n 's/.*ops_per_sec=\([0-9.]*\).*/\1/p')
		a2=$("$CS" "$@" --clients $((2 * FAMN)) --seconds "$SECS" 2>/dev/null | sed -n 's/.*ops_per_sec=\([0-9.]*\).*/\1/p')
		a4=$("$CS" "$@" --clients $((4 * FAMN)) --seconds "$SECS" 2>/dev/null | sed -n 's/.*ops_per_sec=\([0-9.]*\).*/\1/p')
		for k in 2 4; do
			"$ARGUS" model --duration "$SECS" --mark 'steady begin' --format json --what-if clients=${k}x -- \
				"$CS" "$@" --clients "$FAMN" --seconds $((SECS + 2)) >"$TMP/f$k.json" 2>"$TMP/err" ||
				{ tail -2 "$TMP/err" >&2; echo '{}' >"$TMP/f$k.json"; }
		done
		python3 - "$TMP/f2.json" "$TMP/f4.json" "$name" "$set" "$srv" "$lk" "$ch" "$FAMN" "${a1:-0}" "${a2:-0}" "${a4:-0}" <<'PY'
import json, sys
f2, f4, name, st, srv, lk, ch, n = sys.argv[1:9]
a1, a2, a4 = map(float, sys.argv[9:12])
def load(p):
    try: return json.load(open(p))
    except Exception: return {}
m, m4 = load(f2), load(f4)
t = {x["name"]: x for x in m.get("tasks", [])}
calls = {(a, c["to"]): c["mean"] for a in t for c in t[a]["calls"]}
wrong = []
if m.get("reference") != "cs-client": wrong.append("ref %s" % m.get("reference"))
elif t["cs-client"]["threads"] != int(n): wrong.append("%d clients" % t["cs-client"]["threads"])
if ("cs-client", srv) not in calls: wrong.append("no client->%s" % srv)
if ch == "1" and (srv, "cs-back") not in calls: wrong.append("no ->back")
sem = [x for x in t.values() if x["kind"] == "semaphore"]
if (lk == "1") != bool(sem): wrong.append("lock %s" % ("missed" if lk == "1" else "invented"))
def err(x, a): return "%+6.1f%%" % ((x - a) / a * 100) if a > 0 and x else "     -"
un = m.get("unprobed", {}).get("throughput", 0)
p2 = m.get("prediction", {}).get("throughput", 0)
p4 = m4.get("prediction", {}).get("throughput", 0)
cl = calls.get(("cs-client", srv))
ck = m.get("check", {})
cost = m.get("probe", {}).get("cost_pct")
print("%-22s %-8s %-9s %6s %-7s %9.1f %7s %7s %7s %6s  %s" % (name, st, "right" if not wrong else "WRONG",
      "%.2f" % cl if cl is not None else "-", ck.get("valid", "-"), a1, err(un, a1), err(p2, a2), err(p4, a4),
      "%.2f" % cost if cost is not None else "-",
      ",".join(wrong) + ("; " if wrong else "") + (ck.get("why", "")[:90] if not ck.get("valid") else "")))
PY
	}
	fam evloop-unix-threads tuned cs-server 0 0 --ipc unix --server epoll --work-us 1000
	fam tpc-tcp-procs-lock tuned cs-server 1 0 --ipc tcp --server thread --clients-as procs --work-us 600 --lock-us 300
	fam pool-pipe-threads measured cs-server 0 0 --ipc pipe --server pool --pool 2 --work-us 800
	fam fork-unix-procs-disk measured cs-handler 0 0 --ipc unix --server fork --clients-as procs --work-us 300 --disk
	fam udp-epoll-procs measured cs-server 0 0 --ipc udp --server epoll --clients-as procs --work-us 500
	fam chain-sockpair-lock measured cs-server 1 1 --ipc socketpair --server thread --chain --work-us 300 --back-us 500 --lock-us 200
	fam fork-tcp-procs-lock measured cs-handler 1 0 --ipc tcp --server fork --clients-as procs --work-us 300 --lock-us 300
	echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
	exit 0
fi
for n in $([ "$PART" = overhead ] || echo 1 2 4); do
	for r in $(seq 1 "$ROUNDS"); do
		a1=$(alone "$n")
		new=$(build "$ARGUS" "$n") || continue
		old=
		[ -n "${OLD_ARGUS:-}" ] && { old=$(build "$OLD_ARGUS" "$n") || old="0 0 0 0 0 0"; }
		a2=$(alone $((2 * n)))
		echo "$n $r $a1 $a2 $new $old" | awk '
			function err(x, a) { return a > 0 ? (x - a) / a * 100 : 0 }
			{ printf "%-3s %-5s %9.1f %9.1f %+6.1f%% %9.1f %9.1f %+6.1f%% %9.1f %+6.1f%% %9.1f %+6.1f%% %6.3f%% %5.0f",
			    $1, $2, $3, $5, err($5, $3), $4, $6, err($6, $4), $7, err($7, $3), $8, err($8, $4), $9, $10
			  # the older argus: its model at N (unprobed when it has it) and at 2N
			  if (NF >= 16) printf " %9.1f %+6.1f%% %8.1f %+6.1f%%", $11, err($11, $3), $12, err($12, $4)
			  printf "\n" }'
	done
done

[ "$PART" = predict ] && exit 0
echo
echo "overhead on a message-heavy load (tier3 --think-ms 0, no CPU work, lock or I/O; 2 clients)"
echo "alone / under argus model (duty: the default, a duty cycle holding the 5% budget;"
echo "full: --no-duty, attached all the time)${OLD_ARGUS:+ / under the older argus (OLD_ARGUS=$OLD_ARGUS)}, interleaved;"
echo "attached: the share of the time the probe was attached; cost: its BPF run time in % of"
echo "one CPU while attached and on average over the run, as argus reports it (it turns the"
echo "run-time statistics on itself; the older argus in a second run with"
echo "kernel.bpf_stats_enabled=1); ratio: throughput under argus / alone"
msg="--clients 2 --think-ms 0 --front-us 0 --back-us 0 --lock-us 0 --io 0 --warmup 1"
printf '%-5s %-6s %12s %12s %7s %9s %10s %9s %9s\n' round argus "alone ops/s" "model ops/s" ratio attached "cost att." "cost avg" "us/event"
stats0=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo 0)
under() { # argus-binary stats(0|1) [options] -> "ops_per_sec attached% cost_att% cost_avg% us"
	bin=$1 st=$2
	shift 2
	# an argus with the probe correction needs no statistics for this run:
	# the correction does not change what the probe costs
	pc=
	"$bin" model --help 2>&1 | grep -q -- --probe-correction && pc="--probe-correction none"
	[ "$st" = 1 ] && sysctl -qw kernel.bpf_stats_enabled=1
	"$bin" model --duration $((SECS + 1)) $pc "$@" -- "$T3" $msg --seconds "$SECS" >/dev/null 2>"$TMP/err"
	[ "$st" = 1 ] && sysctl -qw kernel.bpf_stats_enabled="$stats0"
	b=$(sed -n 's/.*ops_per_sec=\([0-9.]*\).*/\1/p' "$TMP/err")
	c=$(sed -n 's/.*probe cost \([0-9.]*\)% of one CPU (\([0-9.]*\) us per event).*/\1 \2/p' "$TMP/err")
	d=$(sed -n 's/.*probe attached \([0-9.]*\)% of the time.*cost while attached \([0-9.]*\)%, on average \([0-9.]*\)%.*/\1 \2 \3/p' "$TMP/err")
	[ -n "$d" ] || d=$(sed -n 's/.*probe attached \(100\)% of the time (--no-duty); cost \([0-9.]*\)%.*/\1 \2 \2/p' "$TMP/err")
	set -- ${c:-- -}
	[ -n "$d" ] || d="100 $1 $1" # an older argus: attached all the time
	echo "${b:-0} $d $2"
}
row() { # round which alone "ops att costatt costavg us"
	set -- "$1" "$2" "$3" $4
	awk -v r="$1" -v w="$2" -v a="$3" -v b="$4" -v f="$5" -v c="$6" -v g="$7" -v u="$8" \
		'BEGIN { printf "%-5s %-6s %12.0f %12.0f %7.3f %8s%% %9s%% %8s%% %9s\n", r, w, a, b, (a > 0 ? b / a : 0), f, c, g, u }'
}
for r in $(seq 1 "$ROUNDS"); do
	a=$("$T3" $msg --seconds "$SECS" | sed -n 's/.*ops_per_sec=\([0-9.]*\).*/\1/p')
	row "$r" duty "$a" "$(under "$ARGUS" 0)"
	row "$r" full "$a" "$(under "$ARGUS" 0 --no-duty)"
	if [ -n "${OLD_ARGUS:-}" ]; then
		set -- $(under "$OLD_ARGUS" 0)
		b=$1
		set -- $(under "$OLD_ARGUS" 1)
		row "$r" old "$a" "$b $2 $3 $4 $5"
	fi
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
