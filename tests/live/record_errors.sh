#!/bin/sh
# argus record's errors: a command that cannot run (127), a dead PID, no
# privileges (EXIT_PRIV), and nothing left loaded after SIGTERM or SIGKILL.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd bpftool
need_cmd setpriv
[ -x "$BUILD/scenarios/pagefault" ] || fail "missing $BUILD/scenarios/pagefault (run make)"
# a copy of its own: pgrep finds this test's load, not another run's, and
# whatever ends the test (a failure too) kills what is left of it
LOAD="$TMP/recerr_pf"
cp "$BUILD/scenarios/pagefault" "$LOAD"
at_exit 'pkill -KILL -f "^$LOAD" 2>/dev/null'
at_exit '[ -n "$pid" ] && kill -KILL $pid 2>/dev/null'
pid=

"$ARGUS" record --duration 2 --json -- /nonexistent/argus-no-such-cmd >"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/err"
[ $rc = 127 ] || fail "missing command: exit $rc, want 127"
grep -q "argus: cannot run '/nonexistent/argus-no-such-cmd': No such file or directory" "$TMP/err" ||
	fail "missing command: wrong message"
[ -s "$TMP/out" ] && fail "missing command: printed a tree anyway"

# a PID that surely is dead: a reaped child's
sh -c 'exit 0' & dead=$!; wait $dead
if ! kill -0 "$dead" 2>/dev/null; then
	"$ARGUS" record --duration 1 -p "$dead" --json >"$TMP/out" 2>"$TMP/err"
	rc=$?
	cat "$TMP/err"
	[ $rc = 1 ] || fail "dead pid: exit $rc, want 1"
	grep -q "argus: no process with PID $dead" "$TMP/err" || fail "dead pid: wrong message"
fi

setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$ARGUS" record --duration 1 --json >"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/err"
[ $rc = 3 ] || fail "unprivileged: exit $rc, want 3 (EXIT_PRIV)"
grep -q "needs root, or CAP_BPF and CAP_PERFMON" "$TMP/err" || fail "unprivileged: wrong message"

"$ARGUS" record --duration 1 --bogus-option >/dev/null 2>&1
rc=$?
[ $rc = 2 ] || fail "bad option: exit $rc, want 2"

# Other argus runs may share this kernel, so follow this run's own programs:
# their ids, from the fdinfo of its BPF fds.  Programs are freed
# asynchronously after their fds close: wait for it (bounded), then assert.
prog_ids_of() { # pid
	grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u
}
gone() { # ids...
	i=0
	while [ $i -lt 50 ]; do
		left=""
		for id in "$@"; do
			bpftool prog show id "$id" >/dev/null 2>&1 && left="$left $id"
		done
		[ -z "$left" ] && return 0
		sleep 0.2; i=$((i + 1))
	done
	for id in $left; do bpftool prog show id "$id"; done
	return 1
}

for sig in TERM KILL; do
	"$ARGUS" record --folded -- "$LOAD" >"$TMP/out.$sig" 2>"$TMP/err.$sig" &
	pid=$!
	i=0 # wait until its programs are attached
	while :; do
		ids=$(prog_ids_of $pid)
		names=$(for id in $ids; do bpftool prog show id "$id" 2>/dev/null; done)
		# the sampler and the fork follower are attached one after the
		# other: wait for both, or a snapshot between them looks like a
		# missing fork program
		case $names in *"name argus_profile"*"name argus_fork"* | \
			*"name argus_fork"*"name argus_profile"*) break ;; esac
		sleep 0.1; i=$((i + 1))
		if [ $i -ge 100 ]; then
			kill -KILL $pid 2>/dev/null; wait $pid
			case $names in
			*"name argus_profile"*) fail "no fork-following program loaded" ;;
			*) fail "argus record never loaded its program" ;;
			esac
		fi
	done
	echo "SIG$sig: argus $pid holds programs" $ids
	sleep 1
	kill -$sig $pid
	wait $pid
	rc=$?
	cat "$TMP/err.$sig"
	if [ $sig = TERM ]; then
		[ $rc = 0 ] || fail "SIGTERM: exit $rc, want 0 (clean stop)"
		grep -q 'stopped by SIGTERM' "$TMP/err.$sig" || fail "SIGTERM: no summary"
		[ -s "$TMP/out.$sig" ] || fail "SIGTERM: printed no tree"
	fi
	gone $ids || fail "argus programs still loaded after SIG$sig"
	# the spawned load must be gone too (SIGKILL: via PR_SET_PDEATHSIG)
	i=0
	while pgrep -f "^$LOAD\$" >/dev/null; do
		sleep 0.2; i=$((i + 1))
		[ $i -lt 50 ] || fail "the load survived SIG$sig of argus"
	done
done
echo "ok"
