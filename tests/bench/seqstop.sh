#!/bin/sh
# Sequential stopping against fixed pairs, side by side in one run: every
# scenario of tests/bench/scenarios.sh (its list, read from that file, so
# scenarios added there are measured here too) x REPEAT, each run once with
# the defaults (sequential: stop when the verdict is settled, at most 12
# pairs, adaptive windows) and once with --fixed (exactly 6 pairs of 0.5 s,
# the fixed-sample test: the behaviour before), the order alternating.
# Prints per run the verdict leaf, correct at depth (the expected frame on
# the verdict path), time to the verdict and pairs measured; then
# correct-at-depth and the median time to a verdict for both.
#   REPEAT=N (default 3)  SCENARIOS="anon cow ..."  BENCH_OPTS=... (both modes)
# Needs root (BPF); prints SKIPPED otherwise.
cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
ARGUS=${ARGUS:-$ROOT/argus}
S=${BUILD:-$ROOT/build}/scenarios
REPEAT=${REPEAT:-3}
[ "$(id -u)" = 0 ] || { echo "SKIPPED: sequential-stopping benchmark needs root"; exit 0; }
command -v jq >/dev/null || { echo "SKIPPED: sequential-stopping benchmark needs jq"; exit 0; }
[ -x "$ARGUS" ] && [ -x "$S/pagefault" ] || { echo "SKIPPED: run make first"; exit 0; }
TMP=$(mktemp -d /tmp/argus-seqbench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# the scenario list: the here-document of scenarios.sh, with $S expanded
sed -n '/^cat > "\$TMP\/list" <<EOS$/,/^EOS$/p' tests/bench/scenarios.sh | sed '1d;$d' |
	sed "s|\\\$S|$S|g" > "$TMP/list"
[ -s "$TMP/list" ] || { echo "FAIL: no scenario list found in tests/bench/scenarios.sh"; exit 1; }

# has FILE PATHS WANT [VERDICT]: as tests/bench/scenarios.sh's
has() {
	wt=; wf=$3
	case "$3" in blocked:*|runnable:*|on-cpu:*) wt=${3%%:*}; wf=${3#*:} ;; esac
	jq -e --arg w "$wf" --arg t "$wt" --arg v "${4:-}" "[$2] as \$ps |
		(\$v == \"\" or \$t == \"\" or (.verdict.time // .verdict.path[0]) == \$t) and
		(\$w | split(\"+\") | all(. as \$f | \$ps | any(.[]; any(.[]?; . == \$f or
			(\$t != \"\" and startswith(\$f))))))" "$1" >/dev/null
}

run() { # mode name want args -> one line in $TMP/rows, time in $TMP/t.<mode>
	mode=$1 name=$2 want=$3 args=$4 extra=
	[ "$mode" = fixed ] && extra=--fixed
	eval "\"\$ARGUS\" diagnose --batch --json --no-session $extra $BENCH_OPTS $args" \
		>"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "$name|$mode|error (exit $rc)|NO|-|-" >> "$TMP/rows"
		echo "$mode NO" >> "$TMP/ok"
		return
	fi
	leaf=$(jq -r '.verdict.leaf // "(none)"' "$TMP/out")
	t=$(jq -r '.elapsed_s' "$TMP/out")
	pairs=$(jq -r '.stopping.pairs // (.windows | length / 2)' "$TMP/out")
	# scenarios.sh's rule: [TIME:]FRAME[+FRAME...], one frame on the path,
	# a+b each on a branch, a TIME the verdict's kind of time
	case $want in
	*+*) vpaths='.verdict.path, (.verdict.branches // [] | .[].path)' ;;
	*) vpaths='.verdict.path' ;;
	esac
	if has "$TMP/out" "$vpaths" "$want" verdict; then
		c=yes
	else
		c=NO
	fi
	echo "$t" >> "$TMP/t.$mode"
	echo "$mode $c" >> "$TMP/ok"
	echo "$name|$mode|$leaf|$c|$t|$pairs" >> "$TMP/rows"
	[ -n "${VERBOSE:-}" ] && jq -c '{v: .verdict.path, stop: .stopping.reason}' "$TMP/out"
}

echo "options: ${BENCH_OPTS:-(defaults)}; REPEAT=$REPEAT; load average $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$TMP/rows"; : > "$TMP/ok"; : > "$TMP/t.seq"; : > "$TMP/t.fixed"
while IFS='|' read -r name want args; do
	case " ${SCENARIOS:-$name} " in *" $name "*) ;; *) continue ;; esac
	r=0
	while [ $r -lt "$REPEAT" ]; do
		r=$((r + 1))
		if [ $((r % 2)) -eq 1 ]; then
			run seq "$name" "$want" "$args"; run fixed "$name" "$want" "$args"
		else
			run fixed "$name" "$want" "$args"; run seq "$name" "$want" "$args"
		fi
		s=$(grep "^$name|seq|" "$TMP/rows" | tail -n 1)
		f=$(grep "^$name|fixed|" "$TMP/rows" | tail -n 1)
		[ $r -eq 1 ] && [ "$name" = "$(head -n 1 "$TMP/list" | cut -d'|' -f1)" ] &&
			printf '%-9s %-24s | %-24s %-3s %6s %5s | %-24s %-3s %6s\n' scenario expected \
				"sequential leaf" ok time pairs "fixed (6 pairs) leaf" ok time
		echo "$s|$f" | awk -F'|' -v want="$want" '{
			printf "%-9s %-24.24s | %-24.24s %-3s %5.1fs %5s | %-24.24s %-3s %5.1fs\n",
				$1, want, $3, $4, $5, $6, $9, $10, $11 }'
	done
done < "$TMP/list"
med() { sort -n "$1" | awk '{ a[NR] = $1 } END { if (NR == 0) print "n/a";
	else if (NR % 2) printf "%.1f", a[(NR + 1) / 2]; else printf "%.1f", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
ns=$(grep -c '^seq ' "$TMP/ok"); nf=$(grep -c '^fixed ' "$TMP/ok")
oks=$(grep -c '^seq yes' "$TMP/ok"); okf=$(grep -c '^fixed yes' "$TMP/ok")
pct() { sort -n "$1" | awk -v p="$2" '{ a[NR] = $1 } END { if (NR == 0) print "n/a";
	else { k = int(p * NR + 0.999999); if (k < 1) k = 1; printf "%.1f", a[k] } }'; }
echo "p90 / max time to a verdict: sequential $(pct "$TMP/t.seq" 0.9) / $(pct "$TMP/t.seq" 1) s," \
	"fixed $(pct "$TMP/t.fixed" 0.9) / $(pct "$TMP/t.fixed" 1) s (issue 26: sequential p90 <= 5 s, max <= 10 s);" \
	"load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "correct at depth: sequential $oks/$ns, fixed $okf/$nf; median time to a verdict:" \
	"sequential $(med "$TMP/t.seq") s, fixed $(med "$TMP/t.fixed") s (target: sequential <= 4 s," \
	"correct at depth not lower than fixed)"
[ "$oks" -ge "$okf" ] || echo "NOTE: sequential is correct at depth less often than fixed here"
# the null false-alarm rate beside it (issue 26): the stopping rule on
# simulated runs with no true delta, with and without the deadline
# (tests/unit/test_seqstop.c prints them; its asserts hold them <= 5%)
T=${BUILD:-$ROOT/build}/tests/test_seqstop
[ -x "$T" ] || make -s "$T" >/dev/null 2>&1
if [ -x "$T" ]; then
	"$T" 2>/dev/null | grep -E '^(no true delta|deadline)' | sed 's/^/null simulation: /'
else
	echo "null simulation: SKIPPED (cannot build $T)"
fi
