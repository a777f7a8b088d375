/* cmd_common — shared by the subcommands (see cmd_common.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>

#include "cmd.h"
#include "cmd_common.h"
#include "opts_agent.h"
#include "opts_load.h"
#include "opts_session.h"
#include "probe/probe.h"

const int cmd_end_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, 0 };

int cmd_signals_hold(void)
{
	signal(SIGPIPE, SIG_IGN);
	return cmd_signals_block(cmd_end_sigs, NULL);
}

static void cmd_sigset(const int *sigs, sigset_t *set)
{
	sigemptyset(set);
	for (; *sigs; sigs++)
		sigaddset(set, *sigs);
}

int cmd_signals_block(const int *sigs, sigset_t *old)
{
	sigset_t set;

	cmd_sigset(sigs, &set);
	return sigprocmask(SIG_BLOCK, &set, old) < 0 ? -errno : 0;
}

int cmd_signalfd(const int *sigs, sigset_t *old)
{
	sigset_t set;
	int fd;

	cmd_sigset(sigs, &set);
	if (sigprocmask(SIG_BLOCK, &set, old) < 0)
		return -errno;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

int cmd_check_probe_access(int *exit_status)
{
	char *cause = NULL;
	int err;

	err = probe_check_privileges(&cause);
	if (!err) {
		err = probe_check_btf(&cause);
		if (err)
			*exit_status = EXIT_KERNEL;
	} else {
		*exit_status = EXIT_PRIV;
	}
	if (err)
		fprintf(stderr, "argus: %s\n", cause ? cause : "cannot load BPF programs here");
	free(cause);
	return err;
}

int cmd_apply_measure_opt(const struct opt_hit *h, struct opts_load *ol, struct opts_session *os,
			  struct opts_agent *oa)
{
	if (h->group == &opts_load_group)
		return opts_load_apply(ol, h, stderr);
	if (h->group == &opts_session_group)
		return opts_session_apply(os, h, stderr);
	return opts_agent_apply(oa, h, stderr);
}

struct opt_parser cmd_opt_parser(const struct cmd_opts *o)
{
	struct opt_parser p = { o->name, o->groups, o->ngroups, stderr };

	return p;
}

void cmd_help(const struct cmd_opts *o, FILE *out)
{
	o->head(out);
	opt_help(out, o->groups, o->ngroups);
	if (o->tail)
		o->tail(out);
}
