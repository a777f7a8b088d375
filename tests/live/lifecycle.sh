#!/bin/sh
# Lifecycle: after Ctrl-C (SIGINT), SIGTERM and an internal error in the
# middle of `argus diagnose`, no process of a load argus started is left
# running or stopped, no argus cgroup is left, and no argus BPF program stays
# loaded; a -p --pause load is resumed and left running.  (q in the TUI is
# tested with the TUI.)  The internal error comes from the documented test
# hook ARGUS_TEST_FAIL_AFTER=window:N (core/measure/measure.h).  The runs are
# --fixed: a long measurement to interrupt (sequential stopping would end a
# strong load's after 2 or 3 pairs).
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd bpftool
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
[ -x "$BUILD/scenarios/pagefault" ] || skip "no scenario loads; run make"

# The load: a shell that starts two copies of a page-fault loop, all
# recognisable by the path of the copy in their command line.
cp "$BUILD/scenarios/pagefault" "$TMP/lcload"
cat > "$TMP/load.sh" <<EOS
#!/bin/sh
"$TMP/lcload" --mib 8 &
exec "$TMP/lcload" --mib 8
EOS
chmod +x "$TMP/load.sh"

load_pids() { # PIDs whose command line mentions the load's copy
	for d in /proc/[0-9]*; do
		cat "$d/cmdline" 2>/dev/null | tr '\0' ' ' | grep -q "$TMP/lcload" && echo "${d#/proc/}"
	done
}

state_of() { awk '{ sub(/.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null; }

# The log of the previous run is emptied before the next starts: a command
# started with & opens (and truncates) its redirections only once it runs,
# so waiting on the old log could see the previous run's "window N/" and
# look at a PID that has not yet exec'd argus.
fresh_log() { : >"$TMP/err"; : >"$TMP/out"; }

wait_for_line() { # file pattern: up to 30 s
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 300 ] && return 1
		sleep 0.1
	done
}

check_clean() { # what argus-pid
	left=$(load_pids)
	if [ -n "$left" ]; then
		for p in $left; do echo "left: PID $p state $(state_of "$p")"; done
		kill -CONT $left 2>/dev/null; kill -KILL $left 2>/dev/null
		fail "$1: processes of the load were left behind"
	fi
	ls -d /sys/fs/cgroup/unified/argus-"$2"-* /sys/fs/cgroup/argus-"$2"-* 2>/dev/null | grep . &&
		fail "$1: an argus cgroup was left behind"
	[ -n "$ids" ] || fail "$1: argus held no BPF program while it ran"
	for id in $ids; do
		bpftool prog show id "$id" >/dev/null 2>&1 &&
			fail "$1: BPF program $id of argus is still loaded"
	done
	echo "ok: $1"
}

prog_ids() { # BPF programs held by PID $1 (from its fds)
	cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '/^prog_id:/ { print $2 }' | sort -u | tr '\n' ' '
}

# 1, 2: a signal while the load is paused (window 3 is a reference window,
# after the load ran in window 2).
for sig in INT TERM; do
	fresh_log
	"$ARGUS" diagnose --batch --json --fixed --pairs 20 --window 0.5 --load "$TMP/load.sh" \
		>"$TMP/out" 2>"$TMP/err" &
	apid=$!
	wait_for_line "$TMP/err" "window 2/" || { kill -KILL $apid; fail "SIG$sig: no window 2 in 30 s"; }
	# Both processes of the load exist (they run in loaded windows only) ...
	i=0
	while [ "$(load_pids | wc -l)" -lt 2 ]; do
		i=$((i + 1)); [ $i -gt 300 ] && break
		sleep 0.1
	done
	# ... and a reference window (the load paused) has begun since.
	seen=$(grep -c "window" "$TMP/err")
	i=0
	while [ "$(grep "window" "$TMP/err" | tail -n +$((seen + 1)) | grep -c " ref ")" -eq 0 ]; do
		i=$((i + 1)); [ $i -gt 300 ] && break
		sleep 0.1
	done
	ids=$(prog_ids $apid)
	n=$(load_pids | wc -l)
	[ "$n" -ge 2 ] || { cat "$TMP/err"; fail "SIG$sig: expected the load's processes, found $n"; }
	kill -$sig $apid
	wait $apid
	rc=$?
	cat "$TMP/err"
	case $sig in INT) want=130 ;; TERM) want=143 ;; esac
	[ $rc -eq $want ] || fail "SIG$sig: exit status $rc, expected $want"
	[ -s "$TMP/out" ] && fail "SIG$sig: printed a verdict after being interrupted"
	check_clean "SIG$sig during a reference window" $apid
done

# 3: an internal error after window 5 (a reference window: the load paused).
# The programs are read as soon as window 1 starts (they are attached before
# it); window 5, the error's, is 2 s later, so a busy machine does not let
# argus exit before the test has looked.
fresh_log
ARGUS_TEST_FAIL_AFTER=window:5 "$ARGUS" diagnose --batch --json --fixed --pairs 20 --window 0.5 \
	--load "$TMP/load.sh" >"$TMP/out" 2>"$TMP/err" &
apid=$!
wait_for_line "$TMP/err" "window 1/" || { kill -KILL $apid; fail "internal error: no window 1 in 30 s"; }
ids=$(prog_ids $apid)
wait $apid
rc=$?
cat "$TMP/err"
[ $rc -eq 1 ] || fail "internal error: exit status $rc, expected 1"
grep -q "test hook ARGUS_TEST_FAIL_AFTER" "$TMP/err" || fail "internal error: the hook did not fire"
check_clean "internal error while the load was paused" $apid

# 4: -p PID --pause: argus pauses a process it did not start; on SIGTERM it
# resumes it and leaves it running.
"$TMP/lcload" --mib 8 >/dev/null &
ext=$!
fresh_log
"$ARGUS" diagnose --batch --json --fixed --pairs 20 --window 0.5 -p $ext --pause \
	>"$TMP/out" 2>"$TMP/err" &
apid=$!
wait_for_line "$TMP/err" "window 3/" || { kill -KILL $apid $ext; fail "-p: no window 3 in 30 s"; }
sleep 0.2
ids=$(prog_ids $apid)
kill -TERM $apid
wait $apid
cat "$TMP/err"
grep -q "kill -CONT $ext" "$TMP/err" || { kill -KILL $ext; fail "-p --pause: the kill -CONT hint was not logged"; }
st=$(state_of $ext)
[ -n "$st" ] || fail "-p --pause: argus ended a process it did not start"
[ "$st" != T ] || { kill -CONT $ext; kill $ext; fail "-p --pause: PID $ext left stopped"; }
kill $ext; wait $ext 2>/dev/null
check_clean "-p --pause and SIGTERM" $apid
exit 0
