/* cmd_common — what the subcommands (tui/cmd_*.c) share: the signals that
 * end them, as a signalfd for their poll loop. */
#ifndef ARGUS_CMD_COMMON_H
#define ARGUS_CMD_COMMON_H

#include <signal.h>

/* Blocks sigs (a list ending in 0) so that they wait for the poll loop,
 * the previous mask in *old (NULL: not kept), and returns a non-blocking,
 * close-on-exec signalfd for them, or -errno (the signals stay blocked
 * when only the signalfd failed). */
int cmd_signalfd(const int *sigs, sigset_t *old);

/* Blocks sigs (a list ending in 0), the previous mask in *old (may be
 * NULL), before a cmd_signalfd that comes later.  0 or -errno. */
int cmd_signals_block(const int *sigs, sigset_t *old);

#endif
