#!/bin/sh
# Was the machine quiet while SESSION was recorded?  Looks at the first
# reference window (the load paused: what the README calls "the idle
# machine") and the loaded windows:
#   - idle: the idle tasks (swapper/N) hold at least MIN_IDLE% (90) of the
#     first reference window's samples;
#   - foreign: no process but the load, the victim, argus and kernel threads
#     (swapper, kworker, ksoftirqd, kdamond, rcu_*, migration, kswapd,
#     kcompactd, cpuhp, idle_inject) holds more than MAX_OTHER% (2) of the
#     samples of any reference or loaded window.
# A session filtered to a victim (--victim) has no idle samples: only the
# foreign check applies.  Prints one line per failed check, or
# "quiet: idle N% of the first reference window"; exit 1 when not quiet.
#   tests/data/session-quiet.sh SESSION [MIN_IDLE] [MAX_OTHER]
set -eu
S=$1
MIN_IDLE=${2:-90}
MAX_OTHER=${3:-2}
command -v jq >/dev/null || { echo "session-quiet: needs jq" >&2; exit 2; }
out=$(jq -rs --argjson min "$MIN_IDLE" --argjson max "$MAX_OTHER" '
	(.[] | select(.type == "header") | .options) as $o
	| ([$o.load, $o.victim] | map(select(. != null) | sub(" .*"; "") | sub(".*/"; "") | .[0:15])) as $mine
	| def kernel_thread: test("^(swapper/|kworker/|ksoftirqd/|kdamond|rcu_|migration/|kswapd|kcompactd|cpuhp/|idle_inject/|watchdog/|khugepaged|jbd2/|kthreadd)");
	  def share($w; p): ([$w.stacks[] | select(.[2] | p) | .[3]] | add // 0) as $n
		| ([$w.stacks[] | .[3]] | add // 0) as $all
		| if $all > 0 then 100 * $n / $all else 0 end;
	  [.[] | select(.type == "window" and .step == 0)] as $wins
	| ($wins | map(select(.cond == "ref")) | first) as $first
	| (if $o.victim then null else share($first; test("^swapper/")) end) as $idle
	| [ (if $idle != null and $idle < $min then
		"idle: the idle tasks hold \($idle | floor)% of the first reference window (under \($min)%)"
	     else empty end),
	    ([$wins[] as $w | [$w.stacks[] | .[2]] | unique[]
	      | select((kernel_thread | not) and . != "argus" and (IN($mine[]) | not)) as $c
	      | {c: $c, cond: $w.cond, s: share($w; . == $c)} | select(.s > $max)]
	     | group_by(.c)[] | max_by(.s)
	     | "foreign: \(.c) holds up to \(.s | floor)% of a \(.cond) window") ]
	| if length == 0 then "quiet: idle \(if $idle == null then "n/a (victim-filtered)" else "\($idle | floor)%" end) of the first reference window"
	  else .[] end' "$S")
echo "$out"
case $out in quiet:*) exit 0 ;; esac
exit 1
