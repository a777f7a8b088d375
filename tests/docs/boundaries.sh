#!/bin/sh
# The layout shows the architecture (doc/ARCHITECTURE.md, Boundaries): core/
# is a library with no terminal code; tui/ never calls libbpf, libcurl or
# cJSON; only core/probe/probe_*.c include a BPF skeleton, each program's user
# side is one core/probe/probe_NAME.c; bpf/ holds BPF-side C only.  The
# layering rule of core/ (no include upward, no cycle, every file in the map)
# is tests/docs/layers.py, run here.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || fail "no $ROOT"
bad=""
f=$(grep -lE '#include *[<"](n?curses|ncursesw/|term\.h|panel\.h)' core/*/*.c core/*/*.h)
[ -z "$f" ] || bad="$bad core-includes-curses:$f"
f=$(grep -lE '#include *[<"](bpf/|curl/|cjson/|cJSON)' tui/*.c tui/*.h)
[ -z "$f" ] || bad="$bad tui-includes-libbpf-curl-cjson:$f"
f=$(grep -lE '#include *".*\.skel\.h"' core/*/*.c tui/*.c | grep -v '^core/probe/probe_')
[ -z "$f" ] || bad="$bad skeleton-outside-probe:$f"
f=$(grep -lE '\b(initscr|newterm|endwin|mvwprintw|wrefresh)\b' core/*/*.c)
[ -z "$f" ] || bad="$bad core-calls-curses:$f"
f=$(grep -lE '\b(bpf_object__|bpf_program__|bpf_map__|curl_easy_|curl_multi_)' tui/*.c)
[ -z "$f" ] || bad="$bad tui-calls-libbpf-curl:$f"
# one triple per BPF program: bpf/NAME.bpf.c, bpf/NAME.h, core/probe/probe_NAME.c,
# and NAME.skel.h included by core/probe/probe_NAME.c alone
for b in bpf/*.bpf.c; do
	n=$(basename "$b" .bpf.c)
	[ -f "bpf/$n.h" ] || bad="$bad no-bpf/$n.h"
	[ -f "core/probe/probe_$n.c" ] || bad="$bad no-core/probe/probe_$n.c"
	f=$(grep -lE "#include *\"$n\.skel\.h\"" core/*/*.c | grep -vx "core/probe/probe_$n.c")
	[ -z "$f" ] || bad="$bad $n.skel.h-outside-probe_$n.c:$f"
done
# the step filter is written once (bpf/filter.bpf.h), never again in a program
f=$(grep -lE 'const volatile [_a-z0-9]+ filter_(pid|tgid|comm|cgroup)\b' bpf/*.c bpf/*.h | grep -v '^bpf/filter\.bpf\.h$')
[ -z "$f" ] || bad="$bad filter-rewritten-outside-filter.bpf.h:$f"
# the interrupt context is kept once (bpf/irqctx.bpf.h), never again in a program
f=$(grep -lE '(irq|softirq) = (irq|vec) \+ 1' bpf/*.c bpf/*.h | grep -v '^bpf/irqctx\.bpf\.h$')
[ -z "$f" ] || bad="$bad irq-context-rewritten-outside-irqctx.bpf.h:$f"
# the controller is opaque: its state (core/step/controller_priv.h) is seen
# by core/step/controller*.c alone, everyone else uses controller.h
f=$(grep -lE '#include *"(step/)?controller_priv\.h"' core/*/*.c core/*/*.h tui/*.c tui/*.h tests/*/*.c 2>/dev/null |
	grep -vE '^core/step/controller[a-z_]*\.[ch]$')
[ -z "$f" ] || bad="$bad controller_priv.h-outside-the-controller:$(echo $f)"
# nothing in the project cites a file outside it (the design lives in doc/)
f=$(git ls-files '*.c' '*.h' '*.md' '*.sh' '*.py' '*.inc' Makefile 'man/*' 'prompts/*' 'themes/*' 2>/dev/null | grep -v '^tests/docs/boundaries.sh$' |
	xargs grep -lE '(\.\./shared/|/work/|(^|[^/A-Za-z])STYLE\.md|SCHEDTIME\.md)' 2>/dev/null)
[ -z "$f" ] || bad="$bad cites-outside-the-project:$(echo $f)"
[ -z "$bad" ] || fail "boundaries crossed:$bad"
# core/'s layers: no include upward, no cycle, every file in the map
out=$(python3 tests/docs/layers.py) || fail "layering rule (doc/ARCHITECTURE.md, Layers) broken: $(echo "$out" | tr '\n' ';')"
echo ok
