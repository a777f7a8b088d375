#!/bin/sh
# The process split (p, in a replay as live) at 80x24 and 160x45, over a crafted
# session (tests/tui/data/procs-session.jsonl: three cc1, one make, a
# background job): a command with several processes gets a group row
# "cc1 ×3" before its PID rows, whose load/s is the sum of theirs and which
# opens like any node; a single-PID command has no group; process rows show
# who the process is (command line, systemd unit) from the session, and x
# the whole identity.  A kworker's row names the work function it ran most
# (from its stacks: the frame process_one_work called) and how many more, x
# all of them with their share of its samples; a function name holding
# terminal escapes is shown escaped.  The JSON export has the identity of
# every process, and a kworker's work functions with their samples.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"
SRC="$ROOT/tests/tui/data/procs-session.jsonl"
[ -f "$SRC" ] || skip "no $SRC"
need_cmd python3
# kworker/1:2's work functions with their share of its samples, from the
# file itself: "function share" lines, most samples first
shares=$(python3 - "$SRC" <<'EOP'
import json, sys
work, total = {}, 0
for line in open(sys.argv[1]):
    e = json.loads(line)
    for frames, tgid, comm, n in e.get("stacks", []):
        if tgid != 300:
            continue
        total += n
        i = frames.index("process_one_work")
        if not frames[i + 1].startswith("_raw_spin"):
            work[frames[i + 1]] = work.get(frames[i + 1], 0) + n
for f, n in sorted(work.items(), key=lambda x: -x[1]):
    print(f, "%.1f%%" % (100.0 * n / total))
print("(no", "%.1f%%" % (100.0 * (total - sum(work.values())) / total))
EOP
) || fail "could not read $SRC"
[ "$(echo "$shares" | head -1 | cut -d' ' -f1)" = wb_workfn ] || fail "the fixture changed: $shares"
for size in "80 24" "160 45"; do
	set -- $size
	start "$1" "$2" LANG=C.UTF-8 TERM=xterm-256color HOME="$TMP" -- replay "$SRC" --at end
	wait_for "replay event 12/12"
	keys p
	wait_for "cc1 ×3"
	# the diagnosed set came with the session: the background is displaced
	# work (the idle task's fall is no one's), by process as by subsystem
	head=$(screen | sed -n 1p)
	echo "$head" | grep -q 'displaced: bgjob' || fail "$size: header lacks the displaced background: '$head'"
	echo "$head" | grep -q 'displaced:.*swapper' && fail "$size: the idle task called displaced: '$head'"
	screen | grep -q 'make \[100\]' || fail "$size: make [100] not a row of its own"
	screen | grep -q 'make ×' && fail "$size: a single-PID command got a group"
	# identity on the process rows, as the session recorded it
	screen | grep 'make \[100\]' | grep -qF 'make -j3 all' ||
		fail "$size: make's row lacks its command line"
	screen | grep 'bgjob \[200\]' | grep -qF 'bgjob.service' ||
		fail "$size: bgjob's row lacks its unit"
	# a kworker by the work function it ran most, and how many more
	screen | grep -F 'kworker/1:2 [300]' | grep -qF '· wb_workfn +2 more' ||
		fail "$size: kworker/1:2's row lacks its work function: $(screen | grep -F kworker/1:2)"
	# a name with terminal escapes, escaped (the pane would be cleared else)
	screen | grep -F 'kworker/0:1 [301]' | grep -qF '· evil\x1b' ||
		fail "$size: kworker/0:1's work function not shown escaped: $(screen | grep -F kworker/0:1)"
	# open the group: its PIDs come right after it, one level deeper
	keys j
	keys l
	wait_for "cc1 [101]"
	g=$(screen | grep -n 'cc1 ×3' | head -1 | cut -d: -f1)
	for pid in 101 102 103; do
		l=$(screen | grep -n "cc1 \[$pid\]" | head -1 | cut -d: -f1)
		[ -n "$l" ] || fail "$size: no row for cc1 [$pid]"
		[ "$l" -gt "$g" ] || fail "$size: cc1 [$pid] (row $l) before its group (row $g)"
		[ "$l" -le $((g + 3)) ] || fail "$size: cc1 [$pid] (row $l) not right under its group (row $g)"
		screen | sed -n "${l}p" | grep -q '│ [├└]─' || fail "$size: cc1 [$pid] not under the group"
	done
	# the group's load/s is the sum of its processes' (the same windows):
	# columns from the right, the significance mark dropped: d% d/s load/s
	gl=$(screen | grep 'cc1 ×3' | sed 's/●//' | awk '{print $(NF-2)}')
	sum=$(screen | grep 'cc1 \[10[123]\]' | sed 's/●//' | awk '{s += $(NF-2)} END {print s}')
	awk -v a="$gl" -v b="$sum" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d < 0.3) }' ||
		fail "$size: group load/s $gl is not the sum of its processes' ($sum)"
	# x on a process (found by search): its whole identity
	keys / b g j o b Enter
	keys x
	wait_for "command line: /opt/bg/bgjob --scan /srv"
	screen | grep -qF 'systemd unit: bgjob.service' || fail "$size: x lacks the unit"
	keys Escape
	wait_gone "command line:"
	# x on the kworker: every work function with its share of its samples
	keys / k w o r k e r / 1 Enter
	keys x
	wait_for "work functions it ran"
	missing=$(echo "$shares" | while read -r f pct; do
		screen | grep -F -- "$f" | grep -qF -- "$pct" || echo "'$f ... $pct'"
	done)
	[ -z "$missing" ] || { screen; fail "$size: x on kworker/1:2 lacks $missing"; }
	keys Escape
	wait_gone "work functions it ran"
	keys q
	expect_sane_exit
done
# the JSON export names every process
out=$("$ARGUS" export "$SRC" --format json) || fail "export failed"
printf "%s\n" "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
p = {x["tgid"]: x for x in d["processes"]}
assert p[101]["identity"]["cmdline"].endswith("cc1 -quiet a.c"), p[101]
assert p[200]["identity"]["unit"] == "bgjob.service", p[200]
assert p[200]["diagnosed"] is False and p[100]["diagnosed"] is True
assert p[200]["identity"]["exe"] == "/opt/bg/bgjob"
# a kworker: its work functions, most samples first, with their samples as
# the session has them; no other process has a work array
work = {"ref": {}, "load": {}}
for line in open(sys.argv[1]):
    e = json.loads(line)
    for frames, tgid, comm, n in e.get("stacks", []):
        f = frames[frames.index("process_one_work") + 1] if tgid == 300 else ""
        if f and not f.startswith("_raw_spin"):
            c = work[e["cond"]]
            c[f] = c.get(f, 0) + n
w = p[300]["work"]
assert [x["function"] for x in w] == ["wb_workfn", "vmstat_update", "blk_mq_run_work_fn"], w
for x in w:
    assert x["ref_samples"] == work["ref"][x["function"]], x
    assert x["load_samples"] == work["load"][x["function"]], x
    assert x["samples"] == x["ref_samples"] + x["load_samples"], x
# as the session reader keeps it: escaped (core/base/sanitize.h)
assert p[301]["work"][0]["function"] == r"evil\x1b[2J\x1b]0;owned\x07_workfn", p[301]
assert "work" not in p[101] and "work" not in p[200], (p[101], p[200])
' "$SRC" || fail "the JSON export lacks the identities or the kworkers' work"
echo ok
