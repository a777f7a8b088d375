#!/bin/sh
# After a SIGKILL: argus killed during a reference window cannot clean up
# (the parent-death signal ends only argus's own child, not the load's
# children).  1: its guard (core/host/load_guard.h) thaws, kills and removes the
# load's cgroup at once.  2: with the guard killed first, the load stays
# frozen in its argus-PID-N cgroup, and the next argus that starts a load
# treats it as the dead one would have on a clean exit: thaws it, ends it
# and removes the cgroup.  Checked: the cgroup was there and frozen (else
# the test saw nothing), and afterwards the cgroup is gone and no process
# of the load is left.
. "$(dirname "$0")/../lib.sh"
need_root
[ -x "$ARGUS" ] || fail "no $ARGUS; run make"
[ -x "$BUILD/scenarios/pagefault" ] || fail "no scenario loads in $BUILD/scenarios; run make"
cp "$BUILD/scenarios/pagefault" "$TMP/stale_pf"
# a shell with a child of its own: the child outlives argus (the parent-death
# signal reaches only argus's own child), frozen with the cgroup
cat >"$TMP/load.sh" <<EOS
#!/bin/sh
"$TMP/stale_pf" --mib 8 &
exec "$TMP/stale_pf" --mib 8
EOS
chmod +x "$TMP/load.sh"
load_pids() {
	for d in /proc/[0-9]*; do
		{ tr '\0' ' ' <"$d/cmdline"; } 2>/dev/null | grep -q "^$TMP/stale_pf" && echo "${d#/proc/}"
	done
}
at_exit 'for p in $(load_pids); do kill -CONT $p; kill -KILL $p; done 2>/dev/null'
run_and_kill() { # $1: kill the guard first (1) or not (0)
# emptied first: the command started with & truncates its log only once it
# runs, and the first run's "window 3/ ref" would end the wait at once
: >"$TMP/err"
"$ARGUS" diagnose --batch --json --pairs 30 --window 1 --no-session --load "$TMP/load.sh" \
	>"$TMP/out" 2>"$TMP/err" &
apid=$!
i=0
until grep -q "window 3/.* ref" "$TMP/err"; do
	i=$((i + 1)); [ $i -lt 300 ] || { kill -KILL $apid; cat "$TMP/err"; fail "no reference window 3 in 30 s"; }
	sleep 0.1
done
guard=$(pgrep -P $apid -x argus-guard)
cg=$(ls -d /sys/fs/cgroup/unified/argus-$apid-* /sys/fs/cgroup/argus-$apid-* 2>/dev/null | head -n 1)
sleep 0.3
[ -n "$cg" ] || { kill -KILL $apid; fail "argus made no cgroup for its load: nothing to check"; }
[ -n "$guard" ] || { kill -KILL $apid; fail "argus $apid has no guard process"; }
[ "$1" = 1 ] && kill -KILL $guard
kill -KILL $apid
wait $apid 2>/dev/null
}

# 1: the guard ends the load (a deadline for a failure, not a timing)
run_and_kill 0
i=0
while [ -d "$cg" ] || [ -n "$(load_pids)" ]; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "the guard left $cg or the load's processes: $(load_pids | tr '\n' ' ')"
	sleep 0.1
done
grep -q "ended without ending its load" "$TMP/err" || fail "the guard did not say what it ended"
echo "ok: the guard of a SIGKILLed argus thawed, ended and removed its load"

# 2: guard and argus killed: the next argus sweeps
run_and_kill 1
[ "$(cat "$cg/cgroup.freeze" 2>/dev/null)" = 1 ] || fail "the load was not frozen at the SIGKILL ($cg/cgroup.freeze: $(cat "$cg/cgroup.freeze"))"
[ -n "$(load_pids)" ] || fail "no load process left by the SIGKILL: nothing to check"
echo "after SIGKILL: $cg frozen, load PIDs $(load_pids | tr '\n' ' ')"
# the next argus that starts a load
"$ARGUS" diagnose --batch --json --pairs 1 --window 0.1 --settle 0 --no-session -- /bin/sleep 2 \
	>/dev/null 2>"$TMP/err2"
grep "stale\|is gone" "$TMP/err2"
[ -d "$cg" ] && fail "the next argus left the dead one's cgroup $cg (freeze $(cat "$cg/cgroup.freeze"))"
left=$(load_pids)
[ -z "$left" ] || fail "the dead argus's load is still there: $left"
echo "ok: the next argus thawed, ended and removed the dead one's load"
