#!/bin/sh
# Scenario benchmark: `argus diagnose` on each scenario load
# (tests/scenarios/README) and, on the same data, the naive answer of a
# reference-less profiler (the hottest kernel path of the loaded windows).
# Prints per run: expected frame, verdict leaf, correct at depth (the expected
# frame is on the verdict path), time to
# diagnosis, and the same for the naive answer (hottest path of the loaded
# windows) and for naive_diff (a simple per-stack differ: the heaviest path
# of the positive part of loaded - reference); then the totals and the
# median time to diagnosis.  An expected "a+b" needs every frame named,
# each on the path or a branch: a spread over several branches (one path,
# as the naive answers give, cannot name it).
#   REPEAT=N        runs per scenario (default 1)
#   BENCH_OPTS=...  extra diagnose options, e.g. "--pairs 6 --window 0.5"
#   SCENARIOS=...   names to run (default: all)
#   --real          the real-software set instead (tests/real/scenarios:
#                   Debian programs, ground truth by perf), three runs by
#                   default; each row says whether the descent was tuned on
#                   that load or only measured on it, and whether the
#                   verdict's subsystem is the expected one
# Needs root (BPF); prints SKIPPED otherwise.
cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
ARGUS=${ARGUS:-$ROOT/argus}
S=${BUILD:-$ROOT/build}/scenarios
REPEAT_USER=${REPEAT:-}
REPEAT=${REPEAT:-1}
[ "$(id -u)" = 0 ] || { echo "SKIPPED: scenarios benchmark needs root"; exit 0; }
command -v jq >/dev/null || { echo "SKIPPED: scenarios benchmark needs jq"; exit 0; }
[ -x "$ARGUS" ] && [ -x "$S/pagefault" ] || { echo "SKIPPED: run make first"; exit 0; }
REAL=
[ "${1:-}" = --real ] && { REAL=1; REPEAT=${REPEAT_USER:-3}; BENCH_OPTS="--no-session ${BENCH_OPTS:-}"; }
TMP=$(mktemp -d /tmp/argus-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
R=$ROOT/tests/real
: > "$TMP/meta"
if [ -n "$REAL" ]; then
	# name|set|subsystem|expected|arguments|truth -> the list and the meta
	grep -v '^#' "$R/scenarios" | grep . | cut -d'|' -f1,4,5 > "$TMP/list"
	grep -v '^#' "$R/scenarios" | grep . | cut -d'|' -f1-3 > "$TMP/meta"
else
# name|expected frame|diagnose arguments
cat > "$TMP/list" <<EOS
anon|do_anonymous_page|-- $S/pagefault
file|filemap_fault|-- $S/file_fault
cow|do_wp_page|-- $S/cow_fault
thp|do_huge_pmd_anonymous_page|-- $S/thp_fault
victim|shmem_fault|--victim $S/victim --load $S/aggressor --time cpu
io_victim|blocked:folio_wait_bit_common|--victim $S/io_victim --load $S/evictor
lock_victim|blocked:rwsem_down_write_slowpath|--victim $S/lock_victim --load $S/lock_holder
starved|runnable:[ran instead: spinner|--victim $S/starved --load $S/spinner
noisy|do_anonymous_page|--background "$S/noisy --threads 3" --load $S/pagefault
displace|filemap_read|--background "$S/noisy --threads $(nproc)" --load "$S/fileread --mode pread"
shared|filemap_read|--background "$S/noisy --threads $(nproc)" --load "$S/fileread --mode read"
spread|bprm_execve+copy_process|--load $S/forkexec
EOS
fi

echo "options: ${BENCH_OPTS:-(defaults)}; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %-27s %-27s %-4s %6s   %-24s %-4s %-24s %-4s\n' scenario expected "verdict leaf" ok \
	"time" "naive leaf" ok "naive_diff leaf" ok
: > "$TMP/times"
n=0 ok=0 nok=0 dok=0 sok=0
# 0 when every frame of want ("a+b") is on one of the paths jq's $paths selects
# has FILE PATHS WANT [VERDICT]: WANT is [TIME:]FRAME[+FRAME...]; each FRAME
# on one of the paths PATHS (a jq filter giving path arrays) — exactly, or as a
# prefix when a TIME is given ("[ran instead: spinner" names a task) — and,
# with VERDICT set, the verdict's kind of time (verdict.time, or the TREE_TIME
# node that starts the path) is TIME
has() {
	wt=; wf=$3
	case "$3" in blocked:*|runnable:*|on-cpu:*) wt=${3%%:*}; wf=${3#*:} ;; esac
	jq -e --arg w "$wf" --arg t "$wt" --arg v "${4:-}" "[$2] as \$ps |
		(\$v == \"\" or \$t == \"\" or (.verdict.time // .verdict.path[0]) == \$t) and
		(\$w | split(\"+\") | all(. as \$f | \$ps | any(.[]; any(.[]?; . == \$f or
			(\$t != \"\" and startswith(\$f))))))" "$1" >/dev/null
}
while IFS='|' read -r name want args; do
	case " ${SCENARIOS:-$name} " in *" $name "*) ;; *) continue ;; esac
	r=0
	while [ $r -lt "$REPEAT" ]; do
		r=$((r + 1))
		eval "\"\$ARGUS\" diagnose --batch --json $BENCH_OPTS $args" >"$TMP/out" 2>"$TMP/err" </dev/null
		rc=$?
		if [ $rc -ne 0 ]; then
			printf '%-8s %-27s error (exit %s): %s\n' "$name" "$want" "$rc" \
				"$(grep '^argus:' "$TMP/err" | tail -n 1)"
			n=$((n + 1))
			continue
		fi
		leaf=$(jq -r '.verdict.leaf // "(none)"' "$TMP/out")
		nleaf=$(jq -r '.naive.leaf // "(none)"' "$TMP/out")
		dleaf=$(jq -r '.naive_diff.leaf // "(none)"' "$TMP/out")
		[ "$(jq '.verdict.branches // [] | length' "$TMP/out")" -gt 1 ] &&
			leaf="$leaf (+$(($(jq '.verdict.branches | length' "$TMP/out") - 1)))"
		t=$(jq -r '.elapsed_s' "$TMP/out")
		# one frame: on the path (the largest branch); a+b: each on a branch
		case $want in
		*+*) vpaths='.verdict.path, (.verdict.branches // [] | .[].path)' ;;
		*) vpaths='.verdict.path' ;;
		esac
		if has "$TMP/out" "$vpaths" "$want" verdict; then
			c=yes; ok=$((ok + 1))
		else
			c=NO
		fi
		if has "$TMP/out" '.naive.path' "$want"; then
			nc=yes; nok=$((nok + 1))
		else
			nc=NO
		fi
		if has "$TMP/out" '.naive_diff.path' "$want"; then
			dc=yes; dok=$((dok + 1))
		else
			dc=NO
		fi
		n=$((n + 1))
		echo "$t" >> "$TMP/times"
		extra=
		if [ -n "$REAL" ]; then
			set_=$(grep "^$name|" "$TMP/meta" | cut -d'|' -f2)
			sub=$(grep "^$name|" "$TMP/meta" | cut -d'|' -f3)
			vs=$(jq -r '.verdict.subsystem // "?"' "$TMP/out")
			if jq -e --arg s "$sub" '.verdict.subsystem == $s or
				any(.verdict.branches // [] | .[]; .subsystem == $s and .share >= 0.25)' \
				"$TMP/out" >/dev/null; then
				sok=$((sok + 1)); so=yes
			else
				so=NO
			fi
			extra=" [$set_] subsystem $vs (want $sub) $so; load $(cut -d' ' -f1 /proc/loadavg)"
			echo "$name $set_ $c $t" >> "$TMP/sets"
		fi
		printf '%-8s %-27.27s %-27.27s %-4s %5.1fs   %-24.24s %-4s %-24.24s %-4s%s\n' "$name" \
			"$want" "$leaf" "$c" "$t" "$nleaf" "$nc" "$dleaf" "$dc" "$extra"
		[ -n "${VERBOSE:-}" ] && jq -c '{v: .verdict.path, naive: .naive.path,
			naive_diff: .naive_diff.path, displaced: [.verdict.displaced[]? | .process]}' "$TMP/out"
	done
done < "$TMP/list"
med=$(sort -n "$TMP/times" | awk '{ a[NR] = $1 } END { if (NR == 0) print "n/a";
	else if (NR % 2) printf "%.1f", a[(NR + 1) / 2]; else printf "%.1f", (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
echo "correct at depth: argus $ok/$n, naive $nok/$n, naive_diff $dok/$n; median time to diagnosis ${med} s (target <= 10 s)"
if [ -n "$REAL" ] && [ -s "$TMP/sets" ]; then
	echo "subsystem right: $sok/$n"
	for st in tune measure; do
		awk -v s="$st" '$2 == s { n++; if ($3 == "yes") ok++; if ($4 > mx) mx = $4 }
			END { if (n) printf "set %s: correct at depth %d/%d, slowest %.1f s\n", s, ok, n, mx }' "$TMP/sets"
	done
fi
