/* cmd — the subcommands of argus.  Each lives in tui/cmd_NAME.c and returns
 * an exit status (see EXIT_* below and man/argus.1, EXIT STATUS). */
#ifndef ARGUS_CMD_H
#define ARGUS_CMD_H

#include <stdio.h>

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

struct cmd {
	const char *name;
	int (*run)(int argc, char **argv);  /* argv[0] is the subcommand name */
	const char *usage;                  /* one line, after "argus " */
	const char *help;                   /* one line, for argus --help */
	int needs_root;                     /* for --help: which modes need privileges */
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

extern const struct cmd cmd_table[];
void cmd_usage(FILE *out);

#endif
