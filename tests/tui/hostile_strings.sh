#!/bin/sh
# Nothing from a file reaches a terminal or a text report raw.  Files whose
# strings hold "\u001b[2J\u001b]0;PWN\u0007" (clear the screen, retitle the
# window, ring the bell): a session's header, note, frame names and comm;
# folded frame names; a theme file.  Each reader is fed them — replay
# --batch, export markdown/folded/json, diff --batch (text and JSON), the
# theme loader's error, and the TUI's replay screen (its raw terminal output
# recorded with tmux pipe-pane) — and no ESC or BEL byte of the files may
# come out: the strings appear escaped ("\x1b[2J").  The LLM's reply text
# is covered by tests/live/llm_hostile.sh.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"
need_cmd python3
SRC="$ROOT/tests/data/session-pagefault.jsonl"
python3 - "$SRC" "$TMP" <<'PY' || fail "cannot build the hostile files"
import json, sys
src, tmp = sys.argv[1], sys.argv[2]
P = "\u001b[2J\u001b]0;PWN\u0007"
out, done = [], False
for x in open(src).read().splitlines():
    o = json.loads(x)
    if o.get("type") == "header":
        o["host"] = "vm" + P
    if o.get("type") == "note":
        o["text"] = P + o["text"]
    if o.get("type") == "window" and o.get("cond") == "load" and not done:
        o["stacks"][0][0][-1] = P + "leaf"
        o["stacks"][0][2] = P + "comm"
        done = True
    out.append(json.dumps(o, separators=(",", ":")))
open(tmp + "/hostile.jsonl", "w").write("\n".join(out) + "\n")
for name in ("ref", "load"):
    lines = open(sys.argv[1].replace("data/session-pagefault.jsonl", "tui/data/%s.folded" % name)).read().splitlines()
    lines.append(P.replace("\u001b", "\x1b") + "frame;do_anonymous_page %d" % (50 if name == "ref" else 5000))
    open(tmp + "/%s.folded" % name, "w").write("\n".join(lines) + "\n")
open(tmp + "/hostile.theme", "w").write("name = x" + P + "\n" + P + "bogus = 1\n")
PY
grep -q "$(printf '\033')" "$TMP/ref.folded" || fail "the folded file holds no ESC byte: the test would see nothing"
grep -q 'u001b' "$TMP/hostile.jsonl" || fail "the session holds no escaped ESC: the test would see nothing"

n=0
clean() { # what file
	n=$((n + 1))
	if grep -q "$(printf '[\033\007]')" "$2"; then
		grep -n "$(printf '[\033\007]')" "$2" | head -n 3 | cat -v
		fail "$1: an ESC or BEL byte from the input reached the output"
	fi
	grep -qF 'PWN' "$2" || fail "$1: the hostile string is gone entirely (want it shown escaped): $(head -c 300 "$2")"
	grep -qF '\x1b' "$2" || fail "$1: the string is not shown escaped as \\x1b"
}
"$ARGUS" replay --batch "$TMP/hostile.jsonl" >"$TMP/o.batch" 2>&1 || fail "replay --batch failed: $(cat "$TMP/o.batch")"
clean "replay --batch" "$TMP/o.batch"
"$ARGUS" replay --batch --json "$TMP/hostile.jsonl" >"$TMP/o.bjson" 2>&1 || fail "replay --batch --json failed"
clean "replay --batch --json" "$TMP/o.bjson"
"$ARGUS" export "$TMP/hostile.jsonl" --format markdown >"$TMP/o.md" 2>&1 || fail "export markdown failed: $(cat "$TMP/o.md")"
clean "export --format markdown" "$TMP/o.md"
"$ARGUS" export "$TMP/hostile.jsonl" --format folded --cond load >"$TMP/o.folded" 2>&1 || fail "export folded failed"
clean "export --format folded" "$TMP/o.folded"
"$ARGUS" export "$TMP/hostile.jsonl" --format json >"$TMP/o.json" 2>&1 || fail "export json failed"
clean "export --format json" "$TMP/o.json"
"$ARGUS" diff "$TMP/ref.folded" "$TMP/load.folded" --batch >"$TMP/o.diff" 2>&1 || fail "diff --batch failed: $(cat "$TMP/o.diff")"
clean "diff --batch" "$TMP/o.diff"
"$ARGUS" diff "$TMP/ref.folded" "$TMP/load.folded" --batch --json >"$TMP/o.diffj" 2>&1 || fail "diff --batch --json failed"
clean "diff --batch --json" "$TMP/o.diffj"
"$ARGUS" replay --theme "$TMP/hostile.theme" "$TMP/hostile.jsonl" >"$TMP/o.theme" 2>&1 </dev/null
clean "theme file error" "$TMP/o.theme"

# the TUI: everything it writes to the terminal, recorded raw
start 160 50 LANG=C.UTF-8 TERM=xterm-256color -- replay "$TMP/hostile.jsonl"
tm pipe-pane -t t -o "cat >>$TMP/o.tty"
wait_for "replay event 0/"
i=0
while [ $i -lt 40 ] && ! screen | grep -qF 'note: \x1b[2J'; do keys n; sleep 0.2; i=$((i + 1)); done
wait_for 'note: \x1b[2J\x1b]0;PWN\x07'
keys '}'
N=$(tail -n +2 "$TMP/hostile.jsonl" | grep -c .)
wait_for "replay event $N/$N"
keys q
wait_for STTY-DONE
tm pipe-pane -t t 2>/dev/null
[ -s "$TMP/o.tty" ] || fail "pipe-pane recorded nothing"
# curses writes its own ESC sequences; the file's must not be among them
grep -aqF "$(printf '\033]0;PWN')" "$TMP/o.tty" && fail "the TUI wrote the file's OSC title sequence"
grep -aqF "$(printf 'PWN\007')" "$TMP/o.tty" && fail "the TUI wrote the file's BEL"
grep -aqF 'PWN' "$TMP/o.tty" || fail "the TUI never showed the hostile strings (want them escaped)"
n=$((n + 1))
echo "hostile_strings: $n readers, no ESC or BEL from the files reached the output"
