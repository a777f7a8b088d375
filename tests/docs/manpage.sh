#!/bin/sh
# The man page documents what exists: every subcommand argus --help lists,
# every option of the interactive and load tables, every key of the key
# table, every exit status.  Help cannot drift silently.
. "$(dirname "$0")/../lib.sh"
MAN="$ROOT/man/argus.1"
[ -x "$ARGUS" ] || fail "no $ARGUS; run make"
need_cmd man
text="$TMP/man.txt"
MANWIDTH=200 man -l "$MAN" >"$text" 2>"$TMP/man.err" || fail "man -l failed: $(cat "$TMP/man.err")"
grep -v 'cannot adjust line' "$TMP/man.err" | grep . && fail "man page warnings"
missing=""
for c in $("$ARGUS" --help | sed -n '/^commands:/,/^$/p' | awk 'NR>1 && NF {print $1}'); do
	grep -q "argus $c" "$text" || missing="$missing command:$c"
done
for o in $("$ARGUS" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
	grep -qF -- "$o" "$text" || missing="$missing option:$o"
done
# and every option each subcommand's own --help lists
for c in $("$ARGUS" --help | sed -n '/^commands:/,/^$/p' | awk 'NR>1 && NF {print $1}'); do
	for o in $("$ARGUS" "$c" --help 2>&1 | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
		grep -qF -- "$o" "$text" || missing="$missing $c:$o"
	done
done
# keys: the first column of argus --keys must be a tag of the man page's KEYS
# section (the text before the description on a tag line), not just a word
sed -n '/^KEYS/,/^STEP SPEC/p' "$text" | grep -E '^ {7}[^ ]' | sed -E 's/^ {7}//; s/  .*//' |
	sed 's/, /\n/g; s/ /\n/g' | grep . | sort -u >"$TMP/man.keys"
"$ARGUS" --keys | grep '^  ' | sed 's/^  //' | cut -c1-12 | tr -s ' ' '\n' | grep . | sort -u | while read -r k; do
	grep -qxF -- "$k" "$TMP/man.keys" || echo "key:$k"
done >"$TMP/keys.missing"
missing="$missing $(cat "$TMP/keys.missing" | tr '\n' ' ')"
for st in 0 1 2 3 4 127; do
	sed -n '/^EXIT STATUS/,/^OVERHEAD/p' "$text" | grep -qE "^ +$st( |\$)" || missing="$missing exit:$st"
done
missing=$(echo "$missing" | tr -s ' ')
[ -z "${missing# }" ] || fail "not in man/argus.1:$missing"
echo ok
