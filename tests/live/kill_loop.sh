#!/bin/sh
# Every exit path ends the whole load (issue 21): each command that runs a
# load (diagnose, model, record -- CMD, step --load, reference, the TUI in
# tmux) is ended by SIGINT, SIGTERM, SIGHUP and SIGKILL while its load runs.
# The load forks, one child leaves the process group (setsid) and one
# ignores SIGTERM.  After each: no process of the load (they carry a tag in
# their environment) and no BPF program argus held is left.  A deadline of
# 15 s for that is a failure bound, not a timing.  KILL_ROUNDS (default 1)
# repeats the loop; KILL_RANDOM=1 kills at a random moment of the first
# 3 s of the load (tests/bench/reliability.sh), else 1.5 s after it began.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd tmux
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
TAG=argus-kill-$$
SOCK=argus-kill-$$
at_exit "tmux -L $SOCK kill-server 2>/dev/null"
cat >"$TMP/load.sh" <<'EOS'
#!/bin/sh
setsid sh -c 'while :; do sleep 0.05; done' &
sh -c 'trap "" TERM; while :; do sleep 0.05; done' &
exec sh -c 'while :; do sleep 0.05; done'
EOS
chmod +x "$TMP/load.sh"
cat >"$TMP/step.json" <<EOS
{"kind": "tracepoint_stacks", "target": "sched:sched_switch", "duration_s": 10, "rationale": "kill loop"}
EOS
tagged() { # PIDs whose environment holds the tag (argus and its guard too)
	for d in /proc/[0-9]*; do
		grep -qz "^ARGUS_KILL_TAG=$TAG\$" "$d/environ" 2>/dev/null && echo "${d#/proc/}"
	done
}
at_exit 'for p in $(tagged); do kill -CONT $p; kill -KILL $p; done 2>/dev/null'
prog_ids() { cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '/^prog_id:/ { print $2 }' | sort -u; }
# the load's processes other than argus and its guard
load_left() { for p in $(tagged); do c=$(cat /proc/$p/comm 2>/dev/null); [ "$c" = sh ] && echo $p; done; }

start() { # $1 command: starts argus, sets apid
	: >"$TMP/err" # not the previous run's log while this one has not opened it
	case $1 in
	diagnose) set -- diagnose --batch --json --pairs 30 --window 1 --no-session --load "$TMP/load.sh" ;;
	model) set -- model --duration 60 -- "$TMP/load.sh" ;;
	record) set -- record --duration 60 --folded -- "$TMP/load.sh" ;;
	step) set -- step --budget 400 "$TMP/step.json" --load "$TMP/load.sh" ;;
	reference) set -- reference save --duration 60 --output "$TMP/ref.json" ;;
	tui)
		tmux -L $SOCK new-session -d -x 120 -y 40 \
			"env ARGUS_KILL_TAG=$TAG $ARGUS --no-session --pairs 30 --load $TMP/load.sh 2>$TMP/err"
		i=0
		until apid=$(pgrep -of -- "^$ARGUS --no-session --pairs 30 --load $TMP/load.sh"); do
			i=$((i + 1)); [ $i -lt 150 ] || return 1; sleep 0.1
		done
		return 0 ;;
	esac
	ARGUS_KILL_TAG=$TAG "$ARGUS" "$@" >/dev/null 2>"$TMP/err" &
	apid=$!
}

fails=0 n=0 r=0
while [ $r -lt "${KILL_ROUNDS:-1}" ]; do
	r=$((r + 1))
	for cmd in diagnose model record step reference tui; do
		for sig in INT TERM HUP KILL; do
			start $cmd || { echo "FAIL: $cmd: argus did not start"; fails=$((fails + 1)); continue; }
			# until the load runs (reference has none: until it measures)
			i=0
			while :; do
				if [ $cmd = reference ]; then
					grep -q "window" "$TMP/err" 2>/dev/null && break
				else
					[ -n "$(load_left)" ] && break
				fi
				i=$((i + 1)); [ $i -lt 300 ] || break; sleep 0.1
			done
			if [ "${KILL_RANDOM:-0}" = 1 ]; then
				sleep "$(awk -v s=$$$n 'BEGIN { srand(s); printf "%.2f", rand() * 3 }')"
			else
				sleep 1.5
			fi
			ids=$(prog_ids $apid)
			kill -$sig $apid 2>/dev/null
			i=0
			while [ -d /proc/$apid ] && [ "$(awk '{ print $3 }' /proc/$apid/stat 2>/dev/null)" != Z ]; do
				i=$((i + 1)); [ $i -lt 150 ] || break; sleep 0.1
			done
			[ $cmd = tui ] || wait $apid 2>/dev/null
			i=0
			while [ -n "$(tagged)" ]; do
				i=$((i + 1)); [ $i -lt 150 ] || break; sleep 0.1
			done
			left=$(tagged | tr '\n' ' ')
			p=0; for id in $ids; do bpftool prog show id "$id" >/dev/null 2>&1 && p=$((p + 1)); done
			n=$((n + 1))
			if [ -n "$left" ] || [ $p -gt 0 ]; then
				fails=$((fails + 1))
				echo "FAIL: $cmd SIG$sig: processes left: ${left:-none}; BPF programs left: $p"
				sed 's/^/    | /' "$TMP/err" | tail -5
				for q in $(tagged); do kill -CONT $q; kill -KILL $q; done 2>/dev/null
			else
				echo "ok: $cmd SIG$sig: nothing left (held $(echo $ids | wc -w) programs)"
			fi
			[ $cmd = tui ] && tmux -L $SOCK kill-server 2>/dev/null
		done
	done
done
echo "kills $n: left something $fails"
[ $fails -eq 0 ] || fail "$fails of $n kills left processes or BPF programs"
