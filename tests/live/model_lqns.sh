#!/bin/sh
# model_lqns — the standard solver reads what `argus model` writes.
# LQNS (Carleton's layered queueing solver) is not in Debian, so this runs
# only where it is installed: on PATH as lqns, or ARGUS_LQNS=/path/to/lqns.
# It writes the tier3 model as lqn and lqnx, has lqns solve each, and checks
# that lqns saw the same tasks, the reference task with its clients and think
# time, and the calls, and that it solved the model (a positive throughput
# for the reference task).
. "$(dirname "$0")/../lib.sh"
need_root
LQNS=${ARGUS_LQNS:-$(command -v lqns 2>/dev/null)}
[ -n "$LQNS" ] && [ -x "$LQNS" ] ||
	skip "lqns is not installed (not in Debian; build it from" \
		"github.com/layeredqueuing/V5: autogen.sh, configure, make -C lqns;" \
		"then ARGUS_LQNS=.../lqns/lqns)"
T3="$BUILD/scenarios/tier3"
[ -x "$T3" ] || fail "missing $T3 (run make)"

for fmt in lqn lqnx; do
	"$ARGUS" model --duration 4 --format $fmt -- "$T3" --clients 2 --seconds 6 \
		>"$TMP/m.$fmt" 2>"$TMP/err.$fmt" || { cat "$TMP/err.$fmt"; fail "--format $fmt failed"; }
	(cd "$TMP" && "$LQNS" "m.$fmt") >"$TMP/lqns.$fmt" 2>&1
	rc=$?
	cat "$TMP/lqns.$fmt"
	[ $rc = 0 ] || fail "lqns rejected the $fmt model (exit $rc)"
	[ -s "$TMP/m.out" ] || fail "lqns wrote no results for $fmt"
	python3 - "$TMP/m.out" "$fmt" <<'PY' || fail "lqns's reading of the $fmt model is wrong (above)"
import re, sys
out = open(sys.argv[1]).read()
def section(title):
    i = out.find(title)
    if i < 0:
        print("no section:", title); sys.exit(1)
    rows = []
    for line in out[i:].splitlines()[2:]:
        if not line.strip():
            if rows: break
            continue
        rows.append(line.split())
    return rows
def need(c, why):
    if not c:
        print("wrong (%s): %s" % (sys.argv[2], why)); sys.exit(1)
tasks = {r[0]: r for r in section("Task information:")[1:]}
need(set(tasks) == {"t3_client", "t3_front", "t3_back", "t3_back_lock", "disk"},
     "lqns's tasks are %s" % sorted(tasks))
need(tasks["t3_client"][1] == "Ref(2)", "the reference task with 2 clients: %s" % tasks["t3_client"])
need(tasks["t3_back_lock"][1] == "Uni", "the lock is a single server: %s" % tasks["t3_back_lock"])
calls = section("Mean number of rendezvous from entry to entry:")[1:]
pairs = set()
for r in calls:
    src, dst = (r[1], r[2]) if len(r) == 4 else (r[0], r[1])
    pairs.add((src, dst))
need(pairs == {("t3_client_e", "t3_front_e"), ("t3_front_e", "t3_back_e"),
               ("t3_back_e", "t3_back_lock_e"), ("t3_back_e", "disk_e")},
     "lqns's calls are %s" % sorted(pairs))
x = [r for r in section("Throughputs and utilizations per phase:")[1:] if r[0] == "t3_client"]
need(x and float(x[0][2]) > 0, "a throughput for the reference task")
print("lqns (%s): client throughput %s/s" % (sys.argv[2], x[0][2]))
PY
	rm -f "$TMP/m.out" "$TMP/m.p"
done
echo "ok"
