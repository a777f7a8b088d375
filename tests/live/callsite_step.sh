#!/bin/sh
# Issue 27 end to end, real BPF: the call sites of a wall-clock verdict
# through blocked time come from the instrumentation step that saw the wait.
# tests/scenarios/callsite_fp --nap 2000 sleeps in a raw nanosleep after each
# block it reads (main > callsite_run > callsite_fill > callsite_nap_raw):
# with --time wall the verdict is the nanosleep's blocked path, ending at its
# waker node "[woken by hardirq timer]".  The wall-clock tree's blocked
# stacks carry the user frames where the wait began (the scheduler-time
# programs take them, as live/callsite_wall tests), so without steps the
# measurement's call sites name callsite_nap_raw already (checked first),
# and a step's are looked at only when they name none: so the runs with
# steps take no user stacks of their own (--kernel-only: the sampler and
# the scheduler programs walk none; a step's stacks keep theirs).  With
# --auto the agent runs an
# offcpu step, whose stacks end in "[offcpu] woken by hardirq timer" and
# carry the blocked task's user frames: the verdict's call sites are the
# step's and name callsite_nap_raw, in the verdict JSON and in the session's
# markdown report, their rises in the step's unit (us blocked).  Then a wait
# woken by another process (--pipe): the verdict's "[woken by task ...]"
# node matches the step's marker, and the call sites are the step's.
# (The sampler's own call sites, on-CPU: live/callsite.)  The steps run
# under --budget 20: eight readers' pipe waits make the offcpu step's
# estimate 4.8-6.1% of a CPU on this machine, around the default 5%, and
# a step refused over its budget (right, and tested in live/step_duty) is
# not what this test is about.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd jq
need_scenario FP callsite_fp
[ -x "$ARGUS" ] || fail "missing $ARGUS (run make)"

# without steps: the measurement's own call sites, from the wall-clock tree
"$ARGUS" diagnose --batch --json --time wall --load "$FP --nap 2000" --pairs 2 --fixed \
	--no-session >"$TMP/plain.json" 2>"$TMP/plain.err"
rc=$?
tail -1 "$TMP/plain.err"
[ $rc = 0 ] || { cat "$TMP/plain.err"; fail "argus diagnose --time wall exited $rc"; }
jq -c '.verdict | {path, call_sites, call_sites_source}' "$TMP/plain.json"
jq -e '.verdict.found and (.verdict.path | index("do_nanosleep"))' "$TMP/plain.json" >/dev/null ||
	fail "the wall-clock verdict is not the nanosleep's blocked path: $(jq -c .verdict.path "$TMP/plain.json")"
jq -e '.verdict.call_sites_source == "sampler" and .verdict.call_sites_unit == "samples" and
	(.verdict.call_sites[0].frames | index("callsite_nap_raw (callsite_fp)"))' "$TMP/plain.json" >/dev/null ||
	fail "without steps the call sites are not the wall-clock tree's, naming callsite_nap_raw: $(jq -c .verdict.call_sites "$TMP/plain.json")"

# with the agent's steps (one is enough: the offcpu step)
"$ARGUS" diagnose --batch --json --auto --steps 1 --budget 20 --time wall --kernel-only \
	--load "$FP --nap 2000" --session "$TMP/s.jsonl" >"$TMP/step.json" 2>"$TMP/step.err"
rc=$?
grep 'step 1 result\|verdict in' "$TMP/step.err"
[ $rc = 0 ] || { cat "$TMP/step.err"; fail "argus diagnose --auto --time wall exited $rc"; }
jq -c '.verdict | {path, call_sites, call_sites_source, call_sites_step, ustack_errors}' "$TMP/step.json"
jq -e '.verdict.found and (.verdict.path | index("do_nanosleep"))
	and (.verdict.path | any(.[]; startswith("[woken by ")))' "$TMP/step.json" >/dev/null ||
	fail "the verdict is not the nanosleep's blocked path to its waker: $(jq -c .verdict.path "$TMP/step.json")"
jq -e '.verdict.call_sites_source == "step" and .verdict.call_sites_step >= 1' \
	"$TMP/step.json" >/dev/null ||
	fail "the call sites are not a step's: $(jq -c '.verdict | {call_sites_source, call_sites_step, call_sites}' "$TMP/step.json")"
jq -e '.verdict.call_sites_step as $n | .steps | any(.[]; .index == $n - 1 and .spec.kind == "offcpu")' \
	"$TMP/step.json" >/dev/null ||
	fail "call_sites_step is not the offcpu step: $(jq -c '[.verdict.call_sites_step, [.steps[] | {index, kind: .spec.kind}]]' "$TMP/step.json")"
# its rises in the offcpu step's unit, not samples
jq -e '.verdict.call_sites_unit == "us blocked"' "$TMP/step.json" >/dev/null ||
	fail "the step's call-site rises are not in its unit: $(jq -c .verdict.call_sites_unit "$TMP/step.json")"
# the largest: the program's napping chain, root first, most of the rise
jq -e '.verdict.call_sites[0] as $c | $c.frames as $f
	| ($f | index("callsite_nap_raw (callsite_fp)")) and ($f | index("callsite_fill (callsite_fp)"))
	and ($f | index("main (callsite_fp)")) < ($f | index("callsite_fill (callsite_fp)"))
	and ($f | index("callsite_fill (callsite_fp)")) < ($f | index("callsite_nap_raw (callsite_fp)"))
	and $c.share > 0.5' "$TMP/step.json" >/dev/null ||
	fail "the first call site is not callsite_fp's nap chain with most of the rise: $(jq -c .verdict.call_sites "$TMP/step.json")"

# the session's report says them too
"$ARGUS" export "$TMP/s.jsonl" --format markdown >"$TMP/s.md" 2>"$TMP/md.err" ||
	fail "export markdown failed: $(cat "$TMP/md.err")"
grep -A6 '^Called from' "$TMP/s.md"
grep -A6 '^Called from' "$TMP/s.md" | grep -q 'callsite_nap_raw (callsite_fp)' ||
	fail "the session's markdown report names no callsite_nap_raw"
grep -A6 '^Called from' "$TMP/s.md" | grep 'callsite_nap_raw' | grep -q ' us blocked/s |' ||
	fail "the markdown report's rise is not in the step's unit (us blocked/s)"

# a wait woken by another process (callsite_fp --pipe: eight reader threads
# each blocked in a pipe read until the child callsite_tick writes): the
# verdict's waker node "[woken by task callsite_tick (tgid N)]" matches the
# offcpu step's "[offcpu] woken by callsite_tick (tgid N: ...)", so the
# step's user frames are the call sites (the verdict is fs, where it
# waited: the heuristic's blocked_offcpu rule proposes the step)
"$ARGUS" diagnose --batch --json --auto --steps 1 --budget 20 --time wall --kernel-only \
	--load "$FP --pipe 2000" --no-session >"$TMP/pipe.json" 2>"$TMP/pipe.err"
rc=$?
grep 'step 1 result\|verdict in' "$TMP/pipe.err"
[ $rc = 0 ] || { cat "$TMP/pipe.err"; fail "argus diagnose --auto --time wall on --pipe exited $rc"; }
jq -c '.verdict | {path, call_sites_source, call_sites_unit, site: .call_sites[0].site}' "$TMP/pipe.json"
jq -e '.verdict.path | index("anon_pipe_read") and any(.[]; test("^\\[woken by task callsite_tick \\(tgid [0-9]+\\)\\]$"))' \
	"$TMP/pipe.json" >/dev/null ||
	fail "the verdict is not the pipe read woken by task callsite_tick: $(jq -c .verdict.path "$TMP/pipe.json")"
jq -e '.verdict.call_sites_source == "step" and .verdict.call_sites_unit == "us blocked"
	and (.verdict.call_sites[0] as $c | ($c.frames | index("callsite_pipe_raw (callsite_fp)"))
	and ($c.frames | index("callsite_fill (callsite_fp)")) and $c.share > 0.5)' \
	"$TMP/pipe.json" >/dev/null ||
	fail "the task-woken wait's call sites are not the offcpu step's pipe-read chain: $(jq -c '.verdict | {call_sites_source, call_sites}' "$TMP/pipe.json")"
echo "step call sites: ok"
