#!/bin/sh
# Themes: each shipped theme loads; a broken theme file is refused with its
# line number before the screen is touched; T cycles themes.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.inc"

printf 'normal = 1 2 bold\nbogus-role = 1 2\n' > "$TMP/bad.theme"
out=$("$ARGUS" --theme "$TMP/bad.theme" --static "$FOLDED_LIVE" 2>&1 </dev/null)
echo "$out" | grep -q "bad.theme:2: unknown role 'bogus-role'" || fail "bad theme message: $out"
out=$("$ARGUS" --theme no-such-theme --static "$FOLDED_LIVE" 2>&1 </dev/null)
echo "$out" | grep -q "no theme 'no-such-theme'" || fail "missing theme message: $out"

# The shipped themes are built in: by name they load from any directory
# (here /tmp, where no themes/ folder is), with nothing installed.
cd /tmp || fail "cd /tmp"
for th in default light high-contrast mono "$ROOT/themes/light.theme"; do
	start 80 24 LANG=C.UTF-8 TERM=xterm-256color -- --theme "$th" --static "$FOLDED_CAL"
	wait_for "load/s"
	keys T
	wait_for "theme "
	keys q
	expect_sane_exit
	tm kill-server
done
cd "$ROOT" || fail "cd $ROOT"
echo ok
