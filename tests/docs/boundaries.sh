#!/bin/sh
# The layout shows the architecture (ARCHITECTURE.md, Boundaries): core/ is a
# library with no terminal code; tui/ never calls libbpf, libcurl or cJSON;
# only core/probe_*.c include a BPF skeleton; bpf/ holds BPF-side C only.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || fail "no $ROOT"
bad=""
f=$(grep -lE '#include *[<"](n?curses|ncursesw/|term\.h|panel\.h)' core/*.c core/*.h)
[ -z "$f" ] || bad="$bad core-includes-curses:$f"
f=$(grep -lE '#include *[<"](bpf/|curl/|cjson/|cJSON)' tui/*.c tui/*.h)
[ -z "$f" ] || bad="$bad tui-includes-libbpf-curl-cjson:$f"
f=$(grep -lE '#include *".*\.skel\.h"' core/*.c tui/*.c | grep -v '^core/probe_')
[ -z "$f" ] || bad="$bad skeleton-outside-probe:$f"
f=$(grep -lE '\b(initscr|newterm|endwin|mvwprintw|wrefresh)\b' core/*.c)
[ -z "$f" ] || bad="$bad core-calls-curses:$f"
f=$(grep -lE '\b(bpf_object__|bpf_program__|bpf_map__|curl_easy_|curl_multi_)' tui/*.c)
[ -z "$f" ] || bad="$bad tui-calls-libbpf-curl:$f"
[ -z "$bad" ] || fail "boundaries crossed:$bad"
echo ok
