#!/bin/sh
# "did you mean" for every command's options (issue 24 item 11): a one-letter
# typo of one of its long options exits 2 and names the option meant, for
# the interactive argus and every subcommand `argus --help` lists (a command
# added without a case here fails).  Also what getopt's commands say about a
# missing value, a value given to a flag, an ambiguous abbreviation, and a
# typo with its value glued on.  Nothing here loads BPF: options are read
# before any privilege check, so it runs as any user.
. "$(dirname "$0")/../lib.sh"
[ -x "$ARGUS" ] || fail "no $ARGUS; run make"

checked=""
typo() { # command expected-option args...: exit 2, "did you mean 'OPT'"
	cmd=$1 want=$2; shift 2
	"$ARGUS" "$@" </dev/null >"$TMP/out" 2>"$TMP/err"; rc=$?
	[ $rc = 2 ] || { cat "$TMP/err"; fail "argus $*: exit $rc, not 2"; }
	grep -qF "did you mean '$want'?" "$TMP/err" ||
		{ cat "$TMP/err"; fail "argus $*: does not suggest $want"; }
	[ "$(wc -l <"$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "argus $*: not one line"; }
	[ -s "$TMP/out" ] && { cat "$TMP/out"; fail "argus $*: wrote to stdout"; }
	checked="$checked $cmd"
}
said() { # pattern args...: exit 2 and the message says pattern
	pat=$1; shift
	"$ARGUS" "$@" </dev/null >/dev/null 2>"$TMP/err"; rc=$?
	[ $rc = 2 ] || { cat "$TMP/err"; fail "argus $*: exit $rc, not 2"; }
	grep -qF -- "$pat" "$TMP/err" || { cat "$TMP/err"; fail "argus $*: does not say \"$pat\""; }
}

typo argus --load --lod x
typo record --duration record --duratoin 1
typo diagnose --batch diagnose --bach --load true
typo step --check step --chek spec.json
typo probes --json probes --jsno
typo reference --duration reference save --duratoin 1
typo replay --batch replay --bach f.jsonl
typo diff --batch diff a.folded b.folded --bach
typo export --format export f.jsonl --formt json
typo model --load model --lod x
# the shared tables' options are suggested too, in every command that takes them
typo diff --agent diff a.folded b.folded --agnet llm
typo export --push-wait export f.jsonl --push-wiat 3
typo record --labels record --lables env=x
typo step --pairs step --piars 3 spec.json
typo model --steady model --stedy -- true
# a glued value is not part of the name compared
typo record --duration record --duratoin=5

for c in $("$ARGUS" --help | sed -n '/^commands:/,/^$/p' | awk 'NR>1 && NF {print $1}'); do
	case " $checked " in *" $c "*) ;; *) fail "no typo case for 'argus $c'" ;; esac
done

# getopt's other errors, said as such (not "unknown option")
said "missing value for '--duration'" record --duration
said "missing value for '--load'" model --load
said "'--json' takes no value" record --json=x
said "ambiguous option '--f'" record --f
# nothing near: no suggestion, still the way to the list
said "unknown option '--zzzzzzzz'; 'argus replay --help' lists them" replay --zzzzzzzz f.jsonl
echo ok
