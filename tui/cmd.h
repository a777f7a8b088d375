/* cmd — the subcommands of argus.  Each lives in tui/cmd_NAME.c and returns
 * an exit status (see EXIT_* below and man/argus.1, EXIT STATUS). */
#ifndef ARGUS_CMD_H
#define ARGUS_CMD_H

#include <stdio.h>

#include "opt.h"

/* Exit statuses, documented in the man page. */
enum {
	EXIT_OK = 0,
	EXIT_ERROR = 1,        /* a run-time failure, said on stderr */
	EXIT_USAGE = 2,        /* bad command line */
	EXIT_PRIV = 3,         /* missing privileges (root / CAP_BPF + CAP_PERFMON) */
	EXIT_KERNEL = 4,       /* this kernel cannot do it (no BTF, refused attach) */
	EXIT_LOAD_ENDED = 5,   /* the load (or the victim) ended before a reference/loaded pair was measured */
	EXIT_LOAD_FAILED = 6,  /* the load ended on its own with a non-zero status or a signal:
	                        * the verdict (still printed) describes a failed run */
	EXIT_NOEXEC = 127,     /* the command after -- could not be run */
};

/* A command's options: the groups it parses argv against (tui/opt.h), and
 * its --help, generated around them. */
struct cmd_opts {
	const char *name;                   /* in messages: "argus: NAME: ..."; NULL: argus */
	void (*head)(FILE *out);            /* usage and what the command does */
	const struct opt_group *const *groups;
	size_t ngroups;
	void (*tail)(FILE *out);            /* after the options (NULL: nothing) */
};

#define CMD_OPTS(name, head, groups, tail) \
	{ (name), (head), (groups), sizeof(groups) / sizeof((groups)[0]), (tail) }

/* The parser of a command's argv (errors said on stderr). */
struct opt_parser cmd_opt_parser(const struct cmd_opts *o);

/* A command's --help: its head, every listed option of its groups, its tail. */
void cmd_help(const struct cmd_opts *o, FILE *out);

struct cmd {
	const char *name;
	int (*run)(int argc, char **argv);  /* argv[0] is the subcommand name */
	const char *usage;                  /* one line, after "argus " */
	const char *help;                   /* one line, for argus --help */
	int needs_root;                     /* for --help: which modes need privileges */
	const struct cmd_opts *opts;        /* its options and --help */
};

int cmd_tui(int argc, char **argv);      /* argus [options] [-- CMD]   (tui/cmd_tui.c) */
int cmd_record(int argc, char **argv);   /* tui/cmd_record.c */
int cmd_diagnose(int argc, char **argv); /* tui/cmd_diagnose.c */
int cmd_step(int argc, char **argv);     /* tui/cmd_step.c */
int cmd_probes(int argc, char **argv);   /* tui/cmd_probes.c */
int cmd_reference(int argc, char **argv);/* tui/cmd_reference.c */
int cmd_replay(int argc, char **argv);   /* tui/cmd_replay.c */
int cmd_diff(int argc, char **argv);     /* tui/cmd_diff.c */
int cmd_export(int argc, char **argv);   /* tui/cmd_export.c */
int cmd_model(int argc, char **argv);    /* tui/cmd_model.c */

/* each command's options, in its file */
extern const struct cmd_opts cmd_tui_opts, cmd_record_opts, cmd_diagnose_opts, cmd_step_opts,
	cmd_probes_opts, cmd_reference_opts, cmd_replay_opts, cmd_diff_opts, cmd_export_opts,
	cmd_model_opts;

extern const struct cmd cmd_table[];
void cmd_usage(FILE *out);

#endif
