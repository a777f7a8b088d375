#!/bin/sh
# kworkers named by the workqueue tracepoint in a replay (issue 15), over a
# crafted session written here: kworker/0:1 [301] has samples, none of them
# in a work function (its stacks name nothing), and the window events'
# "kwork" field counts it running vmstat_update 160 times and a function
# whose name holds terminal escapes 7 times; kworker/1:2 [300] has samples
# in wb_workfn and was counted running refresh_vm_stats 900 times.  The
# rows: 301 by the tracepoint (vmstat_update, +1 more), 300 by its stacks
# (wb_workfn: they take precedence, +1 more); x on each lists the
# tracepoint's functions with their executions, the escapes shown escaped.
# The same session without its kwork fields (as written before the
# tracepoint ran): 301 keeps [kworker], x says nothing was counted.  The
# JSON export carries the executions.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"
need_cmd python3
S="$TMP/kw.jsonl"
OLD="$TMP/kw-old.jsonl"
python3 - "$S" "$OLD" <<'EOP' || fail "could not write the session"
import json, sys
K = ["ret_from_fork_asm", "ret_from_fork", "kthread", "worker_thread"]
hdr = {"type": "header", "format": "argus-session", "version": 1, "argus": "0.1.0",
       "host": "fixture", "kernel": "6.18.0", "created": "2026-12-01T12:00:00Z",
       "caps": {}, "options": {"freq_hz": 99, "load": "./load"}}
procs = [{"tgid": 100, "comm": "load", "cmdline": "./load", "exe": "/tmp/load"},
         {"tgid": 300, "comm": "kworker/1:2", "kthread": True, "role": "kworker"},
         {"tgid": 301, "comm": "kworker/0:1", "kthread": True, "role": "kworker"}]
evil = "evil\x1b[2J\x07_fn"
wins = []
for i, cond in enumerate(["ref", "load", "ref", "load"]):
    k = 1 if cond == "load" else 0
    stacks = [
        [["entry_SYSCALL_64", "do_syscall_64", "ksys_write", "vfs_write"], 100, "load", 5 + 40 * k],
        [K + ["process_one_work", "wb_workfn", "wb_do_writeback"], 300, "kworker/1:2", 2 + 20 * k],
        [K + ["process_one_work", "_raw_spin_unlock_irq"], 300, "kworker/1:2", 1 + 3 * k],
        [K + ["schedule", "__schedule", "finish_task_switch"], 301, "kworker/0:1", 1 + 5 * k],
        [K + ["process_one_work", "_raw_spin_unlock_irqrestore"], 301, "kworker/0:1", 2 * k],
        [["secondary_startup_64", "cpu_startup_entry", "do_idle", "default_idle_call"], 0,
         "swapper/0", 900 - 60 * k]]
    kwork = [{"pid": 301, "function": "vmstat_update", "executions": 20 + 40 * k},
             {"pid": 300, "function": "wb_workfn", "executions": 1 + k},
             {"pid": 300, "function": "refresh_vm_stats", "executions": 450 * k}]
    if i == 3:
        kwork.append({"pid": 301, "function": evil, "executions": 7})
    e = {"type": "window", "t": 1.0 + i, "step": 0, "index": i, "cond": cond,
         "start": float(i), "secs": 1.0, "samples": sum(s[3] for s in stacks), "lost": 0,
         "stacks": stacks, "kwork": kwork}
    if i == 0:
        e["procs"] = procs
    wins.append(e)
with open(sys.argv[1], "w") as f:
    for e in [hdr] + wins:
        f.write(json.dumps(e) + "\n")
with open(sys.argv[2], "w") as f:
    for e in [hdr] + wins:
        e = dict(e)
        e.pop("kwork", None)
        f.write(json.dumps(e) + "\n")
EOP
start 120 40 LANG=C.UTF-8 TERM=xterm-256color HOME="$TMP" -- replay "$S" --at end
wait_for "replay event"
keys p
wait_for "kworker/0:1 [301]"
screen | grep -F 'kworker/0:1 [301]' | grep -qF '· vmstat_update +1 more' ||
	{ screen; fail "kworker/0:1's row is not named by the tracepoint: $(screen | grep -F kworker/0:1)"; }
screen | grep -F 'kworker/1:2 [300]' | grep -qF '· wb_workfn +1 more' ||
	{ screen; fail "kworker/1:2's row is not named by its stacks: $(screen | grep -F kworker/1:2)"; }
keys / k w o r k e r / 0 Enter
keys x
wait_for "ran (workqueue tracepoint)"
screen | grep -qF 'work functions: none named in its sampled stacks' ||
	{ screen; fail "x on kworker/0:1 does not say its stacks name nothing"; }
screen | grep -qF 'ran (workqueue tracepoint): vmstat_update ×160, evil\x1b[2J\x07_fn ×7' ||
	{ screen; fail "x on kworker/0:1 lacks the tracepoint's functions (escaped)"; }
keys Escape
wait_gone "ran (workqueue tracepoint)"
keys / k w o r k e r / 1 Enter
keys x
wait_for "ran (workqueue tracepoint)"
screen | grep -F 'wb_workfn' | grep -q '%' || { screen; fail "x on kworker/1:2 lacks wb_workfn's share"; }
screen | grep -qF 'ran (workqueue tracepoint): refresh_vm_stats ×900, wb_workfn ×6' ||
	{ screen; fail "x on kworker/1:2 lacks the tracepoint's functions"; }
keys Escape
keys q
expect_sane_exit
# without the field: the stacks' names only, and x says so
start 120 40 LANG=C.UTF-8 TERM=xterm-256color HOME="$TMP" -- replay "$OLD" --at end
wait_for "replay event"
keys p
wait_for "kworker/0:1 [301]"
screen | grep -F 'kworker/0:1 [301]' | grep -qF '[kworker]' ||
	{ screen; fail "kworker/0:1 of the old session is not [kworker]: $(screen | grep -F kworker/0:1)"; }
screen | grep -F 'kworker/1:2 [300]' | grep -qF '· wb_workfn' ||
	{ screen; fail "kworker/1:2 of the old session lost its stacks' name"; }
screen | grep -F 'kworker/1:2 [300]' | grep -qF 'more' &&
	{ screen; fail "kworker/1:2 of the old session has more than its stacks name"; }
keys / k w o r k e r / 0 Enter
keys x
wait_for "ran (workqueue tracepoint)"
screen | grep -qF 'ran (workqueue tracepoint): not counted in these windows' ||
	{ screen; fail "x on the old session's kworker does not say nothing was counted"; }
keys Escape
keys q
expect_sane_exit
# the export: executions per function, as the session sums them
"$ARGUS" export "$S" --format json >"$TMP/x.json" || fail "export failed"
python3 - "$TMP/x.json" <<'EOP' || fail "the export's executions are wrong"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["workqueue_traced"] is True
p = {x["tgid"]: x for x in d["processes"]}
w = {x["function"]: x for x in p[301]["work"]}
assert [x["function"] for x in p[301]["work"]] == ["vmstat_update", r"evil\x1b[2J\x07_fn"], p[301]
assert w["vmstat_update"]["executions"] == 160 and w["vmstat_update"]["samples"] == 0, w
assert w["vmstat_update"]["ref_executions"] == 40 and w["vmstat_update"]["load_executions"] == 120, w
w = {x["function"]: x for x in p[300]["work"]}
assert [x["function"] for x in p[300]["work"]] == ["wb_workfn", "refresh_vm_stats"], p[300]
assert w["wb_workfn"]["executions"] == 6 and w["wb_workfn"]["samples"] == 48, w
assert w["refresh_vm_stats"]["load_executions"] == 900, w
assert "work" not in p[100]
EOP
"$ARGUS" export "$OLD" --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["workqueue_traced"] is False
p = {x["tgid"]: x for x in d["processes"]}
assert p[301]["work"] == [], p[301]
assert all(x["executions"] == 0 for x in p[300]["work"]), p[300]
' || fail "the old session's export is wrong"
echo ok
