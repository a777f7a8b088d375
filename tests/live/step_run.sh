#!/bin/sh
# argus step: a tracepoint_stacks step on exceptions:page_fault_user over the
# page-fault scenario counts many more faults when loaded than in the
# reference and records stacks through exc_page_fault; a spec naming an
# unknown tracepoint is refused with a suggestion (exit 1); after SIGTERM and
# SIGKILL of `argus step` no BPF program it held stays loaded and the load
# is gone.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd bpftool
need_cmd python3
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
[ -x "$BUILD/scenarios/pagefault" ] || skip "no scenario loads; run make"

cp "$BUILD/scenarios/pagefault" "$TMP/stload"
cat > "$TMP/pf.json" <<EOS
{"kind": "tracepoint_stacks", "target": "exceptions:page_fault_user", "duration_s": 2,
 "rationale": "live test"}
EOS

# 1: results.  --only-load: other page-fault loads on a shared machine must
# not enter the comparison; the budget is raised because a page-fault loop
# fires the tracepoint ~10^5-10^6 times a second (what the guard is for).
"$ARGUS" step --only-load --budget 400 "$TMP/pf.json" -- "$TMP/stload" --seconds 60 \
	>"$TMP/out.json" 2>"$TMP/err" || { cat "$TMP/err"; fail "argus step failed"; }
cat "$TMP/err"
python3 - "$TMP/out.json" <<'EOP' || fail "the step's JSON does not show the page faults"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["state"] == "done", d["state"]
t = d["targets"][0]
assert t["name"] == "exceptions:page_fault_user", t["name"]
ref, load = t["rate"]["ref"], t["rate"]["load"]
print("rates: ref %.0f/s load %.0f/s, q=%g" % (ref, load, t["q"]))
assert load > 1000 and load > 10 * ref, (ref, load)
assert t["significant"]
assert any("exc_page_fault" in s["frames"] for s in d["stacks"]["load"]), d["stacks"]["load"][:2]
assert d["stacks"]["load"][0]["frames"][-1] == "[tp] exceptions:page_fault_user"
assert len(d["windows"]) == 6 and [w["cond"] for w in d["windows"]] == ["ref", "load"] * 3
assert d["overhead"]["pct"] is not None and d["overhead"]["pct"] > 0
assert "lost" in d and "summary" in d and "page_fault_user" in d["summary"]
print("summary:", d["summary"])
EOP

# 2: an unknown tracepoint: the validation message with a suggestion, exit 1
echo '{"kind":"tracepoint_stacks","target":"exceptions:page_fault_usr","duration_s":1}' \
	>"$TMP/bad.json"
"$ARGUS" step "$TMP/bad.json" -- "$TMP/stload" --seconds 5 >"$TMP/out2" 2>"$TMP/err2"
rc=$?
cat "$TMP/err2"
[ $rc -eq 1 ] || fail "unknown tracepoint: exit status $rc, expected 1"
grep -q "page_fault_user" "$TMP/err2" || fail "unknown tracepoint: no suggestion in the message"
grep -q "target" "$TMP/err2" || fail "unknown tracepoint: the message does not name the field"
[ -s "$TMP/out2" ] && fail "unknown tracepoint: printed results"

# 3, 4: signals while the step measures
prog_ids() { cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '/^prog_id:/ { print $2 }' | sort -u; }
load_pids() {
	for d in /proc/[0-9]*; do
		cat "$d/cmdline" 2>/dev/null | tr '\0' ' ' | grep -q "$TMP/stload" && echo "${d#/proc/}"
	done
}
echo '{"kind":"tracepoint_stacks","target":"exceptions:page_fault_user","duration_s":20}' \
	>"$TMP/long.json"
for sig in TERM KILL; do
	rm -f "$TMP/err3" "$TMP/out3"
	"$ARGUS" step --only-load --budget 400 "$TMP/long.json" -- "$TMP/stload" --seconds 60 \
		>"$TMP/out3" 2>"$TMP/err3" &
	apid=$!
	i=0
	while ! grep -q "window 2/" "$TMP/err3" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 300 ] && { kill -KILL $apid; cat "$TMP/err3"; fail "SIG$sig: no window 2 in 30 s"; }
		sleep 0.1
	done
	ids=$(prog_ids $apid)
	[ -n "$ids" ] || { kill -KILL $apid; fail "SIG$sig: argus step held no BPF program while measuring"; }
	kill -$sig $apid
	wait $apid
	rc=$?
	case $sig in TERM) want=143 ;; KILL) want=137 ;; esac
	[ $rc -eq $want ] || { cat "$TMP/err3"; fail "SIG$sig: exit status $rc, expected $want"; }
	# the kernel frees programs once their last fd and link are gone
	i=0
	for id in $ids; do
		while bpftool prog show id "$id" >/dev/null 2>&1; do
			i=$((i + 1)); [ $i -gt 50 ] && fail "SIG$sig: BPF program $id of argus step is still loaded"
			sleep 0.1
		done
	done
	if [ $sig = TERM ]; then
		[ -z "$(load_pids)" ] || fail "SIGTERM: the load was left running"
		grep -q "detaching the step" "$TMP/err3" || fail "SIGTERM: not said on stderr"
	else
		# PDEATHSIG ends the load's process (load.h); wait for it
		i=0
		while [ -n "$(load_pids)" ]; do
			i=$((i + 1)); [ $i -gt 50 ] && { kill -CONT $(load_pids); kill -KILL $(load_pids); fail "SIGKILL: the load was left behind"; }
			sleep 0.1
		done
	fi
	echo "ok: SIG$sig"
done
echo "ok: step_run"
