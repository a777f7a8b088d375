#!/bin/sh
# After a SIGKILL: argus killed during a reference window leaves its load
# frozen in its argus-PID-N cgroup (nothing can run at SIGKILL; the
# parent-death signal ends only argus's own child, not the load's children).  The next
# argus that starts a load treats that load as the dead one would have on a
# clean exit: thaws it, ends it and removes the cgroup.  Checked: the
# cgroup was there and frozen (else the test saw nothing), and after the
# next run the cgroup is gone and no process of the load is left.
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
"$ARGUS" diagnose --batch --json --pairs 30 --window 1 --no-session --load "$TMP/load.sh" \
	>"$TMP/out" 2>"$TMP/err" &
apid=$!
i=0
until grep -q "window 3/.* ref" "$TMP/err"; do
	i=$((i + 1)); [ $i -lt 300 ] || { kill -KILL $apid; cat "$TMP/err"; fail "no reference window 3 in 30 s"; }
	sleep 0.1
done
sleep 0.3
cg=$(ls -d /sys/fs/cgroup/unified/argus-$apid-* /sys/fs/cgroup/argus-$apid-* 2>/dev/null | head -n 1)
[ -n "$cg" ] || { kill -KILL $apid; fail "argus made no cgroup for its load: nothing to check"; }
kill -KILL $apid
wait $apid 2>/dev/null
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
