#!/bin/sh
# kworkers named by the work function they ran (issue 15), live and in the
# replay.  The load writes /proc/sys/vm/stat_refresh in a loop: each write
# runs the vmstat refresh as a work item on every CPU's kworker
# (schedule_on_each_cpu(refresh_vm_stats)), which the cpu-clock sampler
# catches under process_one_work.  A diagnosis records the session; its JSON
# export must name a kworker (a kernel thread) by the vmstat work
# (refresh_vm_stats, or refresh_cpu_vm_stats where the compiler made the
# first a tail call to the second, as on 6.18) with samples in the loaded
# windows; every work function named must be one the kworker's stacks in
# the session show under process_one_work; and the replay of the session
# (tmux, 200x50) must show that kworker's row with the same top function and
# "+N more" count as the export.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd jq
need_cmd tmux
[ -x "$ARGUS" ] || skip "no $ARGUS; run make"
[ -w /proc/sys/vm/stat_refresh ] || skip "no writable /proc/sys/vm/stat_refresh (CONFIG_PROC_FS, CONFIG_SMP)"
grep -qw process_one_work /proc/kallsyms || skip "no process_one_work in /proc/kallsyms"
. "$(dirname "$0")/../tui/tmux.inc"

# one writer per CPU: on a busy machine one loop alone gets few samples
cat >"$TMP/refresh.sh" <<'EOS'
#!/bin/sh
n=$(nproc)
while [ "$n" -gt 1 ]; do
	(while :; do echo 1 > /proc/sys/vm/stat_refresh; done) &
	n=$((n - 1))
done
while :; do echo 1 > /proc/sys/vm/stat_refresh; done
EOS
chmod +x "$TMP/refresh.sh"
S="$TMP/s.jsonl"
"$ARGUS" diagnose --batch --json --fixed --pairs 3 --window 1 --load "$TMP/refresh.sh" --session "$S" \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/err"
[ $rc -eq 0 ] || fail "diagnose exited $rc"
"$ARGUS" export "$S" --format json >"$TMP/x.json" || fail "export failed"
echo "kworkers in the export:"
jq -c '.processes[] | select(.work) | {tgid, comm, ref_samples, load_samples, work: [.work[] | "\(.function) \(.ref_samples)/\(.load_samples)"]}' \
	"$TMP/x.json"
# the kworker that ran the vmstat work most, loaded
kw=$(jq -r '[.processes[] | select(.work and .identity.kthread and (.comm | startswith("kworker/"))) |
	{tgid, comm, v: ([.work[] | select(.function == "refresh_vm_stats" or
	                                   .function == "refresh_cpu_vm_stats") | .load_samples] | add // 0)}] |
	sort_by(-.v) | .[0] | select(.v > 0) | "\(.tgid) \(.comm)"' "$TMP/x.json")
[ -n "$kw" ] || fail "no kworker of the export is named by the vmstat work (refresh_vm_stats / refresh_cpu_vm_stats) in the loaded windows"
set -- $kw
pid=$1 comm=$2
echo "kworker: $comm [$pid]"
# nothing invented: each named function is a frame under process_one_work
# (not run on an interrupt's exit) in that kworker's stacks in the session,
# with the same samples
jq -e -n --argjson pid "$pid" --slurpfile x "$TMP/x.json" --slurpfile s "$S" '
	([$s[] | select(.type == "window") as $w | $w.stacks[] | select(.[1] == $pid) |
	  (.[0] | index("process_one_work")) as $i | select($i != null and .[0][$i + 1] != null) |
	  select([.[0][:$i][] | select(test("^(asm_|sysvec_|__sysvec_|common_interrupt)"))] | length == 0) |
	  {f: (.[0][$i + 1] | sub("[. ].*$"; "")), n: .[3]}] |
	 group_by(.f) | map({key: .[0].f, value: (map(.n) | add)}) | from_entries) as $seen |
	[$x[0].processes[] | select(.tgid == $pid) | .work[] |
	 select($seen[.function] != .samples)] | length == 0' >/dev/null ||
	fail "the export names a work function of $comm [$pid] its stacks do not show (or with other samples)"
top=$(jq -r --argjson pid "$pid" '.processes[] | select(.tgid == $pid) | .work[0].function' "$TMP/x.json")
more=$(jq -r --argjson pid "$pid" '.processes[] | select(.tgid == $pid) | .work | length - 1' "$TMP/x.json")
want="$comm [$pid]  · $top"
[ "$more" -gt 0 ] && want="$want +$more more"
echo "row wanted: $want"
# the replay names it the same way
start 200 50 LANG=C.UTF-8 TERM=xterm-256color HOME="$TMP" -- replay "$S" --at end
wait_for "replay event"
keys P
wait_for "by process"
keys /
keys -l "$comm [$pid]"
keys Enter
wait_for "$comm [$pid]"
screen | grep -F -- "$comm [$pid]" | grep -qF -- "$want" || {
	screen
	fail "the replay's row of $comm [$pid] is not '$want'"
}
keys x
wait_for "work functions it ran"
screen | grep -F -- "$top" | grep -q '%' || { screen; fail "x on $comm [$pid] lacks $top with its share"; }
keys Escape
keys q
expect_sane_exit
exit 0
