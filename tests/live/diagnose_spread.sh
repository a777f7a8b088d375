#!/bin/sh
# A load whose increase spreads over several branches (issue 11): a fork /
# exec / wait loop.  The verdict names its branches, each descended to its
# own depth: execve (bprm_execve) and clone (copy_process) at least, with
# their shares; path is the largest branch.  The old descent stopped at
# do_syscall_64 or followed execve alone.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd jq
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
[ -x "$BUILD/scenarios/forkexec" ] || skip "no scenario loads; run make"

"$ARGUS" diagnose --batch --json --load "$BUILD/scenarios/forkexec" >"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/err"
[ $rc -eq 0 ] || fail "diagnose exited $rc"
jq -c '{summary: .verdict.summary, branches: [.verdict.branches[]? | {leaf, share}]}' "$TMP/out"
jq -e '.verdict.found' "$TMP/out" >/dev/null || fail "no verdict: $(jq -r .verdict.summary "$TMP/out")"
jq -e '(.verdict.branches // []) | length >= 2' "$TMP/out" >/dev/null ||
	fail "the spread increase is given as one path, not as branches"
for f in bprm_execve copy_process; do
	jq -e --arg f "$f" '[.verdict.branches[].path | index($f)] | any' "$TMP/out" >/dev/null ||
		fail "no branch through $f"
done
# path is the largest branch (or, when the branches converge on one
# function, issue 23, the path through it: about one run in ten here);
# every branch has a share and ends below its entry
jq -e '.verdict.path == .verdict.branches[0].path or
	(.verdict.convergence != null and (.verdict.path | index(.verdict.convergence.function)))' \
	"$TMP/out" >/dev/null || fail "path is neither the largest branch nor through the convergence"
jq -e '[.verdict.branches[] | .share > 0 and (.path | length) >= 3] | all' "$TMP/out" >/dev/null ||
	fail "a branch without a share or stopped at its entry"
jq -e '[.verdict.branches[].leaf] | index("do_syscall_64") | not' "$TMP/out" >/dev/null ||
	fail "a branch stops at do_syscall_64"
exit 0
