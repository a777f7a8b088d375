#!/bin/sh
# tpstacks — the tracepoint_stacks probe on a child that faults in 20000
# anonymous pages: exceptions:page_fault_user fires once per page and its
# stack is the fault entry; kmem:mm_page_alloc's hottest stack goes through
# handle_mm_fault; with 1-in-8 sampling the scaled counts stay within 8 per
# CPU of the exact firings; nothing stays loaded.
# Issue 27: a tracepoint_stacks step (through kind_ops, tests/live/kinds_run.c)
# on raw_syscalls:sys_enter of tests/scenarios/callsite built with frame
# pointers has the program's own functions, root first, in its user frames.
. "$(dirname "$0")/../lib.sh"
need_root
[ -f "$BUILD/libargus.a" ] || skip "no $BUILD/libargus.a; run make"
PAGES=20000
build_driver tpstacks_run

val() { sed -n "s/^$1 //p" "$2"; }

"$TMP/tpstacks_run" 1 $PAGES >"$TMP/all" || fail "driver failed (every firing)"
cat "$TMP/all"
fired=$(val tp0.fired "$TMP/all")
[ "$fired" -ge $PAGES ] || fail "page_fault_user fired $fired times for $PAGES pages"
[ "$fired" -le $((PAGES + 200)) ] || fail "page_fault_user fired $fired times: the tgid filter leaks"
[ "$(val tp0.counted "$TMP/all")" = "$fired" ] || fail "every firing should be counted with a stack"
[ "$(val tp0.lost "$TMP/all")" = 0 ] || fail "counts were lost"
val tp0.top "$TMP/all" | grep -q 'exc_page_fault$' || fail "page_fault_user stack does not end in exc_page_fault"
val tp1.top "$TMP/all" | grep -q 'handle_mm_fault' || fail "mm_page_alloc's hottest stack misses handle_mm_fault"
[ "$(val tp1.fired "$TMP/all")" -ge $PAGES ] || fail "mm_page_alloc fired less than once per page"

"$TMP/tpstacks_run" 8 $PAGES >"$TMP/s8" || fail "driver failed (1 in 8)"
cat "$TMP/s8"
ncpus=$(val ncpus "$TMP/s8")
for tp in tp0 tp1; do
	f=$(val $tp.fired "$TMP/s8"); r=$(val $tp.recorded "$TMP/s8"); s=$(val $tp.scaled "$TMP/s8")
	[ $((r * 8)) -le "$f" ] || fail "$tp: recorded $r of $f firings, more than 1 in 8"
	d=$((f - s)); [ $d -lt 0 ] && d=$((-d))
	[ $d -le $((8 * ncpus)) ] || fail "$tp: scaled $s is $d away from $f firings (more than 8 per CPU)"
done

# the user stack under the kernel one: callsite_fp's read chain
FP="$BUILD/scenarios/callsite_fp"
[ -x "$FP" ] || fail "missing $FP (run make)"
build_driver kinds_run
"$FP" --seconds 300 >/dev/null &
fp=$!
at_exit "kill $fp 2>/dev/null"
sleep 0.3
"$TMP/kinds_run" "{\"kind\":\"tracepoint_stacks\",\"target\":\"raw_syscalls:sys_enter\",\"filter\":{\"tgid\":$fp},\"duration_s\":1}" 1.5 \
	>"$TMP/fp" || { cat "$TMP/fp"; kill $fp; fail "driver failed (tracepoint_stacks on callsite_fp)"; }
kill $fp 2>/dev/null
cut -c1-300 "$TMP/fp"
utop=$(sed -n 's/^utop [0-9]* [^ ]* //p' "$TMP/fp" | head -n 1)
echo "$utop" | grep -q '^.*main (callsite_fp);callsite_run (callsite_fp);callsite_fill (callsite_fp);callsite_read_zero (callsite_fp);callsite_read_raw (callsite_fp)$' ||
	fail "the hottest stack's user frames are not callsite_fp's chain main > ... > callsite_read_raw: $utop"
sed -n 's/^top [0-9]* [^ ]* //p' "$TMP/fp" | head -n 1 | grep -q 'raw_syscalls:sys_enter$' ||
	fail "the hottest stack lost its kernel frames or marker"
# kernel threads have no user stack: their firings are counted with the
# kernel stack alone, none lost (a regression guard: as before the change)
"$TMP/kinds_run" '{"kind":"tracepoint_stacks","target":"workqueue:workqueue_execute_start","sample_every":1,"duration_s":1}' 1.5 \
	>"$TMP/kw" || { cat "$TMP/kw"; fail "driver failed (tracepoint_stacks on kworkers)"; }
grep -E '^(t0|lost|prof_total|top|utop)' "$TMP/kw" | cut -c1-200
kwev=$(sed -n 's/^t0.events //p' "$TMP/kw")
if [ "${kwev:-0}" -gt 0 ]; then
	[ "$(sed -n 's/^lost //p' "$TMP/kw")" = 0 ] || fail "kworkers' firings were lost"
	[ "$(sed -n 's/^prof_total //p' "$TMP/kw")" = "$kwev" ] ||
		fail "kworkers' firings are not all counted with a stack"
	grep '^utop [0-9]* kworker/' "$TMP/kw" | grep -qv ' -$' &&
		fail "a kworker's stack has user frames"
fi

# the programs the driver held must be gone once it exited (freed
# asynchronously: wait, bounded)
if command -v bpftool >/dev/null; then
	ids=$(cat "$TMP/all" "$TMP/s8" | sed -n 's/^prog_id //p' | sort -u)
	[ -n "$ids" ] || fail "the driver reported no BPF program while attached"
	for id in $ids; do
		i=0
		while bpftool prog show id "$id" >/dev/null 2>&1; do
			sleep 0.1; i=$((i + 1))
			[ $i -lt 50 ] || fail "BPF program $id still loaded after the driver exited"
		done
	done
fi
echo "tpstacks: ok"
