/* opt — the one option grammar of argus's commands: each command's options
 * are a table (struct opt_group), and so are the groups several commands
 * share (the load, the session, the agent, pushing); one reader parses
 * argv against a command's groups, one writer prints them for --help, and
 * an unknown option is answered with the nearest known one.
 *
 * The grammar is getopt_long's: --name VALUE, --name=VALUE, a unique
 * abbreviation of a name (--dur for --duration), a short alias -x VALUE or
 * -xVALUE, "--" ending the options; a word that does not start with '-'
 * (or "-" alone) is an operand.
 *
 * Usage, in a command:
 *
 *	static const struct opt my_opts[] = { { MY_X, "--x", "-x", "N", "..." }, ... };
 *	static const struct opt_group my_group = OPT_GROUP(NULL, my_opts);
 *	static const struct opt_group *const groups[] = { &my_group, &opts_load_group };
 *	const struct opt_parser p = { "cmd", groups, 2, stderr };
 *	struct opt_hit h;
 *	for (int i = 1, r; (r = opt_next(&p, argc, argv, &i, &h)) != OPT_END; ) {
 *		if (r < 0) return EXIT_USAGE;     // said on p.err
 *		...  h.group, h.o->id, h.val
 *	}
 */
#ifndef ARGUS_OPT_H
#define ARGUS_OPT_H

#include <stddef.h>
#include <stdio.h>

struct opt {
	int id;                 /* the table owner's own enum */
	const char *name;       /* "--name" */
	const char *alias;      /* "-x", or NULL */
	const char *arg;        /* the value's name in --help ("N", "CMD"); NULL: a flag */
	const char *help;       /* its line in --help; NULL: not listed (test fixtures) */
};

struct opt_group {
	const char *title;      /* its heading in --help ("load options"); NULL: none */
	const struct opt *opts;
	size_t n;
};

/* A number's macro as text, for a default in a help line. */
#define OPT_STR_(x) #x
#define OPT_STR(x) OPT_STR_(x)

#define OPT_GROUP(title, table) { (title), (table), sizeof(table) / sizeof((table)[0]) }

/* What opt_next read. */
enum opt_kind {
	OPT_END = 0,            /* argv is read to its end */
	OPT_OPTION = 1,         /* an option: h->group, h->o, h->val (NULL for a flag) */
	OPT_OPERAND = 2,        /* a word that is not an option: h->val (argv[*i - 1]) */
	OPT_DASHDASH = 3,       /* "--": argv[*i] on are the command's (a load's command) */
};

struct opt_hit {
	const struct opt_group *group;
	const struct opt *o;
	const char *val;
	const char *as;         /* the option as typed, for messages: o->alias or o->name */
};

/* What a command reads its argv against. */
struct opt_parser {
	const char *cmd;        /* its name in messages; NULL: the interactive argus */
	const struct opt_group *const *groups;
	size_t ngroups;
	FILE *err;              /* where usage errors are said */
};

/* Reads argv[*i] (and its value) against p's groups and moves *i past what
 * it read.  Returns an enum opt_kind, or -1 after saying on p->err, as
 * "argus: CMD: ...", what is wrong: an unknown option (with the nearest
 * name of every group when one is a typo away), an ambiguous abbreviation
 * (with what it begins), a missing value, a value given to a flag. */
int opt_next(const struct opt_parser *p, int argc, char **argv, int *i, struct opt_hit *h);

/* Every listed option of groups, one line each ("  -x, --name ARG  help"),
 * under each group's title, to out. */
void opt_help(FILE *out, const struct opt_group *const *groups, size_t ngroups);

#endif
