#!/bin/sh
# probes — 'argus probes' on this kernel: the kinds agree with the attach
# mechanisms it found (function_latency unavailable with the kernel's reason
# where fentry and kprobes fail, as on the development machines), tracepoints
# are enumerated without a tracefs mount, the name lists used for completion
# work, nothing stays loaded or mounted, and a non-root run explains itself.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd jq
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"

mounts_before=$(grep -c ' tracefs ' /proc/mounts)
"$ARGUS" probes --json >"$TMP/probes.json" || fail "argus probes --json exited $?"
jq -e . "$TMP/probes.json" >/dev/null || fail "argus probes --json printed no valid JSON"
cat "$TMP/probes.json"

kind() { jq -r --arg k "$1" ".kinds[] | select(.kind == \$k) | .$2" "$TMP/probes.json"; }
mech() { jq -r --arg m "$1" ".mechanisms[] | select(.mechanism == \$m) | .works" "$TMP/probes.json"; }

[ "$(jq '.kinds | length' "$TMP/probes.json")" = 6 ] || fail "expected 6 kinds"
[ "$(kind tracepoint_stacks available)" = true ] ||
	fail "tracepoint_stacks unavailable: $(kind tracepoint_stacks reason)"
[ "$(kind sample available)" = true ] || fail "sample unavailable: $(kind sample reason)"
[ "$(mech raw_tp)" = true ] || fail "raw_tp does not work here"

if [ "$(mech fentry)" = false ] && [ "$(mech kprobe)" = false ] && [ "$(mech kprobe.multi)" = false ]; then
	[ "$(kind function_latency available)" = false ] || fail "function_latency offered without fentry or kprobes"
	kind function_latency reason | grep -Eq 'EPERM|no kprobes' ||
		fail "function_latency reason does not name EPERM or missing kprobes: $(kind function_latency reason)"
	echo "function_latency: $(kind function_latency reason)"
else
	[ "$(kind function_latency available)" = true ] || fail "function_latency unavailable though a mechanism works"
fi

ntp=$(jq '.tracepoints.count' "$TMP/probes.json")
nraw=$(jq '.tracepoints.attachable' "$TMP/probes.json")
nfn=$(jq '.functions.count' "$TMP/probes.json")
echo "tracepoints $ntp (attachable $nraw), functions $nfn"
[ "$ntp" -gt 1000 ] || fail "only $ntp tracepoints enumerated"
[ "$nraw" -gt 1000 ] || fail "only $nraw tracepoints attachable by name"
[ "$nfn" -gt 10000 ] || fail "only $nfn functions enumerated"

# completion lists
"$ARGUS" probes --list-tracepoints 'page_fault_u*' >"$TMP/tp" || fail "--list-tracepoints failed"
grep -Eq '^(exceptions|\?):page_fault_user$' "$TMP/tp" || fail "page_fault_user not listed: $(cat "$TMP/tp")"
"$ARGUS" probes --list-functions vfs_rea >"$TMP/fn" || fail "--list-functions failed"
grep -qx vfs_read "$TMP/fn" || fail "vfs_read not listed"
"$ARGUS" probes --list-functions 'no_such_function_*' >/dev/null 2>&1 && fail "an empty list should exit non-zero"
"$ARGUS" probes --list-functions >/dev/null 2>&1; [ $? = 2 ] || fail "--list-functions without a pattern should be a usage error"

# nothing left behind
[ "$(grep -c ' tracefs ' /proc/mounts)" = "$mounts_before" ] || fail "tracefs mount count changed"
if command -v bpftool >/dev/null; then
	# programs are freed asynchronously after their fds close: bounded wait
	i=0
	while bpftool prog show | grep -q 'name argus_caps'; do
		sleep 0.1; i=$((i + 1))
		[ $i -lt 50 ] || fail "an argus_caps program is still loaded"
	done
fi

# as non-root: a clear message, no crash
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ARGUS" probes >"$TMP/nr.out" 2>"$TMP/nr.err"
	rc=$?
	cat "$TMP/nr.out" "$TMP/nr.err"
	[ $rc = 0 ] || fail "non-root argus probes exited $rc"
	grep -q "not root" "$TMP/nr.err" || fail "non-root run does not say it is not root"
	grep -q "could not probe: not root" "$TMP/nr.out" || fail "non-root kinds do not say why"
	grep -q "^tracepoints  [0-9]" "$TMP/nr.out" || fail "non-root run lists no tracepoints"
fi
echo "probes: ok"
