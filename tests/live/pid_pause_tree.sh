#!/bin/sh
# `-p PID --pause` stops and resumes the whole process tree, new children
# included (issue 24 item 6).  PID is a shell started before argus; once
# argus has attached (its first window), the shell forks a page-fault loop:
# a child argus never saw at attach time.  While `argus diagnose -p PID
# --pause` measures, /proc/PID/stat of the shell and of the new child are
# read: in every reference window after the fork both are seen stopped
# ('T') together, in every loaded window both are seen running (not 'T')
# together.  Each look waits for that state until the window after it
# begins (no timing: the log's "window k/n" lines say which window it is).
# When argus has exited, neither is left stopped.
. "$(dirname "$0")/../lib.sh"
need_root
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
need_scenario PF pagefault

cat > "$TMP/shell.sh" <<EOS
while [ ! -e "$TMP/go" ]; do sleep 0.05; done
"$PF" --seconds 300 &
echo \$! > "$TMP/kid.tmp"
mv "$TMP/kid.tmp" "$TMP/kid"
wait
EOS
sh "$TMP/shell.sh" &
P=$!
at_exit "kill -CONT $P 2>/dev/null; pkill -CONT -P $P 2>/dev/null; pkill -P $P 2>/dev/null; kill $P 2>/dev/null"

# state PID: the one-letter state of /proc/PID/stat (after the comm's ')')
state() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1; }
nwin() { grep -c '^argus: window ' "$TMP/err"; }
# waitlog N: until the log shows window N (or argus ended: 1)
waitlog() {
	while [ "$(nwin)" -lt "$1" ]; do
		kill -0 "$A" 2>/dev/null || return 1
		sleep 0.05
	done
	return 0
}

NPAIRS=4
"$ARGUS" diagnose --batch --json --no-session -p "$P" --pause --fixed --pairs $NPAIRS \
	--window 1.5 > "$TMP/out.json" 2> "$TMP/err" &
A=$!
at_exit "kill $A 2>/dev/null"
waitlog 1 || { cat "$TMP/err"; fail "argus ended before its first window"; }
touch "$TMP/go"   # the child is forked after argus attached
# the shell runs again (and forks) in the first loaded window
while [ ! -s "$TMP/kid" ]; do
	kill -0 "$A" 2>/dev/null || { cat "$TMP/err"; fail "argus ended before the shell forked its child"; }
	sleep 0.05
done
K=$(cat "$TMP/kid")
echo "shell $P, its new child $K (forked after argus attached)"
k=$(( $(nwin) + 1 ))
checked_ref=0 checked_load=0
while [ $k -le $((NPAIRS * 2)) ]; do
	waitlog $k || break
	cond=$(grep '^argus: window ' "$TMP/err" | sed -n "${k}p" | awk '{print $4}')
	ok=0
	# until both are in this window's state, or the next window begins
	while [ "$(nwin)" -le $k ] && kill -0 "$A" 2>/dev/null; do
		s=$(state "$P") c=$(state "$K")
		if [ "$cond" = ref ]; then
			[ "$s" = T ] && [ "$c" = T ] && { ok=1; break; }
		else
			[ "$s" != T ] && [ "$c" != T ] && [ -n "$s" ] && [ -n "$c" ] && { ok=1; break; }
		fi
		sleep 0.02
	done
	echo "window $k ($cond): shell $s, child $c"
	[ $ok -eq 1 ] || { cat "$TMP/err"; fail "window $k ($cond): shell '$s', child '$c': not both $([ "$cond" = ref ] && echo stopped || echo running)"; }
	[ "$cond" = ref ] && checked_ref=$((checked_ref + 1)) || checked_load=$((checked_load + 1))
	k=$((k + 1))
done
wait $A
rc=$?
cat "$TMP/err"
[ $rc -eq 0 ] || fail "argus diagnose exited $rc"
[ $checked_ref -ge 1 ] && [ $checked_load -ge 1 ] ||
	fail "only $checked_ref reference and $checked_load loaded windows were seen after the fork"
# argus has exited: nothing of the tree is left stopped
s=$(state "$P") c=$(state "$K")
[ "$s" != T ] || fail "the shell is left stopped after argus exited"
[ "$c" != T ] || fail "the new child is left stopped after argus exited"
echo "after argus: shell $s, child $c; $checked_ref reference and $checked_load loaded windows checked"
echo ok
