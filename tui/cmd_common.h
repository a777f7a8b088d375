/* cmd_common — what the subcommands (tui/cmd_*.c) share: the signals that
 * end them, as a signalfd for their poll loop, and the checks before a
 * subcommand loads BPF. */
#ifndef ARGUS_CMD_COMMON_H
#define ARGUS_CMD_COMMON_H

#include <signal.h>
#include <stddef.h>

/* Blocks sigs (a list ending in 0) so that they wait for the poll loop,
 * the previous mask in *old (NULL: not kept), and returns a non-blocking,
 * close-on-exec signalfd for them, or -errno (the signals stay blocked
 * when only the signalfd failed). */
int cmd_signalfd(const int *sigs, sigset_t *old);

/* Blocks sigs (a list ending in 0), the previous mask in *old (may be
 * NULL), before a cmd_signalfd that comes later.  0 or -errno. */
int cmd_signals_block(const int *sigs, sigset_t *old);

/* The signals that end a command that runs a load: INT, TERM, HUP (an SSH
 * drop, a closed terminal), QUIT; a list ending in 0. */
extern const int cmd_end_sigs[];

/* The first call of every command that may start a load (tui, record,
 * diagnose, step, reference, model): blocks cmd_end_sigs for the rest of
 * the process, so that from here to exit no signal can end argus between
 * a load's start and its end (each command reads them from a signalfd, or
 * unblocks them around a loop that polls a flag, and whatever arrives
 * during cleanup waits, harmless, until exit), and ignores SIGPIPE (a
 * closed output is a write error the command reports, not a death that
 * skips the cleanup).  0 or -errno. */
int cmd_signals_hold(void);

/* What a subcommand that loads BPF checks first: the privileges, then the
 * kernel's BTF.  0 when argus may go on (*exit_status untouched); else
 * prints "argus: <why and what to do>" on stderr, sets *exit_status to
 * EXIT_PRIV or EXIT_KERNEL and returns -EPERM or -ENOENT. */
int cmd_check_probe_access(int *exit_status);

struct opt_hit;
struct opts_load;
struct opts_session;
struct opts_agent;

/* An option of the groups the measuring commands share (the interactive
 * argus, diagnose): load, session or agent, into its struct.  0, or -1
 * after a message on stderr (a usage error). */
int cmd_apply_measure_opt(const struct opt_hit *h, struct opts_load *ol, struct opts_session *os,
			  struct opts_agent *oa);

#endif
